import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { payments } from './payments.ts';

const baseUnits = (name: string) => numeric(name, { precision: 78, scale: 0 });

/**
 * Money given back to a payer, out of what a payment received. `status`:
 * - `awaiting_address`: created, the payer has not yet given an address (refund link);
 * - `queued`: the address is known; the chain's sender picks where to send from (`source`) and signs;
 * - `pending`: the signed transaction and its hash are stored (the intent) BEFORE anything is broadcast, so a crash
 *   re-sends the same transaction and never a second one;
 * - `broadcast` → `sent` once it has the chain's confirmations;
 * - `awaiting_payment`: the funds were swept and no refund wallet can pay: the merchant pays it from their own wallet
 *   (a payment request) and it becomes `sent` when the chain shows that transfer;
 * - `failed` (its amount counts as refundable again).
 * The sum of the amounts of refunds not failed never exceeds the payment's received amount: refunds are created with
 * the payment's row locked (payments.lockForRefund), which serialises them per payment.
 */
/** A signed version of a refund's transaction, kept after a fee bump replaced it. */
export interface RefundVersion {
  txHash: string;
  rawTx: string;
  fee: string;
  sentAmount: string;
  /** When it was replaced (ISO). */
  replacedAt: string;
}

export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => payments.id),
    isTest: boolean('is_test').notNull(),
    chain: text('chain').notNull(),
    asset: text('asset').notNull(),
    /** Base units of `asset` taken out of the payment's received amount. */
    amount: baseUnits('amount').notNull(),
    /** When the merchant asked in the payment's currency: that currency and amount (converted at its locked rate). */
    currency: text('currency'),
    currencyAmount: text('currency_amount'),
    status: text('status').notNull(),
    /** `deposit` (the payment's deposit address), `refund_wallet` or `merchant` (a payment request), once chosen. */
    source: text('source'),
    toAddress: text('to_address'),
    fromAddress: text('from_address'),
    /** The deposits a `deposit` refund takes its funds from: id and base units of each. */
    allocations: jsonb('allocations').$type<Array<{ depositId: string; amount: string }>>(),
    payerEmail: text('payer_email'),
    reason: text('reason'),
    /** Created by the merchant's auto-refund of overpaid excess, not by a request. */
    automatic: boolean('automatic').notNull().default(false),
    /** Base units of `asset` that reach the payer (the amount less the network fee when that is paid in `asset`). */
    sentAmount: baseUnits('sent_amount'),
    /** Base units of the chain's native coin paid as the network fee (0 for a refund the merchant paid). */
    fee: baseUnits('fee'),
    rawTx: text('raw_tx'),
    txHash: text('tx_hash'),
    /**
     * UTXO chains: the versions a fee bump replaced (BIP125: the same inputs, so at most one of them and the current
     * one can land), oldest first, with when each was replaced. Whichever the chain mines is the one recorded.
     */
    replaced: jsonb('replaced').$type<RefundVersion[]>(),
    blockNumber: bigint('block_number', { mode: 'number' }),
    broadcastCount: integer('broadcast_count').notNull().default(0),
    lastError: text('last_error'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    addressAt: timestamp('address_at', { withTimezone: true, mode: 'date' }),
    broadcastAt: timestamp('broadcast_at', { withTimezone: true, mode: 'date' }),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    check('refunds_amount_positive', sql`${table.amount} > 0`),
    index('refunds_payment_idx').on(table.paymentId),
    index('refunds_merchant_idx').on(table.merchantId, table.isTest, table.createdAt, table.id),
    index('refunds_open_idx')
      .on(table.chain, table.isTest, table.createdAt)
      .where(sql`status in ('queued', 'pending', 'broadcast', 'awaiting_payment')`),
    uniqueIndex('refunds_idempotency_key')
      .on(table.merchantId, table.isTest, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
  ],
);
