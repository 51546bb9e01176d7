import { boolean, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * The next HD derivation index per index space (`indexSpace(chain)`: all EVM chains share one) and mode. Incremented in the payment's own transaction, so indices stay
 * dense (a wallet restoring from the seed finds every address within its gap limit) and are never shared.
 */
export const depositIndexCounters = pgTable(
  'deposit_index_counters',
  {
    indexSpace: text('index_space').notNull(),
    isTest: boolean('is_test').notNull(),
    nextIndex: integer('next_index').notNull(),
  },
  (table) => [primaryKey({ columns: [table.indexSpace, table.isTest] })],
);
