import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * The audit trail of payout wallets: one row per chain whose address a change set, replaced or removed, written in
 * the same transaction as the change and its `payout_wallet.updated` event. Never updated or deleted.
 */
export const payoutWalletChanges = pgTable(
  'payout_wallet_changes',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    chain: text('chain').notNull(),
    /** Null when the chain had no payout wallet before. */
    oldAddress: text('old_address'),
    /** Null when the change removed the chain's payout wallet. */
    newAddress: text('new_address'),
    /** Who made the change, as shown to the merchant (the dashboard session's account email). */
    actor: text('actor').notNull(),
    /** The client IP of the request, as the HTTP edge saw it (SVC_TRUST_PROXY decides whether a proxy's header counts). */
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('payout_wallet_changes_merchant_idx').on(table.merchantId, table.createdAt)],
);
