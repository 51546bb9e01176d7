import { pgSequence } from 'drizzle-orm/pg-core';

/**
 * The next HD derivation index per index space (`indexSpace(chain)`: all EVM chains share one) and mode.
 *
 * Sequences rather than a counter row: a counter row is locked from its increment until the payment's transaction
 * commits, which serialises every creation on a chain behind one commit at a time (measured: ~200 payments/s under
 * 100 connections). `nextval` holds no lock. It is called inside the payment's transaction; a rolled-back creation
 * leaves one unused index behind (never a shared one), far inside a restoring wallet's gap limit.
 */
// BIP-32 non-hardened (and Solana's hardened) child indices stop at 2^31 - 1.
const options = { startWith: 0, minValue: 0, maxValue: 2_147_483_647 } as const;

export const depositIndexEvmTest = pgSequence('deposit_index_evm_test', options);
export const depositIndexEvmLive = pgSequence('deposit_index_evm_live', options);
export const depositIndexBitcoinTest = pgSequence('deposit_index_bitcoin_test', options);
export const depositIndexBitcoinLive = pgSequence('deposit_index_bitcoin_live', options);
export const depositIndexLitecoinTest = pgSequence('deposit_index_litecoin_test', options);
export const depositIndexLitecoinLive = pgSequence('deposit_index_litecoin_live', options);
export const depositIndexSolanaTest = pgSequence('deposit_index_solana_test', options);
export const depositIndexSolanaLive = pgSequence('deposit_index_solana_live', options);
export const depositIndexTronTest = pgSequence('deposit_index_tron_test', options);
export const depositIndexTronLive = pgSequence('deposit_index_tron_live', options);

export const depositIndexSpaces = ['evm', 'bitcoin', 'litecoin', 'solana', 'tron'] as const;
export type DepositIndexSpace = (typeof depositIndexSpaces)[number];

export function depositIndexSequenceName(space: DepositIndexSpace, isTest: boolean): string {
  return `deposit_index_${space}_${isTest ? 'test' : 'live'}`;
}
