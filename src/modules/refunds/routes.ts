import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { idempotencyHeadersSchema, idempotencyKeyOf } from '../../http/idempotency.ts';
import {
  createRefundSchema,
  listRefundsQuerySchema,
  paymentRefundsParamsSchema,
  refundLinkParamsSchema,
  refundLinkViewSchema,
  refundListSchema,
  refundParamsSchema,
  refundSchema,
  submitRefundAddressSchema,
} from './schemas.ts';

const createHeadersSchema = idempotencyHeadersSchema(
  'Retry-safe: the same key and body return the first refund (200); another body is a 409.',
);

export function refundsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Refunds'];
    const security = [{ apiKey: [] }, { bearer: [] }];

    app.post(
      '/payments/:id/refunds',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags,
          summary:
            'Refund (part of) what a payment received, in its asset or its currency; the payer gives an address on ' +
            '`refund_url` unless `address` is given. Refused (409) beyond received less the other refunds',
          security,
          params: paymentRefundsParamsSchema,
          headers: createHeadersSchema,
          body: createRefundSchema,
          response: { 200: refundSchema, 201: refundSchema },
        },
      },
      async (request, reply) => {
        const key = idempotencyKeyOf(request.headers['idempotency-key']);
        const result = await services.refunds.create(
          principalOf(request),
          request.params.id,
          request.body,
          key,
        );
        if (result.status === 200) reply.header('idempotent-replayed', 'true');
        return reply.status(result.status).send(result.body);
      },
    );

    app.get(
      '/payments/:id/refunds',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags,
          summary: "A payment's refunds, oldest first",
          security,
          params: paymentRefundsParamsSchema,
          response: { 200: z.object({ data: z.array(refundSchema) }) },
        },
      },
      async (request) => ({
        data: await services.refunds.ofPayment(principalOf(request), request.params.id),
      }),
    );

    app.get(
      '/refunds',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags,
          summary: 'List refunds, newest first, with cursor pagination',
          security,
          querystring: listRefundsQuerySchema,
          response: { 200: refundListSchema },
        },
      },
      async (request) => services.refunds.list(principalOf(request), request.query),
    );

    app.get(
      '/refunds/:id',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags,
          summary: 'Get a refund (with the fee estimate while it is not signed)',
          security,
          params: refundParamsSchema,
          response: { 200: refundSchema },
        },
      },
      async (request) => services.refunds.get(principalOf(request), request.params.id),
    );

    app.get(
      '/refund-links/:token',
      {
        schema: {
          tags: ['Checkout'],
          summary: "Public: a refund as its payer sees it through the refund link's token (no key)",
          params: refundLinkParamsSchema,
          response: { 200: refundLinkViewSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return services.refunds.linkView(request.params.token);
      },
    );

    app.post(
      '/refund-links/:token',
      {
        schema: {
          tags: ['Checkout'],
          summary:
            "Public: the payer gives the refund's address (checked for the chain: format, checksum, network, not a " +
            'contract); the refund is then sent',
          params: refundLinkParamsSchema,
          body: submitRefundAddressSchema,
          response: { 200: refundLinkViewSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return services.refunds.submitAddress(request.params.token, request.body);
      },
    );
  };
}
