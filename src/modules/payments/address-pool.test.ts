import { describe, expect, it } from 'vitest';
import { createAddressPool, GAP_LIMIT, LOW_WATER, RESERVOIR_SIZE } from './address-pool.ts';

const fakeAddress = (chain: string, isTest: boolean, index: number) => `${chain}:${isTest}:${index}`;

describe('deposit address pool', () => {
  it('never holds as many unused indices as the gap limit (what a process that dies leaves unused)', () => {
    expect(LOW_WATER + RESERVOIR_SIZE).toBeLessThan(GAP_LIMIT);
  });

  it('hands out every fetched index once with its address, one refill at a time per space, ahead of need', async () => {
    let next = 0;
    const fetches: Array<{ space: string; isTest: boolean; count: number }> = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const pool = createAddressPool({
      size: 6,
      fetchIndices: async (space, isTest, count) => {
        fetches.push({ space, isTest, count });
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return Array.from({ length: count }, () => next++);
      },
      deriveMany: async (chain, isTest, indices) => indices.map((index) => fakeAddress(chain, isTest, index)),
    });
    const taken = await Promise.all(Array.from({ length: 25 }, () => pool.take('ethereum', true)));
    expect(new Set(taken.map((t) => t.index)).size).toBe(25);
    for (const { index, address } of taken) expect(address).toBe(fakeAddress('ethereum', true, index));
    expect(maxInFlight).toBe(1);
    expect(fetches.every((f) => f.space === 'evm' && f.isTest && f.count === 6)).toBe(true);
    // Ahead of need: once few are left, the next batch is on its way without anyone waiting for it.
    const before = fetches.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fetches.length).toBeGreaterThanOrEqual(before);
    // All EVM chains draw from one space; modes and other spaces have their own.
    const base = await pool.take('base', true);
    expect(taken.map((t) => t.index)).not.toContain(base.index);
    await pool.take('ethereum', false);
    expect(fetches.at(-1)).toMatchObject({ space: 'evm', isTest: false });
    await pool.take('tron', true);
    expect(fetches.at(-1)).toMatchObject({ space: 'tron', isTest: true });
  });

  it('passes a failed fetch or derivation on to the caller and tries again next time', async () => {
    let failFetch = true;
    let failDerive = true;
    const pool = createAddressPool({
      size: 1,
      fetchIndices: async () => {
        if (failFetch) throw new Error('database down');
        return [7];
      },
      deriveMany: async (chain, isTest, indices) => {
        if (failDerive) throw new Error('no live seed');
        return indices.map((index) => fakeAddress(chain, isTest, index));
      },
    });
    await expect(pool.take('tron', true)).rejects.toThrow('database down');
    failFetch = false;
    await expect(pool.take('tron', true)).rejects.toThrow('no live seed');
    failDerive = false;
    await expect(pool.take('tron', true)).resolves.toEqual({
      index: 7,
      address: fakeAddress('tron', true, 7),
    });
  });

  it('derives the next range ahead of its reservation, and drops a guess that another process made wrong', async () => {
    let next = 0;
    const log: string[] = [];
    const pool = createAddressPool({
      size: 6,
      fetchIndices: async (_space, _isTest, count) => {
        const first = next;
        next += count;
        log.push(`reserve ${first}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return Array.from({ length: count }, (_, n) => first + n);
      },
      deriveMany: async (chain, isTest, indices) => {
        log.push(`derive ${indices[0]}-${indices.at(-1)}`);
        return indices.map((index) => fakeAddress(chain, isTest, index));
      },
    });
    const take = async (count: number) => {
      const taken = [];
      for (let n = 0; n < count; n++) taken.push(await pool.take('ethereum', true));
      return taken;
    };
    const first = await take(20);
    expect(first.map((t) => t.index)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    for (const { index, address } of first) expect(address).toBe(fakeAddress('ethereum', true, index));
    // Every range after the first was derived before it was reserved, and no index twice.
    const reserved = log.filter((line) => line.startsWith('reserve')).map((line) => Number(line.slice(8)));
    expect(reserved.length).toBeGreaterThanOrEqual(3);
    const derivedBefore = (at: number) =>
      log
        .slice(0, at)
        .filter((line) => line.startsWith('derive'))
        .map((line) => line.slice(7).split('-').map(Number) as [number, number]);
    for (const start of reserved.slice(1)) {
      const at = log.indexOf(`reserve ${start}`);
      expect(
        derivedBefore(at).some(([from, to]) => from <= start && start + 5 <= to),
        `${start} in ${log}`,
      ).toBe(true);
    }
    const derived = derivedBefore(log.length).flatMap(([from, to]) =>
      Array.from({ length: to - from + 1 }, (_, n) => from + n),
    );
    expect(new Set(derived).size).toBe(derived.length);

    // Another process reserves the next range: the guess for it is never handed out, and what this one reserved
    // instead is derived for what it is.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const skipped = next;
    next += 6;
    const rest = await take(12);
    const indices = rest.map((t) => t.index);
    expect(indices.filter((index) => index >= skipped && index < skipped + 6)).toEqual([]);
    expect(indices).toEqual([...indices].sort((a, b) => a - b));
    for (const { index, address } of rest) expect(address).toBe(fakeAddress('ethereum', true, index));
    expect(new Set([...first, ...rest].map((t) => t.index)).size).toBe(32);
  });
});
