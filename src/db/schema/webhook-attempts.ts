import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { webhookDeliveries } from './webhook-deliveries.ts';

/** Every attempt of a delivery: when, how long, what the endpoint answered (first 2 KB) or what went wrong. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    statusCode: integer('status_code'),
    success: boolean('success').notNull(),
    responseBody: text('response_body'),
    error: text('error'),
  },
  (table) => [
    index('webhook_attempts_delivery_idx').on(table.deliveryId, table.attempt),
    // Retention clears the oldest stored bodies first; attempts whose body is gone drop out of the index.
    index('webhook_attempts_body_idx').on(table.startedAt).where(sql`response_body is not null`),
  ],
);
