import { bigint, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * TEST MODE ONLY: the blocks of the built-in simulated chains (one per chain id), the stand-in for a real chain in
 * test mode. Kept in the database so the simulation survives restarts and is shared by every process.
 */
export const simBlocks = pgTable(
  'sim_blocks',
  {
    chain: text('chain').notNull(),
    number: bigint('number', { mode: 'number' }).notNull(),
    hash: text('hash').notNull(),
    parentHash: text('parent_hash').notNull(),
    timestamp: timestamp('timestamp', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.chain, table.number] })],
);
