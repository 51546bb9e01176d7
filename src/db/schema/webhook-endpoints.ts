import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    enabled: boolean('enabled').notNull().default(true),
    /** AES-256-GCM sealed signing secret (see lib/crypto.ts). */
    secretSealed: text('secret_sealed').notNull(),
    /** The secret before the last rotation; it keeps signing until `previousSecretExpiresAt`. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    /** Failed attempts in a row (reset by a success): the circuit breaker's count. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** When the breaker tripped (consecutive failures reached the threshold); null while healthy. */
    trippedAt: timestamp('tripped_at', { withTimezone: true, mode: 'date' }),
    /** While tripped: when the next single probe may be sent; the endpoint's other deliveries wait until then. */
    nextProbeAt: timestamp('next_probe_at', { withTimezone: true, mode: 'date' }),
    /** When the merchant was mailed that this endpoint has been failing for an hour (once per trip of the breaker). */
    failingNoticedAt: timestamp('failing_noticed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('webhook_endpoints_merchant_idx').on(table.merchantId, table.isTest, table.createdAt)],
);
