import { numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { forwards } from './forwards.ts';

/**
 * Earlier signed versions of a forward's transaction, replaced by a higher fee (BIP125) while stuck in the mempool. The
 * forward's own row holds the version counted; every other version ever signed is kept here, because any one of them
 * may be the one that reaches a block: the forwarder asks the chain about each, and when an earlier version is mined it
 * becomes the forward's version (its hash and fee) and the later ones come here. Exactly one of them is counted.
 */
export const forwardVersions = pgTable(
  'forward_versions',
  {
    forwardId: text('forward_id')
      .notNull()
      .references(() => forwards.id),
    txHash: text('tx_hash').notNull(),
    rawTx: text('raw_tx').notNull(),
    /** Base units of the chain's native coin this version pays as its fee. */
    fee: numeric('fee', { precision: 78, scale: 0 }).notNull(),
    /** Base units of `asset` this version pays to the payout wallet. */
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** When it stopped being the forward's current version. */
    replacedAt: timestamp('replaced_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.forwardId, table.txHash] })],
);
