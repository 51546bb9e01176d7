import { boolean, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

export const keypairs = pgTable(
  'keypairs',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [index('keypairs_merchant_idx').on(table.merchantId, table.createdAt)],
);

/** One row per key of a pair. Only the SHA-256 of a key is stored, with a display prefix and its last 4 characters. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    keypairId: text('keypair_id')
      .notNull()
      .references(() => keypairs.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    keyHash: text('key_hash').notNull(),
    displayPrefix: text('display_prefix').notNull(),
    last4: text('last4').notNull(),
  },
  (table) => [
    uniqueIndex('api_keys_hash_key').on(table.keyHash),
    index('api_keys_keypair_idx').on(table.keypairId),
  ],
);
