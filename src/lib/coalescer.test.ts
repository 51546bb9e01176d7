import { describe, expect, it } from 'vitest';
import { createCoalescer } from './coalescer.ts';

/** A batch operation whose calls stay open until the test lets them finish. */
function controlledRun(fail: (batch: number[]) => boolean = () => false) {
  const calls: Array<{ batch: number[]; finish(): void }> = [];
  const run = (batch: number[]) =>
    new Promise<void>((resolve, reject) => {
      calls.push({
        batch: [...batch],
        finish: () => (fail(batch) ? reject(new Error(`batch ${batch.join(',')} failed`)) : resolve()),
      });
    });
  return { calls, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createCoalescer', () => {
  it('sends an item at once while there is room, and what arrives meanwhile together next', async () => {
    const { calls, run } = controlledRun();
    const coalescer = createCoalescer({ run, maxInFlight: 2, maxBatch: 3 });
    const done: number[] = [];
    const add = (item: number) => coalescer.add(item).then(() => done.push(item));
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map(add);
    expect(calls.map((call) => call.batch)).toEqual([[1], [2]]);
    calls[0]?.finish();
    await settle();
    expect(calls.map((call) => call.batch)).toEqual([[1], [2], [3, 4, 5]]);
    expect(done).toEqual([1]);
    calls[1]?.finish();
    await settle();
    expect(calls.map((call) => call.batch)).toEqual([[1], [2], [3, 4, 5], [6, 7, 8]]);
    for (const call of calls.slice(2)) call.finish();
    await Promise.all(all);
    expect(done.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('fails only the caller of a bad item: a failed batch is tried again item by item', async () => {
    const { calls, run } = controlledRun((batch) => batch.includes(13));
    const coalescer = createCoalescer({ run, maxInFlight: 1, maxBatch: 10 });
    const outcomes = new Map<number, string>();
    const add = (item: number) =>
      coalescer.add(item).then(
        () => outcomes.set(item, 'ok'),
        (error: Error) => outcomes.set(item, error.message),
      );
    const all = [11, 12, 13, 14].map(add);
    calls[0]?.finish(); // [11]
    await settle();
    calls[1]?.finish(); // [12, 13, 14] fails, then each alone
    for (let round = 0; round < 5; round++) {
      await settle();
      for (const call of calls.slice(2)) call.finish();
    }
    await Promise.all(all);
    expect(calls.map((call) => call.batch)).toEqual([[11], [12, 13, 14], [12], [13], [14]]);
    expect(Object.fromEntries(outcomes)).toEqual({ 11: 'ok', 12: 'ok', 13: 'batch 13 failed', 14: 'ok' });
  });

  it('refuses limits below one', () => {
    expect(() => createCoalescer({ run: async () => {}, maxInFlight: 0, maxBatch: 1 })).toThrow(RangeError);
  });
});
