import { isPlainDecimal, parseDecimalRatio } from '../../lib/money.ts';
import { assetTestDefaults, fiatTestDefaults, isFixedAtOneUsd, isKnownCurrency } from './currencies.ts';

/** USD value of one unit of each currency (asset or fiat code) in test mode, as decimal strings. */
export type TestRates = Readonly<Record<string, string>>;

/** The test-mode rates when SVC_TEST_RATES is unset: every asset of the registry and every supported fiat. */
export const defaultTestRates: TestRates = { ...fiatTestDefaults, ...assetTestDefaults };

/**
 * Parses SVC_TEST_RATES ("BTC=60000,ETH=3000,EUR=1.08": USD per one unit) over the defaults. Throws an Error whose
 * message says what is wrong (the config loader prefixes the variable's name).
 */
export function parseTestRates(text: string | undefined): TestRates {
  const rates: Record<string, string> = { ...defaultTestRates };
  if (text === undefined || text.trim() === '') return rates;
  for (const rawEntry of text.split(',')) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    const match = /^([A-Za-z]{2,10})\s*=\s*(\S+)$/.exec(entry);
    if (match === null) throw new Error(`"${entry}" is not CODE=VALUE (e.g. BTC=60000)`);
    const code = (match[1] ?? '').toUpperCase();
    const value = match[2] ?? '';
    if (!isKnownCurrency(code)) throw new Error(`unknown currency ${code}`);
    if (isFixedAtOneUsd(code)) throw new Error(`${code} is always worth 1 USD and cannot be set`);
    if (!isPlainDecimal(value) || parseDecimalRatio(value).num === 0n) {
      throw new Error(`${code} must be a positive decimal number of USD, got "${value}"`);
    }
    rates[code] = value;
  }
  return rates;
}

const rateSourceNames = ['coinbase', 'kraken', 'coingecko'] as const;
export type RateSourceName = (typeof rateSourceNames)[number];

/** Parses SVC_RATES_SOURCES ("coinbase,kraken,coingecko"): which public feeds live mode asks. */
export function parseSourceList(text: string): RateSourceName[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const known: readonly string[] = rateSourceNames;
  for (const name of names) {
    if (!known.includes(name))
      throw new Error(`unknown source "${name}" (known: ${rateSourceNames.join(', ')})`);
  }
  if (names.length === 0) throw new Error(`must name at least one of ${rateSourceNames.join(', ')}`);
  return [...new Set(names)] as RateSourceName[];
}
