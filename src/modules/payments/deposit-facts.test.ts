import { describe, expect, it } from 'vitest';
import { seenOfDeposits } from './deposit-facts.ts';

const deposit = (state: string, blockNumber: number) => ({ state, blockNumber });

describe('confirmations seen from a payment’s deposits', () => {
  it('counts from the newest unfinal deposit, capped at what is required, and all once one is final', () => {
    expect(seenOfDeposits('confirming', [deposit('seen', 100), deposit('seen', 103)], 104, 12)).toBe(2);
    expect(seenOfDeposits('confirming', [deposit('seen', 100)], 140, 12)).toBe(12);
    expect(seenOfDeposits('confirming', [deposit('seen', 100)], 99, 12)).toBe(0);
    expect(seenOfDeposits('completed', [deposit('final', 100)], undefined, 12)).toBe(12);
    expect(seenOfDeposits('confirming', [deposit('final', 90), deposit('seen', 100)], 101, 12)).toBe(2);
  });

  it('shows none while pending, without deposits, in the mempool, or when all were reverted', () => {
    expect(seenOfDeposits('pending', [deposit('final', 100)], 120, 12)).toBe(0);
    expect(seenOfDeposits('expired', [], 120, 12)).toBe(0);
    expect(seenOfDeposits('confirming', [deposit('mempool', 0)], 120, 12)).toBe(0);
    expect(seenOfDeposits('underpaid', [deposit('reverted', 100)], 120, 12)).toBe(0);
  });
});
