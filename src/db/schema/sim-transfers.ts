import { bigint, index, integer, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * TEST MODE ONLY: transfers on the simulated chains. `block_number` is null while the transfer waits in the
 * simulated mempool; the block producer puts it in the next block. `kind` is `deposit` (a simulated payer) or
 * `forward`/`refund` (the service's own forwarding or refund transaction, broadcast idempotently: the primary key is its hash).
 */
export const simTransfers = pgTable(
  'sim_transfers',
  {
    chain: text('chain').notNull(),
    txHash: text('tx_hash').notNull(),
    outputIndex: integer('output_index').notNull(),
    kind: text('kind').notNull(),
    toAddress: text('to_address').notNull(),
    /** The sending address of a refund (`kind` refund), so the simulated balance of a deposit address is known. */
    fromAddress: text('from_address'),
    asset: text('asset').notNull(),
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.chain, table.txHash, table.outputIndex] }),
    index('sim_transfers_block_idx').on(table.chain, table.blockNumber),
  ],
);
