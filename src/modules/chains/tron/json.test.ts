import { describe, expect, it } from 'vitest';
import { parseJsonExactIntegers, sunNumber, units } from './json.ts';

describe('tron json', () => {
  it('keeps integers above 2^53 exact and leaves small ones as numbers', () => {
    const text =
      '{"a":123,"big":18446744073709551615,"neg":-9007199254740993,"s":"12345678901234567890","t":1.5}';
    const parsed = parseJsonExactIntegers(text) as Record<string, unknown>;
    expect(parsed.a).toBe(123);
    expect(parsed.big).toBe('18446744073709551615');
    expect(units(parsed.big)).toBe(18_446_744_073_709_551_615n);
    expect(units(parsed.neg)).toBe(-9_007_199_254_740_993n);
    expect(parsed.s).toBe('12345678901234567890');
    expect(parsed.t).toBe(1.5);
  });

  it('skips escaped quotes inside strings', () => {
    const parsed = parseJsonExactIntegers(
      '{"m":"x\\"12345678901234567890","n":12345678901234567890}',
    ) as Record<string, unknown>;
    expect(parsed.m).toBe('x"12345678901234567890');
    expect(parsed.n).toBe('12345678901234567890');
  });

  it('units: absent is zero, floats are refused', () => {
    expect(units(undefined)).toBe(0n);
    expect(() => units(1.5)).toThrow(/exact integer/);
    expect(() => units('1e3')).toThrow(/integer amount/);
  });

  it('writes sun amounts as JSON numbers only while they are exact', () => {
    expect(sunNumber(9_007_199_254_740_991n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(sunNumber(0n)).toBe(0);
    expect(() => sunNumber(9_007_199_254_740_992n)).toThrow(/cannot be written exactly/);
    expect(() => sunNumber(-1n)).toThrow(/cannot be written exactly/);
  });
});
