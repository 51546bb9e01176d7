import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import {
  createPaymentLinkSchema,
  linkModeQuerySchema,
  linkPaymentSchema,
  payLinkSchema,
  paymentLinkListSchema,
  paymentLinkParamsSchema,
  paymentLinkSchema,
  updatePaymentLinkSchema,
} from './schemas.ts';

export function paymentLinksRoutes({
  services,
  requireAuth,
  paymentLinkLimit,
}: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Payment links'];
    const either = { preHandler: requireAuth('either') };
    const security = [{ apiKey: [] }, { bearer: [] }];

    app.post(
      '/payment-links',
      {
        ...either,
        schema: {
          tags,
          summary:
            'Create a reusable payment link (its mode is the key’s, or `is_test` with a dashboard token): each visit ' +
            'that goes on to pay creates a payment with its terms',
          security,
          body: createPaymentLinkSchema,
          response: { 201: paymentLinkSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await services.paymentLinks.create(principalOf(request), request.body)),
    );

    app.get(
      '/payment-links',
      {
        ...either,
        schema: {
          tags,
          summary: 'List payment links, newest first, each with its totals',
          security,
          querystring: linkModeQuerySchema,
          response: { 200: paymentLinkListSchema },
        },
      },
      async (request) => ({
        data: await services.paymentLinks.list(principalOf(request), request.query.is_test),
      }),
    );

    app.get(
      '/payment-links/:id',
      {
        ...either,
        schema: {
          tags,
          summary: 'A payment link with its totals (its payments: GET /payments?payment_link_id=)',
          security,
          params: paymentLinkParamsSchema,
          response: { 200: paymentLinkSchema },
        },
      },
      async (request) => services.paymentLinks.get(principalOf(request), request.params.id),
    );

    app.patch(
      '/payment-links/:id',
      {
        ...either,
        schema: {
          tags,
          summary: 'Change a payment link’s title or description, or turn it off or on',
          security,
          params: paymentLinkParamsSchema,
          body: updatePaymentLinkSchema,
          response: { 200: paymentLinkSchema },
        },
      },
      async (request) => services.paymentLinks.update(principalOf(request), request.params.id, request.body),
    );

    app.post(
      '/payment-links/:id/payments',
      {
        preHandler: paymentLinkLimit,
        schema: {
          tags,
          summary:
            'A visit that goes on to pay (public, no key): creates a payment with the link’s terms and answers its ' +
            'checkout address; limited per client IP (SVC_PAYMENT_LINK_RATE_LIMIT)',
          params: paymentLinkParamsSchema,
          body: payLinkSchema,
          response: { 201: linkPaymentSchema },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(
            await services.paymentLinks.pay(
              request.params.id,
              request.body.amount,
              request.body.customer_email,
            ),
          ),
    );
  };
}
