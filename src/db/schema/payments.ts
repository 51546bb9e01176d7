import { sql } from 'drizzle-orm';
import {
  boolean,
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

/** Base units (wei, satoshi, …) can exceed int8, so they are NUMERIC(78,0): any uint256 fits. */
const baseUnits = (name: string) => numeric(name, { precision: 78, scale: 0 });

export const payments = pgTable(
  'payments',
  {
    id: uuid('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    status: text('status').notNull(),
    /** The merchant's amount as the exact decimal string it was given in, canonicalised. */
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    /**
     * Chain, asset, deposit address, derivation index, expected amount and rate: set at creation when the merchant
     * names the chain, else null until the payer picks one of `paymentOptions` on the checkout (all at once).
     */
    chain: text('chain'),
    asset: text('asset'),
    address: text('address'),
    derivationIndex: integer('derivation_index'),
    expectedBaseUnits: baseUnits('expected_base_units'),
    receivedBaseUnits: baseUnits('received_base_units').notNull().default('0'),
    /** Units of `currency` per one whole `asset`, locked at creation (or at the payer's pick, for its quote window). */
    rate: text('rate'),
    rateSource: text('rate_source'),
    /** The chain/asset pairs the payer may pick from (null: the merchant named the chain at creation). */
    paymentOptions: jsonb('payment_options').$type<Array<{ chain: string; asset: string }>>(),
    /** When the payer picked (null: not yet, or the merchant named the chain). */
    selectedAt: timestamp('selected_at', { withTimezone: true, mode: 'date' }),
    /** When the rate locked at the pick lapses unless funds were seen; the payer then gets a new quote. */
    quoteExpiresAt: timestamp('quote_expires_at', { withTimezone: true, mode: 'date' }),
    /** The payment link whose visit created it (`plink_…`), if any. */
    paymentLinkId: text('payment_link_id'),
    /** The checkout's language for this payment (`en`, `es`, …; null: the payer's browser decides). */
    locale: text('locale'),
    txHash: text('tx_hash'),
    orderId: text('order_id'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    /** Where the checkout sends the payer after completion (`success_url`, or the older `redirect_url`). */
    redirectUrl: text('redirect_url'),
    /** Where the checkout sends a payer who gives up, or whose window ended. */
    cancelUrl: text('cancel_url'),
    /** When the last forwarding transaction that swept this payment's funds became final. */
    forwardedAt: timestamp('forwarded_at', { withTimezone: true, mode: 'date' }),
    forwardTxHash: text('forward_tx_hash'),
    /** Network fees of its forwards (its share when batched), in base units of the chain's native coin. */
    forwardFeeBaseUnits: baseUnits('forward_fee_base_units'),
    /** The payer's email (`customer_email`): their receipt and refund links are mailed there (SMTP configured). */
    customerEmail: text('customer_email'),
    /**
     * When the payment first became paid (completed or overpaid) and the rate then (units of `currency` per one
     * `asset`, with its source), stored in that same transaction: exports give its value at confirmation from them.
     * The rate is null when no price could be had within a moment (the confirmation never waits on a price feed).
     */
    confirmedAt: timestamp('confirmed_at', { withTimezone: true, mode: 'date' }),
    confirmationRate: text('confirmation_rate'),
    confirmationRateSource: text('confirmation_rate_source'),
    /** When the public checkout's test banner simulated the payer: it may do so once per payment. */
    checkoutSimulatedAt: timestamp('checkout_simulated_at', { withTimezone: true, mode: 'date' }),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('payments_merchant_idx').on(table.merchantId, table.isTest, table.id),
    index('payments_merchant_order_idx')
      .on(table.merchantId, table.isTest, table.orderId)
      .where(sql`${table.orderId} is not null`),
    // EVM chains share one derivation path, so the address (not chain + index) is what must never repeat.
    uniqueIndex('payments_address_key').on(table.isTest, table.address),
    index('payments_open_idx').on(table.status, table.expiresAt),
    // A payment link's payments and totals.
    index('payments_link_idx')
      .on(table.paymentLinkId, table.id)
      .where(sql`${table.paymentLinkId} is not null`),
    // The watcher loads the payments of its chain and mode by creation time.
    index('payments_watch_idx').on(table.chain, table.isTest, table.createdAt),
    // … and payments whose chain the payer picked, by the time of the pick.
    index('payments_watch_selected_idx')
      .on(table.chain, table.isTest, table.selectedAt)
      .where(sql`${table.selectedAt} is not null`),
    // Confirmed payments still waiting for their rate at confirmation (fetched after the settling transaction).
    index('payments_unrated_idx')
      .on(table.confirmedAt)
      .where(sql`${table.confirmedAt} is not null and ${table.confirmationRate} is null`),
  ],
);
