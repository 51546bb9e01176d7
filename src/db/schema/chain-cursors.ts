import { bigint, boolean, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/** How far the watcher of one chain and mode has scanned: the last block whose deposits are recorded. */
export const chainCursors = pgTable(
  'chain_cursors',
  {
    chain: text('chain').notNull(),
    isTest: boolean('is_test').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    blockHash: text('block_hash').notNull(),
    blockTime: timestamp('block_time', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.isTest] })],
);
