import { describe, expect, it } from 'vitest';
import { convertToBaseUnits, fractionDigits, fromBaseUnits, MoneyFormatError, toBaseUnits } from './money.ts';

describe('money', () => {
  it('parses decimals into base units exactly', () => {
    expect(toBaseUnits('1', 18)).toBe(10n ** 18n);
    expect(toBaseUnits('0.1', 18)).toBe(10n ** 17n);
    expect(toBaseUnits('123456789.123456789123456789', 18)).toBe(123456789123456789123456789n);
    expect(toBaseUnits('0.00000001', 8)).toBe(1n);
    expect(toBaseUnits('1.500', 2)).toBe(150n);
  });

  it('refuses too many decimals and non-decimals', () => {
    expect(() => toBaseUnits('0.000000001', 8)).toThrow(MoneyFormatError);
    expect(() => toBaseUnits('1e5', 8)).toThrow(MoneyFormatError);
    expect(() => toBaseUnits('-1', 8)).toThrow(MoneyFormatError);
    expect(() => toBaseUnits('01', 8)).toThrow(MoneyFormatError);
    expect(() => toBaseUnits('', 8)).toThrow(MoneyFormatError);
  });

  it('formats base units as the shortest exact decimal', () => {
    expect(fromBaseUnits(10n ** 18n, 18)).toBe('1');
    expect(fromBaseUnits(1n, 18)).toBe('0.000000000000000001');
    expect(fromBaseUnits(150n, 2)).toBe('1.5');
    expect(fromBaseUnits(0n, 6)).toBe('0');
    expect(fromBaseUnits(-5n, 1)).toBe('-0.5');
  });

  it('round-trips', () => {
    for (const value of ['0', '1', '0.1', '99999999999.999999', '42.000001']) {
      expect(fromBaseUnits(toBaseUnits(value, 6), 6)).toBe(value);
    }
  });

  it('counts significant fraction digits', () => {
    expect(fractionDigits('1.10')).toBe(1);
    expect(fractionDigits('5')).toBe(0);
  });

  it('converts with a rate and rounds up', () => {
    // 100 USD at 3000 USD/ETH = 0.0333… ETH, rounded up to wei.
    expect(convertToBaseUnits('100', '3000', 18)).toBe(33333333333333334n);
    // 10 USD at 1 USD/USDC = exactly 10 USDC.
    expect(convertToBaseUnits('10', '1', 6)).toBe(10_000_000n);
    // 0.1 + 0.2 style float traps do not exist here.
    expect(convertToBaseUnits('0.3', '0.1', 0)).toBe(3n);
  });
});
