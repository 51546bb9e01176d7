import { boolean, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/** Where a merchant's final funds are forwarded, per mode and chain. */
export const payoutWallets = pgTable(
  'payout_wallets',
  {
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    chain: text('chain').notNull(),
    address: text('address').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.merchantId, table.isTest, table.chain] })],
);
