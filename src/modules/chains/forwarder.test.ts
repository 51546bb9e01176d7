import { describe, expect, it } from 'vitest';
import { splitFee } from './forwarder.ts';

describe('splitFee', () => {
  it('shares a batch fee in proportion to what each payment put in, exactly', () => {
    const parts = splitFee(1000n, [
      { id: 'a', amount: 1n },
      { id: 'b', amount: 1n },
      { id: 'c', amount: 1n },
    ]);
    expect(parts).toEqual([
      { id: 'a', fee: 334n },
      { id: 'b', fee: 333n },
      { id: 'c', fee: 333n },
    ]);
    const weighted = splitFee(21_000n, [
      { id: 'a', amount: 5n },
      { id: 'b', amount: 7n },
    ]);
    expect(weighted.reduce((sum, part) => sum + part.fee, 0n)).toBe(21_000n);
    expect(weighted).toEqual([
      { id: 'a', fee: 8750n },
      { id: 'b', fee: 12_250n },
    ]);
  });

  it('puts the whole fee on the first when nothing was put in, and handles one payment', () => {
    expect(
      splitFee(7n, [
        { id: 'a', amount: 0n },
        { id: 'b', amount: 0n },
      ]),
    ).toEqual([
      { id: 'a', fee: 7n },
      { id: 'b', fee: 0n },
    ]);
    expect(splitFee(7n, [{ id: 'a', amount: 10n }])).toEqual([{ id: 'a', fee: 7n }]);
  });
});
