import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { idempotencyHeadersSchema, idempotencyKeyOf } from '../../http/idempotency.ts';
import { compiledSerializer } from '../../http/serializers.ts';
import {
  checkoutParamsSchema,
  checkoutSelectSchema,
  checkoutViewSchema,
  createPaymentSchema,
  listPaymentsQuerySchema,
  paymentDetailSchema,
  paymentListSchema,
  paymentParamsSchema,
  paymentSchema,
} from './schemas.ts';

const createHeadersSchema = idempotencyHeadersSchema(
  'Retry-safe creation: the same key and body return the first response; another body is a 409.',
);

export function paymentsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['Payments'];

    app.post(
      '/payments',
      {
        preHandler: requireAuth('either'),
        serializerCompiler: compiledSerializer,
        schema: {
          tags,
          summary:
            "Create a payment: its mode is the API key's, or with a dashboard token the `is_test` given; without " +
            '`chain` the payer picks the chain and asset on the checkout',
          security: [{ apiKey: [] }, { bearer: [] }],
          headers: createHeadersSchema,
          body: createPaymentSchema,
          response: { 200: paymentSchema, 201: paymentSchema },
        },
      },
      async (request, reply) => {
        const key = idempotencyKeyOf(request.headers['idempotency-key']);
        const result = await services.payments.create(principalOf(request), request.body, key);
        // Both through the route's compiled serializer: a replayed body (stored as JSON) comes out in the schema's order.
        if (result.replayed) reply.header('idempotent-replayed', 'true');
        return reply.status(result.status).send(result.body);
      },
    );

    app.get(
      '/payments',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags,
          summary: 'List payments, newest first, with cursor pagination and filters',
          security: [{ apiKey: [] }, { bearer: [] }],
          querystring: listPaymentsQuerySchema,
          response: { 200: paymentListSchema },
        },
      },
      async (request) => services.payments.list(principalOf(request), request.query),
    );

    app.get(
      '/payments/:id',
      {
        preHandler: requireAuth('either'),
        serializerCompiler: compiledSerializer,
        schema: {
          tags,
          summary: 'Get a payment with its deposits and events',
          security: [{ apiKey: [] }, { bearer: [] }],
          params: paymentParamsSchema,
          response: { 200: paymentDetailSchema },
        },
      },
      async (request) => services.payments.get(principalOf(request), request.params.id),
    );

    app.get(
      '/payments/checkout/:payment_id',
      {
        serializerCompiler: compiledSerializer,
        schema: {
          tags: ['Checkout'],
          summary: 'Public, read-only status of a payment for the hosted checkout (no key)',
          params: checkoutParamsSchema,
          response: { 200: checkoutViewSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return services.payments.checkoutView(request.params.payment_id);
      },
    );

    app.post(
      '/payments/checkout/:payment_id/select',
      {
        schema: {
          tags: ['Checkout'],
          summary:
            "The payer's pick of a chain and asset among a payment's `options` (no key): takes its deposit address " +
            'and locks the rate for 15 minutes; repeated once that quote lapsed with nothing seen, it quotes again',
          params: checkoutParamsSchema,
          body: checkoutSelectSchema,
          response: { 200: checkoutViewSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        await services.payments.select(request.params.payment_id, request.body);
        return services.payments.checkoutView(request.params.payment_id);
      },
    );
  };
}
