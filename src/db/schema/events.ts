import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * The outbox: one row per event, written in the same transaction as the change it reports. `body` is the exact
 * JSON text every delivery of the event sends, so each attempt carries identical bytes.
 */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    type: text('type').notNull(),
    /** The payment an event is about; null for events about the account (`payout_wallet.updated`). */
    paymentId: text('payment_id'),
    body: text('body').notNull(),
    /** A signed sample sent by `POST /v1/webhooks/{id}/test`; not listed among the merchant's events. */
    sample: boolean('sample').notNull().default(false),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('events_merchant_idx').on(table.merchantId, table.isTest, table.createdAt, table.id),
    index('events_payment_idx').on(table.merchantId, table.paymentId),
    // Retention deletes the oldest first, a batch at a time.
    index('events_created_idx').on(table.createdAt),
  ],
);
