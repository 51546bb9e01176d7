import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../http/auth.ts';
import type { RouteContext } from '../../../http/context.ts';
import { compiledSerializer } from '../../../http/serializers.ts';
import {
  createWebhookEndpointSchema,
  listWebhookEndpointsQuerySchema,
  rotatedSecretSchema,
  updateWebhookEndpointSchema,
  webhookEndpointListSchema,
  webhookEndpointParamsSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from './schemas.ts';

export function webhookEndpointRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const either = { preHandler: requireAuth('either') };
    const security = [{ apiKey: [] }, { bearer: [] }];
    const tags = ['Webhook endpoints'];

    app.post(
      '/webhooks',
      {
        ...either,
        schema: {
          tags,
          summary: 'Register a webhook endpoint; its signing secret is shown only in this response',
          security,
          body: createWebhookEndpointSchema,
          response: { 201: webhookEndpointWithSecretSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await services.webhookEndpoints.create(principalOf(request), request.body)),
    );

    app.get(
      '/webhooks',
      {
        ...either,
        schema: {
          tags,
          summary: 'List webhook endpoints',
          security,
          querystring: listWebhookEndpointsQuerySchema,
          response: { 200: webhookEndpointListSchema },
        },
      },
      async (request) => ({
        data: await services.webhookEndpoints.list(principalOf(request), request.query.is_test),
      }),
    );

    app.get(
      '/webhooks/:id',
      {
        ...either,
        serializerCompiler: compiledSerializer,
        schema: {
          tags,
          summary: 'Get a webhook endpoint',
          security,
          params: webhookEndpointParamsSchema,
          response: { 200: webhookEndpointSchema },
        },
      },
      async (request) => services.webhookEndpoints.get(principalOf(request), request.params.id),
    );

    app.patch(
      '/webhooks/:id',
      {
        ...either,
        schema: {
          tags,
          summary: 'Update the url, description or enabled flag of an endpoint',
          security,
          params: webhookEndpointParamsSchema,
          body: updateWebhookEndpointSchema,
          response: { 200: webhookEndpointSchema },
        },
      },
      async (request) =>
        services.webhookEndpoints.update(principalOf(request), request.params.id, request.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        ...either,
        schema: {
          tags,
          summary: 'Delete an endpoint; it receives nothing more',
          security,
          params: webhookEndpointParamsSchema,
          response: { 200: webhookEndpointSchema },
        },
      },
      async (request) => services.webhookEndpoints.remove(principalOf(request), request.params.id),
    );

    app.post(
      '/webhooks/:id/rotate-secret',
      {
        ...either,
        schema: {
          tags,
          summary: 'Replace the signing secret; the old one keeps signing for 24 hours',
          security,
          params: webhookEndpointParamsSchema,
          response: { 200: rotatedSecretSchema },
        },
      },
      async (request) => services.webhookEndpoints.rotateSecret(principalOf(request), request.params.id),
    );
  };
}
