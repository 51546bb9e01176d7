import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../http/auth.ts';
import type { RouteContext } from '../../../http/context.ts';
import {
  deliveryListSchema,
  deliverySchema,
  eventListSchema,
  eventSchema,
  idParamsSchema,
  listDeliveriesQuerySchema,
  listEventsQuerySchema,
  redeliverFailedResultSchema,
  redeliverFailedSchema,
  testDeliverySchema,
  testEventSchema,
} from './schemas.ts';

/** Events, deliveries with their attempts, redelivery and test sends. Key or dashboard token, scoped by mode. */
export function webhookDeliveryRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const either = { preHandler: requireAuth('either') };
    const security = [{ apiKey: [] }, { bearer: [] }];

    app.get(
      '/events',
      {
        ...either,
        schema: {
          tags: ['Events'],
          summary: 'List events, newest first',
          security,
          querystring: listEventsQuerySchema,
          response: { 200: eventListSchema },
        },
      },
      async (request) => services.events.listEvents(principalOf(request), request.query),
    );

    app.get(
      '/events/:id',
      {
        ...either,
        schema: {
          tags: ['Events'],
          summary: 'Get an event with its exact webhook payload',
          security,
          params: idParamsSchema,
          response: { 200: eventSchema },
        },
      },
      async (request) => services.events.getEvent(principalOf(request), request.params.id),
    );

    const tags = ['Webhook deliveries'];

    app.get(
      '/webhooks/:id/deliveries',
      {
        ...either,
        schema: {
          tags,
          summary: 'List the deliveries of an endpoint, newest first, each with every attempt',
          security,
          params: idParamsSchema,
          querystring: listDeliveriesQuerySchema,
          response: { 200: deliveryListSchema },
        },
      },
      async (request) =>
        services.events.listDeliveries(principalOf(request), request.params.id, request.query),
    );

    app.post(
      '/webhooks/deliveries/:id/redeliver',
      {
        ...either,
        schema: {
          tags,
          summary: 'Send the event of a delivery again as a fresh delivery with its own attempts',
          security,
          params: idParamsSchema,
          response: { 201: deliverySchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await services.events.redeliver(principalOf(request), request.params.id)),
    );

    app.post(
      '/webhooks/:id/redeliver-failed',
      {
        ...either,
        schema: {
          tags,
          summary:
            'Redeliver every failed delivery of the endpoint created since a time (not yet redelivered)',
          security,
          params: idParamsSchema,
          body: redeliverFailedSchema,
          response: { 200: redeliverFailedResultSchema },
        },
      },
      async (request) =>
        services.events.redeliverFailed(principalOf(request), request.params.id, request.body),
    );

    app.post(
      '/webhooks/:id/test',
      {
        ...either,
        schema: {
          tags,
          summary: 'Send a signed sample event (payment_id all zeros) to this endpoint',
          security,
          params: idParamsSchema,
          body: testEventSchema,
          response: { 201: testDeliverySchema },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(await services.events.sendTest(principalOf(request), request.params.id, request.body ?? {})),
    );
  };
}
