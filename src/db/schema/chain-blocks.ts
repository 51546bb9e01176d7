import { bigint, boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * The hashes of the recently scanned blocks of a chain and mode (the window that may still be reorganised), so the
 * watcher can find the common ancestor when a new block's parent hash does not match. Older rows are pruned.
 */
export const chainBlocks = pgTable(
  'chain_blocks',
  {
    chain: text('chain').notNull(),
    isTest: boolean('is_test').notNull(),
    number: bigint('number', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
    parentHash: text('parent_hash').notNull(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.isTest, table.number] })],
);
