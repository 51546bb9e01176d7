import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { events } from './events.ts';
import { merchants } from './merchants.ts';
import { webhookEndpoints } from './webhook-endpoints.ts';

/**
 * One event on its way to one endpoint. Workers claim due rows (`status = 'pending'` and `next_attempt_at <= now`)
 * with FOR UPDATE SKIP LOCKED; a claim moves `next_attempt_at` to the end of its lease and sets `lease_token`, so
 * the claims of a worker that dies come due again when the lease runs out.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    /** pending | succeeded | failed | canceled (the endpoint was disabled or deleted). */
    status: text('status').notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Set while a worker holds the delivery; results are written only under the same token. */
    leaseToken: text('lease_token'),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    /** The delivery this one repeats (`redeliver`, `redeliver-failed`). */
    redeliveryOf: text('redelivery_of'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [
    index('webhook_deliveries_due_idx').on(table.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(table.endpointId, table.createdAt, table.id),
    index('webhook_deliveries_event_idx').on(table.eventId),
    index('webhook_deliveries_redelivery_idx').on(table.redeliveryOf).where(sql`redelivery_of is not null`),
  ],
);
