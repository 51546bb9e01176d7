import { describe, expect, it } from 'vitest';
import {
  addRatios,
  compareRatios,
  convertToBaseUnits,
  divideRatios,
  fractionDigits,
  fromBaseUnits,
  MoneyFormatError,
  multiplyRatios,
  parseDecimalRatio,
  ratioToDecimal,
  reduceRatio,
  toBaseUnits,
} from './money.ts';

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

describe('exact ratios', () => {
  const dec = (text: string) => ratioToDecimal(parseDecimalRatio(text));

  it('parses decimal text with signs and exponents exactly', () => {
    expect(parseDecimalRatio('67012.35')).toEqual({ num: 1340247n, den: 20n });
    expect(parseDecimalRatio('1.2e-7')).toEqual({ num: 3n, den: 25000000n });
    expect(parseDecimalRatio('6.7E+4')).toEqual({ num: 67000n, den: 1n });
    expect(parseDecimalRatio('-0.50')).toEqual({ num: -1n, den: 2n });
    expect(parseDecimalRatio('0')).toEqual({ num: 0n, den: 1n });
    expect(dec('1.2e-7')).toBe('0.00000012');
    expect(dec('1e21')).toBe('1000000000000000000000');
    expect(dec('67012.350000')).toBe('67012.35');
  });

  it('refuses what is not a decimal number', () => {
    for (const bad of [
      '',
      'NaN',
      'Infinity',
      '1,5',
      '0x10',
      '1.',
      '.5',
      ' 1',
      '1e',
      '--1',
      '1e999999',
      '9'.repeat(500),
    ]) {
      expect(() => parseDecimalRatio(bad), bad).toThrow(MoneyFormatError);
    }
  });

  it('reduces, multiplies, divides, adds and compares exactly', () => {
    expect(reduceRatio({ num: 6n, den: -4n })).toEqual({ num: -3n, den: 2n });
    expect(() => reduceRatio({ num: 1n, den: 0n })).toThrow(RangeError);
    const a = parseDecimalRatio('0.1');
    const b = parseDecimalRatio('0.2');
    expect(ratioToDecimal(addRatios(a, b))).toBe('0.3');
    expect(ratioToDecimal(multiplyRatios(a, b))).toBe('0.02');
    expect(ratioToDecimal(divideRatios(parseDecimalRatio('60000'), parseDecimalRatio('3000')))).toBe('20');
    expect(() => divideRatios(a, { num: 0n, den: 1n })).toThrow(RangeError);
    expect(compareRatios(a, b)).toBe(-1);
    expect(compareRatios(b, a)).toBe(1);
    expect(compareRatios({ num: 2n, den: 4n }, { num: 1n, den: 2n })).toBe(0);
    expect(compareRatios({ num: -1n, den: 3n }, { num: 0n, den: 1n })).toBe(-1);
  });

  it('formats exactly when the value fits, else rounds half up to the significant digits asked', () => {
    expect(ratioToDecimal({ num: 1n, den: 3n })).toBe('0.333333333333333333333333');
    expect(ratioToDecimal({ num: 2n, den: 3n })).toBe('0.666666666666666666666667');
    expect(ratioToDecimal({ num: -2n, den: 3n }, 3)).toBe('-0.667');
    expect(ratioToDecimal({ num: 1n, den: 8n }, 1)).toBe('0.1');
    expect(ratioToDecimal({ num: 15n, den: 100n }, 1)).toBe('0.2');
    expect(ratioToDecimal({ num: 999n, den: 1n }, 2)).toBe('1000');
    expect(ratioToDecimal({ num: 123456n, den: 1n }, 3)).toBe('123000');
    expect(ratioToDecimal({ num: 99999n, den: 100000n }, 3)).toBe('1');
    expect(ratioToDecimal({ num: 1n, den: 10n ** 30n })).toBe(`0.${'0'.repeat(29)}1`);
    expect(ratioToDecimal(parseDecimalRatio('21.2992545260915868'))).toBe('21.2992545260915868');
    expect(ratioToDecimal({ num: 10n, den: 1n })).toBe('10');
    expect(ratioToDecimal({ num: 0n, den: 5n })).toBe('0');
    // Never scientific notation, never a float: the float 0.1 + 0.2 would print 0.30000000000000004.
    expect(ratioToDecimal(addRatios(parseDecimalRatio('1e-7'), parseDecimalRatio('2e-7')))).toBe('0.0000003');
    expect(() => ratioToDecimal({ num: 1n, den: 1n }, 0)).toThrow(RangeError);
  });
});
