import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** A request made with an Idempotency-Key, and the response it got, replayed for the same key and body. */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    merchantId: text('merchant_id').notNull(),
    isTest: boolean('is_test').notNull(),
    key: text('key').notNull(),
    requestHash: text('request_hash').notNull(),
    responseStatus: integer('response_status').notNull(),
    responseBody: jsonb('response_body').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.merchantId, table.isTest, table.key] }),
    // Retention deletes the oldest first, a batch at a time.
    index('idempotency_keys_created_idx').on(table.createdAt),
  ],
);
