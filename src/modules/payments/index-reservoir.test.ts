import { describe, expect, it } from 'vitest';
import { createIndexReservoir } from './index-reservoir.ts';

describe('derivation index reservoir', () => {
  it('hands out every fetched index once, fetching in batches, one fetch at a time per space', async () => {
    let next = 0;
    const fetches: Array<{ space: string; isTest: boolean; count: number }> = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const reservoir = createIndexReservoir(async (space, isTest, count) => {
      fetches.push({ space, isTest, count });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return Array.from({ length: count }, () => next++);
    }, 4);
    const taken = await Promise.all(Array.from({ length: 25 }, () => reservoir.take('evm', true)));
    expect(new Set(taken).size).toBe(25);
    expect(fetches).toHaveLength(7);
    expect(maxInFlight).toBe(1);
    expect(fetches.every((f) => f.space === 'evm' && f.isTest && f.count === 4)).toBe(true);
    // Spaces and modes have their own queues.
    await reservoir.take('evm', false);
    expect(fetches.at(-1)).toMatchObject({ space: 'evm', isTest: false });
  });

  it('passes a failed fetch on to the caller and tries again next time', async () => {
    let fail = true;
    const reservoir = createIndexReservoir(async () => {
      if (fail) throw new Error('database down');
      return [7];
    }, 1);
    await expect(reservoir.take('tron', true)).rejects.toThrow('database down');
    fail = false;
    await expect(reservoir.take('tron', true)).resolves.toBe(7);
  });
});
