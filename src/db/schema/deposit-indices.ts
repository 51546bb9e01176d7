import { bigint, boolean, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * The next HD derivation index per index space (`indexSpace(chain)`: all EVM chains share one) and mode.
 *
 * A counter row, taken a batch at a time (payments/address-pool.ts) in a statement of its own, never inside a payment's
 * transaction: its row lock lasts one UPDATE, once per batch, so creations do not queue behind each other's commits.
 *
 * Not a sequence: PostgreSQL logs a sequence 32 values ahead of its last nextval, and a crash of the server (on the
 * embedded default, a crash of the program, whose thread runs the engine) resumes it from there: up to 32 indices
 * skipped on top of a lost batch, past the 20-address gap limit with which wallets restore a seed. A row is exact:
 * it holds what committed batches took, and a crash loses at most the batch in the dead process's memory.
 */
export const depositIndexNext = pgTable(
  'deposit_index_next',
  {
    indexSpace: text('index_space').notNull(),
    isTest: boolean('is_test').notNull(),
    /** The first index no batch has taken yet. */
    nextIndex: bigint('next_index', { mode: 'number' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.indexSpace, table.isTest] })],
);

export const depositIndexSpaces = ['evm', 'bitcoin', 'litecoin', 'solana', 'tron'] as const;

/**
 * The last index a deposit may have. BIP-32 non-hardened (and Solana's hardened) child indices stop at 2^31 - 1; the
 * two last are the operator's wallets, never a deposit address: 2^31 - 1 the gas wallet / fee payer / Tron fee key,
 * 2^31 - 2 the EVM refund wallet (chains/evm/adapter.ts, EVM_REFUND_WALLET_INDEX).
 */
export const LAST_DEPOSIT_INDEX = 2_147_483_645;
