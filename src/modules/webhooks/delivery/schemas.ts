import { z } from 'zod';
import {
  eventTypes,
  paymentEventTypes,
  refundEventTypes,
  webhookEndpointEventTypes,
} from '../events/payload.ts';

const paymentPayloadSchema = z
  .object({
    event: z.enum(paymentEventTypes),
    payment_id: z.string(),
    status: z.string(),
    amount: z
      .number()
      .describe(
        'Decimal amount in the payment currency (a JSON number, written exactly; a double keeps only 15–17 digits).',
      ),
    amount_decimal: z
      .string()
      .optional()
      .describe(
        'The same amount as an exact decimal string. Absent only from events recorded before it existed.',
      ),
    currency: z.string(),
    chain: z.string(),
    tx_hash: z
      .string()
      .nullable()
      .describe(
        'Transaction hash; `""` when the payment has none. null only in events recorded before that rule.',
      ),
    received_amount_native: z.string(),
    expected_amount_native: z.string(),
    is_test: z.boolean(),
    timestamp: z.iso.datetime(),
  })
  .meta({
    id: 'WebhookPayload',
    description: 'The exact JSON body every delivery of a payment event sends.',
  });

const payoutWalletPayloadSchema = z
  .object({
    event: z.literal('payout_wallet.updated'),
    is_test: z.boolean(),
    changes: z.array(
      z.object({
        chain: z.string(),
        old_address: z.string().nullable().describe('null: the chain had no payout wallet.'),
        new_address: z.string().nullable().describe('null: the chain has no payout wallet any more.'),
      }),
    ),
    changed_by: z.string().describe('The account whose re-authenticated dashboard session made the change.'),
    timestamp: z.iso.datetime(),
  })
  .meta({
    id: 'PayoutWalletUpdatedPayload',
    description: 'The body of `payout_wallet.updated`: the payout wallets of a mode changed.',
  });

const webhookEndpointPayloadSchema = z
  .object({
    event: z.enum(webhookEndpointEventTypes),
    is_test: z.boolean(),
    endpoint_id: z.string(),
    url: z.string(),
    consecutive_failures: z
      .number()
      .int()
      .describe('Failed attempts in a row when the breaker opened; 0 once it has closed.'),
    failing_since: z.iso.datetime().describe('When the breaker opened.'),
    next_probe_at: z.iso
      .datetime()
      .nullable()
      .describe('When the next single probe goes out (`failing`); null once recovered.'),
    timestamp: z.iso.datetime(),
  })
  .meta({
    id: 'WebhookEndpointHealthPayload',
    description:
      'The body of `webhook_endpoint.failing` (an endpoint failed `SVC_WEBHOOK_BREAKER_FAILURES` attempts in a row: ' +
      'its deliveries now wait while one probe at a time is sent, with growing pauses) and ' +
      '`webhook_endpoint.recovered` (a probe succeeded: everything held back is due at once).',
  });

const decimalOrNull = z.string().nullable();

const refundPayloadSchema = z
  .object({
    event: z.enum(refundEventTypes),
    refund_id: z.string().describe('Refund id, prefixed `rf_`.'),
    payment_id: z.string(),
    status: z.string().describe("The refund's status at the moment of the event."),
    chain: z.string(),
    asset: z.string(),
    amount_native: z
      .string()
      .describe("Decimal amount of `asset` taken out of the payment's received amount."),
    sent_amount_native: decimalOrNull.describe(
      'What reaches the payer: the amount less the network fee when that is paid in `asset`; null before signing.',
    ),
    fee_native: decimalOrNull.describe("The network fee in the chain's native coin; null before signing."),
    source: z
      .enum(['deposit', 'refund_wallet', 'merchant'])
      .nullable()
      .describe('Where it is sent from; null before that is chosen.'),
    to_address: z.string().nullable().describe("The payer's address; null until they gave it."),
    tx_hash: z.string().nullable(),
    reason: z.string().nullable(),
    error: z.string().nullable().describe('Why it failed (`refund.failed`), else null.'),
    is_test: z.boolean(),
    timestamp: z.iso.datetime(),
  })
  .meta({
    id: 'RefundPayload',
    description:
      'The body of `refund.created` (a refund was asked for), `refund.sent` (its transaction has its confirmations, ' +
      "or the merchant's own payment of it was seen) and `refund.failed` (it cannot be sent; its amount is " +
      'refundable again).',
  });

const eventPayloadSchema = z.union([
  paymentPayloadSchema,
  refundPayloadSchema,
  payoutWalletPayloadSchema,
  webhookEndpointPayloadSchema,
]);

export const eventSchema = z
  .object({
    id: z
      .string()
      .describe('Event id, prefixed `evt_`; also the `webhook-id` and `X-Service-Event-Id` of deliveries.'),
    type: z.string(),
    is_test: z.boolean(),
    payment_id: z.string().nullable().describe('null for events that are not about a payment.'),
    sample: z.boolean().describe('True for the signed samples of `POST /webhooks/{id}/test`.'),
    created_at: z.iso.datetime(),
    payload: eventPayloadSchema,
  })
  .meta({ id: 'Event' });

export const eventListSchema = z
  .object({ data: z.array(eventSchema), has_more: z.boolean() })
  .meta({ id: 'EventList' });

const attemptSchema = z
  .object({
    attempt: z.number().int(),
    started_at: z.iso.datetime(),
    duration_ms: z.number().int(),
    status_code: z.number().int().nullable(),
    success: z.boolean(),
    response_body: z
      .string()
      .nullable()
      .describe(
        'The first 2 KB of the response body; never kept for private targets (loopback, trusted networks).',
      ),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookAttempt' });

const deliveryStatuses = ['pending', 'succeeded', 'failed', 'canceled'] as const;

export const deliverySchema = z
  .object({
    id: z.string().describe('Delivery id, prefixed `del_`.'),
    event_id: z.string(),
    event_type: z.string(),
    endpoint_id: z.string(),
    is_test: z.boolean(),
    status: z
      .enum(deliveryStatuses)
      .describe('`canceled`: the endpoint was disabled or deleted before the delivery was sent.'),
    attempt_count: z.number().int(),
    next_attempt_at: z.iso.datetime().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    redelivery_of: z.string().nullable(),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    attempts: z.array(attemptSchema),
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = z
  .object({ data: z.array(deliverySchema), has_more: z.boolean() })
  .meta({ id: 'WebhookDeliveryList' });

const limit = z.coerce.number().int().min(1).max(100).default(20);
const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listEventsQuerySchema = z.strictObject({
  limit,
  starting_after: z.string().max(64).optional().describe('An event id: list the events older than it.'),
  type: z.enum(eventTypes).optional(),
  payment_id: z.string().max(64).optional(),
  is_test: booleanQuery
    .optional()
    .describe('With a dashboard token: only this mode. A key always sees its own.'),
});

export const listDeliveriesQuerySchema = z.strictObject({
  limit,
  starting_after: z.string().max(64).optional().describe('A delivery id: list the deliveries older than it.'),
  status: z.enum(deliveryStatuses).optional(),
});

export const idParamsSchema = z.object({ id: z.string().max(64) });

export const redeliverFailedSchema = z.strictObject({
  since: z.iso
    .datetime({ offset: true })
    .describe('Redeliver failed deliveries created at or after this time.'),
  until: z.iso.datetime({ offset: true }).optional().describe('… and before this time (default: now).'),
});

export const redeliverFailedResultSchema = z
  .object({ redelivered: z.number().int(), delivery_ids: z.array(z.string()) })
  .meta({ id: 'RedeliverFailedResult' });

export const testEventSchema = z
  .strictObject({
    event: z
      .enum(paymentEventTypes)
      .optional()
      .describe('The event type of the sample (default payment.confirmed).'),
  })
  .nullish();

export const testDeliverySchema = z
  .object({ event: eventSchema, delivery: deliverySchema })
  .meta({ id: 'WebhookTestDelivery' });

export type EventView = z.infer<typeof eventSchema>;
export type DeliveryView = z.infer<typeof deliverySchema>;
