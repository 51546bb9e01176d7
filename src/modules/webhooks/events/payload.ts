import { isPlainDecimal } from '../../../lib/money.ts';

/** The events of seed section 6.1, the only values of a payload's `event`. */
export const paymentEventTypes = [
  'payment.confirmed',
  'payment.completed',
  'payment.expired',
  'payment.underpaid',
  'payment.overpaid',
] as const;
export type PaymentEventType = (typeof paymentEventTypes)[number];

/** The events about a webhook endpoint's health: its circuit breaker opened, or closed again. */
export const webhookEndpointEventTypes = ['webhook_endpoint.failing', 'webhook_endpoint.recovered'] as const;
type WebhookEndpointEventType = (typeof webhookEndpointEventTypes)[number];

/** The events of a refund's life: created, sent (final on chain), failed. */
export const refundEventTypes = ['refund.created', 'refund.sent', 'refund.failed'] as const;
export type RefundEventType = (typeof refundEventTypes)[number];

/** Every event type an endpoint may receive: the payment events and the account's own. */
export const eventTypes = [
  ...paymentEventTypes,
  ...refundEventTypes,
  'payout_wallet.updated',
  ...webhookEndpointEventTypes,
] as const;

/** What a payment event says about its payment, as the payments service knows it at the moment of the change. */
export interface PaymentEventSnapshot {
  payment_id: string;
  status: string;
  /** Decimal string ("19.99"); written into the body as a JSON number literal verbatim, never through a float. */
  amount: string;
  currency: string;
  chain: string;
  /** null before any deposit; the body carries it as "" so `tx_hash` is always the seed's string. */
  tx_hash: string | null;
  received_amount_native: string;
  expected_amount_native: string;
  is_test: boolean;
}

export class PayloadError extends Error {}

/**
 * The exact body of seed 6.3, fields in the seed's order, plus `amount_decimal` beside `amount`: `event, payment_id,
 * status, amount, amount_decimal, currency, chain, tx_hash, received_amount_native, expected_amount_native, is_test,
 * timestamp`. `amount` is a JSON number written from its decimal string as is, but most receivers parse it into a
 * double that keeps only 15–17 significant digits, so `amount_decimal` carries the same value as an exact string.
 * `tx_hash` is a string as the seed types it: `""` while the payment has no transaction (an expired payment).
 * `timestamp` is ISO 8601 UTC with milliseconds.
 */
export function paymentEventBody(type: PaymentEventType, payment: PaymentEventSnapshot, at: Date): string {
  if (!(paymentEventTypes as readonly string[]).includes(type)) {
    throw new PayloadError(`Unknown payment event type: ${type}`);
  }
  if (!isPlainDecimal(payment.amount))
    throw new PayloadError(`amount is not a plain decimal: ${payment.amount}`);
  for (const field of ['received_amount_native', 'expected_amount_native'] as const) {
    if (!isPlainDecimal(payment[field])) {
      throw new PayloadError(`${field} is not a plain decimal: ${payment[field]}`);
    }
  }
  if (Number.isNaN(at.getTime())) throw new PayloadError('The event time is not a valid date');
  const text = JSON.stringify;
  return (
    `{"event":${text(type)},"payment_id":${text(payment.payment_id)},"status":${text(payment.status)},` +
    `"amount":${payment.amount},"amount_decimal":${text(payment.amount)},` +
    `"currency":${text(payment.currency)},"chain":${text(payment.chain)},` +
    `"tx_hash":${text(payment.tx_hash ?? '')},` +
    `"received_amount_native":${text(payment.received_amount_native)},` +
    `"expected_amount_native":${text(payment.expected_amount_native)},` +
    `"is_test":${payment.is_test ? 'true' : 'false'},"timestamp":${text(at.toISOString())}}`
  );
}

/** The nil payment id marks the signed samples of `POST /v1/webhooks/{id}/test`. */
const SAMPLE_PAYMENT_ID = '00000000-0000-0000-0000-000000000000';

const sampleStatus: Record<PaymentEventType, string> = {
  'payment.confirmed': 'completed',
  'payment.completed': 'completed',
  'payment.expired': 'expired',
  'payment.underpaid': 'underpaid',
  'payment.overpaid': 'overpaid',
};

/** A payment that never existed, for test deliveries. */
export function samplePayment(type: PaymentEventType, isTest: boolean): PaymentEventSnapshot {
  return {
    payment_id: SAMPLE_PAYMENT_ID,
    status: sampleStatus[type],
    amount: '19.99',
    currency: 'USD',
    chain: 'ethereum',
    tx_hash: type === 'payment.expired' ? null : `0x${'0'.repeat(64)}`,
    received_amount_native: type === 'payment.expired' ? '0' : '0.0063',
    expected_amount_native: '0.0063',
    is_test: isTest,
  };
}

/** One chain's payout address before and after a change (null: none). */
export interface PayoutWalletChange {
  chain: string;
  old_address: string | null;
  new_address: string | null;
}

/**
 * The body of `payout_wallet.updated`: `event, is_test, changes, changed_by, timestamp`. Its own shape, not a
 * payment's: it tells the merchant's systems that funds will now go elsewhere, so a change nobody expected is seen.
 */
export function payoutWalletEventBody(
  input: { isTest: boolean; changes: PayoutWalletChange[]; changedBy: string },
  at: Date,
): string {
  if (Number.isNaN(at.getTime())) throw new PayloadError('The event time is not a valid date');
  return JSON.stringify({
    event: 'payout_wallet.updated',
    is_test: input.isTest,
    changes: input.changes.map((change) => ({
      chain: change.chain,
      old_address: change.old_address,
      new_address: change.new_address,
    })),
    changed_by: input.changedBy,
    timestamp: at.toISOString(),
  });
}

/** What a `webhook_endpoint.*` event says about the endpoint whose breaker opened or closed. */
export interface WebhookEndpointHealth {
  type: WebhookEndpointEventType;
  isTest: boolean;
  endpointId: string;
  url: string;
  consecutiveFailures: number;
  failingSince: Date;
  nextProbeAt: Date | null;
}

/**
 * The body of `webhook_endpoint.failing` and `webhook_endpoint.recovered`: `event, is_test, endpoint_id, url,
 * consecutive_failures, failing_since, next_probe_at, timestamp`. Sent to the merchant's other endpoints of the mode
 * (not to the one it is about), so that a merchant with a second endpoint hears at once that the first one is being
 * held back.
 */
export function webhookEndpointEventBody(input: WebhookEndpointHealth, at: Date): string {
  for (const date of [at, input.failingSince, input.nextProbeAt]) {
    if (date !== null && Number.isNaN(date.getTime()))
      throw new PayloadError('The event time is not a valid date');
  }
  return JSON.stringify({
    event: input.type,
    is_test: input.isTest,
    endpoint_id: input.endpointId,
    url: input.url,
    consecutive_failures: input.consecutiveFailures,
    failing_since: input.failingSince.toISOString(),
    next_probe_at: input.nextProbeAt?.toISOString() ?? null,
    timestamp: at.toISOString(),
  });
}

/** What a `refund.*` event says about its refund, as the refunds service knows it at the moment of the change. */
export interface RefundEventSnapshot {
  refund_id: string;
  payment_id: string;
  status: string;
  chain: string;
  asset: string;
  /** Decimal string of `asset`: what the refund takes out of the payment's received amount. */
  amount_native: string;
  /** What reaches the payer (amount less a fee paid in `asset`); null before it is signed. */
  sent_amount_native: string | null;
  /** The network fee in the chain's native coin; null before it is signed. */
  fee_native: string | null;
  /** `deposit`, `refund_wallet` or `merchant`; null before it is chosen. */
  source: string | null;
  to_address: string | null;
  tx_hash: string | null;
  reason: string | null;
  /** Why it failed (`refund.failed`), else null. */
  error: string | null;
  is_test: boolean;
}

/**
 * The body of `refund.created`, `refund.sent` and `refund.failed`: `event`, then the snapshot's fields in the order
 * above, then `timestamp`. Its own shape, not a payment's; signed and delivered like every other event.
 */
export function refundEventBody(type: RefundEventType, refund: RefundEventSnapshot, at: Date): string {
  if (!(refundEventTypes as readonly string[]).includes(type)) {
    throw new PayloadError(`Unknown refund event type: ${type}`);
  }
  for (const field of ['amount_native', 'sent_amount_native', 'fee_native'] as const) {
    const value = refund[field];
    if (value !== null && !isPlainDecimal(value))
      throw new PayloadError(`${field} is not a plain decimal: ${value}`);
  }
  if (Number.isNaN(at.getTime())) throw new PayloadError('The event time is not a valid date');
  return JSON.stringify({
    event: type,
    refund_id: refund.refund_id,
    payment_id: refund.payment_id,
    status: refund.status,
    chain: refund.chain,
    asset: refund.asset,
    amount_native: refund.amount_native,
    sent_amount_native: refund.sent_amount_native,
    fee_native: refund.fee_native,
    source: refund.source,
    to_address: refund.to_address,
    tx_hash: refund.tx_hash,
    reason: refund.reason,
    error: refund.error,
    is_test: refund.is_test,
    timestamp: at.toISOString(),
  });
}
