import { describe, expect, it } from 'vitest';
import { coinsToBaseUnits, parseJsonKeepingDecimals } from './json.ts';

describe('parseJsonKeepingDecimals', () => {
  it('keeps decimal numbers as their exact text and leaves integers, strings and hex alone', () => {
    const text =
      '{"result":{"height":101,"tx":[{"txid":"0123456789.5e3","vout":[{"value":0.30000000,"n":0,' +
      '"scriptPubKey":{"hex":"0014ab"}},{"value":21000000.12345678,"n":1},{"value":1e-8,"n":2}]}],' +
      '"difficulty":4.656542373906925e-10,"neg":-0.5,"ok":true,"none":null,"esc":"a\\"1.5"},"error":null}';
    expect(parseJsonKeepingDecimals(text)).toEqual({
      result: {
        height: 101,
        tx: [
          {
            txid: '0123456789.5e3',
            vout: [
              { value: '0.30000000', n: 0, scriptPubKey: { hex: '0014ab' } },
              { value: '21000000.12345678', n: 1 },
              { value: '1e-8', n: 2 },
            ],
          },
        ],
        difficulty: '4.656542373906925e-10',
        neg: '-0.5',
        ok: true,
        none: null,
        esc: 'a"1.5',
      },
      error: null,
    });
  });

  it('tells an escaped quote from a quote after an escaped backslash', () => {
    // "a\\" ends after the two backslashes; "b\\\"2.5" holds an escaped quote and goes on.
    const text = '{"x":"a\\\\","y":2.50,"z":"b\\\\\\"2.5","w":[1,-3E2]}';
    expect(parseJsonKeepingDecimals(text)).toEqual({ x: 'a\\', y: '2.50', z: 'b\\"2.5', w: [1, '-3E2'] });
    expect(parseJsonKeepingDecimals('[1,2,3]')).toEqual([1, 2, 3]);
    expect(() => parseJsonKeepingDecimals('{"open":"no end')).toThrow(SyntaxError);
  });
});

describe('coinsToBaseUnits', () => {
  it.each([
    ['0.30000000', 30_000_000n],
    ['0.1', 10_000_000n],
    ['21000000.12345678', 2_100_000_012_345_678n],
    ['0.00000001', 1n],
    ['1e-8', 1n],
    ['1.5E+2', 15_000_000_000n],
    ['-0.00010000', -10_000n],
    ['0', 0n],
  ])('%s coins is %s base units', (coins, units) => {
    expect(coinsToBaseUnits(coins)).toBe(units);
  });

  it('takes integer numbers, refuses floats, too many decimals and junk', () => {
    expect(coinsToBaseUnits(50)).toBe(5_000_000_000n);
    expect(() => coinsToBaseUnits(0.1)).toThrow(/float/);
    expect(() => coinsToBaseUnits('0.000000001')).toThrow(/decimals/);
    expect(() => coinsToBaseUnits('1e-9')).toThrow(/decimals/);
    expect(() => coinsToBaseUnits('0x10')).toThrow(/not a decimal/);
    expect(() => coinsToBaseUnits('')).toThrow(/not a decimal/);
    expect(() => coinsToBaseUnits('1e999999999')).toThrow(/out of range/);
  });

  it('is exact where floats are not', () => {
    // 0.1 + 0.2 in floats is 0.30000000000000004; in base units it is exact.
    expect(coinsToBaseUnits('0.1') + coinsToBaseUnits('0.2')).toBe(coinsToBaseUnits('0.3'));
  });
});

describe('parseJsonKeepingDecimals with numbers JSON does not allow', () => {
  it('leaves them for JSON.parse to refuse instead of quoting them', () => {
    for (const bad of ['1.', '0.5e', '1e+', '-.5', '1.2.3', '1-2', '01.5', '--1.5']) {
      expect(() => parseJsonKeepingDecimals(`{"value":${bad}}`), bad).toThrow(SyntaxError);
    }
  });
});
