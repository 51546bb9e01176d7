import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { canonicalAmount, fiatDecimals, roundUpForWallets, walletDecimals } from './amounts.ts';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? `${error.code}:${error.param}` : 'other';
  }
  return undefined;
}

describe('canonicalAmount', () => {
  it('keeps exact decimals and canonicalises them', () => {
    expect(canonicalAmount('19.99', 2, 'USD')).toBe('19.99');
    expect(canonicalAmount('19.90', 2, 'USD')).toBe('19.9');
    expect(canonicalAmount(19.99, 2, 'USD')).toBe('19.99');
    expect(canonicalAmount('0.00000001', 8, 'BTC')).toBe('0.00000001');
    expect(canonicalAmount('999999999999.99', 2, 'USD')).toBe('999999999999.99');
  });

  it.each([
    ['0', 'zero'],
    ['0.00', 'zero'],
    ['-1', 'negative'],
    [-5, 'negative number'],
    ['abc', 'non-numeric'],
    ['1e3', 'exponent'],
    [1e21, 'huge number'],
    ['', 'empty'],
    [' 1', 'space'],
    ['1.999', 'too precise for USD'],
    ['1000000000000', 'absurdly large'],
    [0.1 + 0.2, 'float noise'],
    [Number.NaN, 'NaN'],
  ])('refuses %s (%s)', (input, _why) => {
    expect(code(() => canonicalAmount(input as string | number, 2, 'USD'))).toBe('parameter_invalid:amount');
  });

  it('knows fiat precision', () => {
    expect(fiatDecimals('USD')).toBe(2);
    expect(fiatDecimals('JPY')).toBe(0);
    expect(fiatDecimals('KWD')).toBe(3);
    expect(fiatDecimals('usd')).toBeUndefined();
    expect(fiatDecimals('XYZW')).toBeUndefined();
  });
});

describe('amounts wallets show', () => {
  const eth = { code: 'ETH', decimals: 18 };
  const btc = { code: 'BTC', decimals: 8 };
  const usdcOnBsc = { code: 'USDC', decimals: 18 };
  const trx = { code: 'TRX', decimals: 6 };

  it('rounds a converted amount up to six decimals, or eight for BTC and LTC', () => {
    expect(walletDecimals(eth)).toBe(6);
    expect(walletDecimals(btc)).toBe(8);
    expect(walletDecimals({ code: 'LTC', decimals: 8 })).toBe(8);
    expect(walletDecimals(trx)).toBe(6);
    // 25 USD at 3000 USD/ETH = 0.008333… ETH: shown and expected as 0.008334.
    expect(roundUpForWallets(8_333_333_333_333_334n, eth)).toBe(8_334_000_000_000_000n);
    expect(roundUpForWallets(8_334_000_000_000_000n, eth)).toBe(8_334_000_000_000_000n);
    expect(roundUpForWallets(1n, usdcOnBsc)).toBe(1_000_000_000_000n);
    expect(roundUpForWallets(12_345n, btc)).toBe(12_345n);
    expect(roundUpForWallets(0n, eth)).toBe(0n);
  });
});
