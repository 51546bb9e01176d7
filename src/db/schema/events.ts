import { sql } from 'drizzle-orm';
import { bigint, boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
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
    /**
     * The event's place in the live event stream (GET /v1/events/stream), given after its transaction committed by
     * the one sequencer at a time (webhooks/events/stream-sequencer.ts), so positions grow in commit order and a
     * stream resumed after one never skips an event that committed late. Null: committed, not yet sequenced (or a
     * sample, never streamed); 0: written before streams existed.
     */
    streamSeq: bigint('stream_seq', { mode: 'number' }),
  },
  (table) => [
    index('events_merchant_idx').on(table.merchantId, table.isTest, table.createdAt, table.id),
    index('events_payment_idx').on(table.merchantId, table.paymentId),
    // Retention deletes the oldest first, a batch at a time.
    index('events_created_idx').on(table.createdAt),
    // A stream reads its merchant and mode after its position; the sequencer finds what awaits a position.
    index('events_stream_idx').on(table.merchantId, table.isTest, table.streamSeq),
    index('events_unsequenced_idx')
      .on(table.createdAt, table.id)
      .where(sql`${table.streamSeq} is null and not ${table.sample}`),
  ],
);
