import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/support/harness.ts';
import type { Database } from '../../db/client.ts';
import { depositIndexSpaces } from '../../db/schema/index.ts';
import { chains, indexSpace } from '../chains/registry.ts';
import { createPaymentsRepo } from './repo.ts';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

describe('derivation index allocation', () => {
  it('has a counter for the index space of every chain', () => {
    for (const chain of chains) expect(depositIndexSpaces).toContain(indexSpace(chain.id));
  });

  it('hands out distinct indices under concurrency, per space and mode', async () => {
    const repo = createPaymentsRepo(database.db);
    const batches = await Promise.all(
      Array.from({ length: 40 }, () => repo.allocateDerivationIndices(database.db, 'solana', true, 3)),
    );
    const taken = batches.flat();
    expect(taken).toHaveLength(120);
    expect(new Set(taken).size).toBe(120);
    for (const index of taken) expect(Number.isSafeInteger(index) && index >= 0).toBe(true);
    await expect(repo.allocateDerivationIndices(database.db, 'dogecoin', true, 1)).rejects.toThrow();
  });

  it('hands out consecutive indices, with no gap between batches, each mode its own', async () => {
    // Tron live: no test allocates there but this one (the database may be shared with other test files).
    const repo = createPaymentsRepo(database.db);
    const first = await repo.allocateDerivationIndices(database.db, 'tron', false, 3);
    expect(first).toEqual([first[0], (first[0] ?? 0) + 1, (first[0] ?? 0) + 2]);
    expect(await repo.allocateDerivationIndices(database.db, 'tron', false, 2)).toEqual([
      (first[0] ?? 0) + 3,
      (first[0] ?? 0) + 4,
    ]);
  });

  it('stops below 2^31 - 2 and 2^31 - 1, the indices of the EVM refund and gas wallets', async () => {
    const repo = createPaymentsRepo(database.db);
    class Undo extends Error {}
    // In a transaction rolled back at the end, so the counter is as it was for everyone else.
    const outcome = database.db.transaction(async (tx) => {
      await tx.execute(
        sql`update deposit_index_next set next_index = 2147483644 where index_space = 'solana' and not is_test`,
      );
      expect(await repo.allocateDerivationIndices(tx, 'solana', false, 2)).toEqual([2147483644, 2147483645]);
      await expect(repo.allocateDerivationIndices(tx, 'solana', false, 1)).rejects.toThrow(/used up/);
      throw new Undo();
    });
    await expect(outcome).rejects.toBeInstanceOf(Undo);
  });
});
