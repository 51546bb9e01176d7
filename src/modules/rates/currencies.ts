/**
 * What pricing knows about: the asset codes of the chain registry (with each price source's name for them) and the
 * fiat currencies a payment may be denominated in. Every value of a currency is expressed in US dollars (USD per one
 * unit); a rate between two currencies is the quotient of their USD values.
 */

export interface PricedAsset {
  code: string;
  /** Pegged assets are worth exactly one unit of this fiat currency and are never fetched. */
  peggedTo?: 'USD';
  /** Kraken's base asset name in a pair (Kraken calls bitcoin XBT). */
  kraken?: string;
  /** CoinGecko's coin id. */
  coingecko?: string;
}

const pricedAssets: readonly PricedAsset[] = [
  { code: 'BTC', kraken: 'XBT', coingecko: 'bitcoin' },
  { code: 'ETH', kraken: 'ETH', coingecko: 'ethereum' },
  { code: 'SOL', kraken: 'SOL', coingecko: 'solana' },
  { code: 'POL', kraken: 'POL', coingecko: 'polygon-ecosystem-token' },
  { code: 'BNB', kraken: 'BNB', coingecko: 'binancecoin' },
  { code: 'LTC', kraken: 'LTC', coingecko: 'litecoin' },
  { code: 'TRX', kraken: 'TRX', coingecko: 'tron' },
  { code: 'USDC', peggedTo: 'USD' },
  { code: 'USDT', peggedTo: 'USD' },
];

const assetsByCode = new Map(pricedAssets.map((asset) => [asset.code, asset]));

export function getPricedAsset(code: string): PricedAsset | undefined {
  return assetsByCode.get(code);
}

/**
 * Fiat currencies accepted as a payment's `currency`: the ones CoinGecko quotes (so at least two sources, CoinGecko
 * and Coinbase, price each of them), with an approximate USD value used as the test-mode default.
 */
export const fiatTestDefaults: Readonly<Record<string, string>> = {
  USD: '1',
  EUR: '1.08',
  GBP: '1.27',
  JPY: '0.0067',
  CAD: '0.73',
  AUD: '0.66',
  CHF: '1.12',
  CNY: '0.14',
  HKD: '0.128',
  SGD: '0.74',
  NZD: '0.6',
  SEK: '0.095',
  NOK: '0.093',
  DKK: '0.145',
  PLN: '0.25',
  CZK: '0.043',
  HUF: '0.0027',
  TRY: '0.03',
  ZAR: '0.054',
  INR: '0.012',
  IDR: '0.000062',
  KRW: '0.00073',
  THB: '0.028',
  MYR: '0.22',
  PHP: '0.017',
  VND: '0.00004',
  TWD: '0.031',
  BRL: '0.18',
  MXN: '0.055',
  ARS: '0.001',
  CLP: '0.0011',
  AED: '0.2723',
  SAR: '0.2667',
  ILS: '0.27',
  KWD: '3.25',
  BHD: '2.65',
  BDT: '0.0083',
  PKR: '0.0036',
  LKR: '0.0033',
  NGN: '0.00065',
  UAH: '0.024',
  GEL: '0.37',
  RUB: '0.011',
  MMK: '0.00048',
};

const fiatCodes: ReadonlySet<string> = new Set(Object.keys(fiatTestDefaults));

/** USD value of each non-pegged asset in test mode unless SVC_TEST_RATES says otherwise. */
export const assetTestDefaults: Readonly<Record<string, string>> = {
  BTC: '60000',
  ETH: '3000',
  SOL: '150',
  POL: '0.5',
  BNB: '600',
  LTC: '80',
  TRX: '0.12',
};

/** Codes whose USD value is fixed by definition and cannot be configured: USD itself and the stablecoins. */
export function isFixedAtOneUsd(code: string): boolean {
  return code === 'USD' || getPricedAsset(code)?.peggedTo === 'USD';
}

export function isKnownCurrency(code: string): boolean {
  return fiatCodes.has(code) || assetsByCode.has(code);
}
