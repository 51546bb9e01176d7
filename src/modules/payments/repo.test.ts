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

  it('hands out consecutive indices from 0, with no gap between batches, each mode its own', async () => {
    const repo = createPaymentsRepo(database.db);
    expect(await repo.allocateDerivationIndices(database.db, 'tron', false, 3)).toEqual([0, 1, 2]);
    expect(await repo.allocateDerivationIndices(database.db, 'tron', false, 2)).toEqual([3, 4]);
    expect(await repo.allocateDerivationIndices(database.db, 'tron', true, 1)).toEqual([0]);
  });
});
