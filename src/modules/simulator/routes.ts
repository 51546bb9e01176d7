import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import {
  checkoutParamsSchema,
  checkoutSimulateResultSchema,
  checkoutSimulateSchema,
  paymentParamsSchema,
  simulatePaymentSchema,
  simulateResultSchema,
} from '../payments/schemas.ts';

export function simulatorRoutes({
  services,
  requireAuth,
  checkoutSimulateLimit,
}: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/payments/:id/simulate',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags: ['Payments'],
          summary:
            'TEST MODE: simulate the payer (a deposit on the simulated chain) or the end of the window',
          description:
            'Test payments only (a live one is refused with `not_test_mode`). The simulated deposit lands in the next ' +
            'simulated block (SVC_SIM_BLOCK_MS) and the payment walks through confirmations like a real one, sending ' +
            'its webhooks.',
          security: [{ apiKey: [] }, { bearer: [] }],
          params: paymentParamsSchema,
          body: simulatePaymentSchema,
          response: { 202: simulateResultSchema },
        },
      },
      async (request, reply) =>
        reply
          .status(202)
          .send(await services.simulator.simulate(principalOf(request), request.params.id, request.body)),
    );

    app.post(
      '/payments/checkout/:payment_id/simulate',
      {
        preHandler: checkoutSimulateLimit,
        schema: {
          tags: ['Checkout'],
          summary: 'TEST MODE: simulate the payer from the hosted checkout (no key)',
          description:
            'Public like the checkout view, and for test-mode payments only: a live payment is refused with ' +
            '`not_test_mode`. Same outcomes as `POST /payments/{id}/simulate` (without `amount_native`); the answer ' +
            'holds the public checkout view, never merchant data. A payment can be simulated here once: a second ' +
            'attempt is refused with `409 checkout_already_simulated` (the keyed simulate has no such limit). ' +
            'Rate-limited per IP like every public route, and besides per IP and per payment ' +
            '(SVC_CHECKOUT_SIMULATE_RATE_LIMIT a minute, `429 rate_limited`).',
          params: checkoutParamsSchema,
          body: checkoutSimulateSchema,
          response: { 202: checkoutSimulateResultSchema },
        },
      },
      async (request, reply) =>
        reply
          .status(202)
          .header('cache-control', 'no-store')
          .send(await services.simulator.simulateCheckout(request.params.payment_id, request.body)),
    );
  };
}
