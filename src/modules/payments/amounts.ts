import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits, isPlainDecimal, toBaseUnits } from '../../lib/money.ts';

/** The largest whole amount a payment may ask for in any currency; anything above is a typo or an attack. */
const MAX_WHOLE_DIGITS = 12;
/** A JSON number keeps what was typed only up to 15 significant digits; beyond that ask for a string. */
const MAX_NUMBER_SIGNIFICANT_DIGITS = 15;

const invalidAmount = (message: string) => new AppError('parameter_invalid', message, { param: 'amount' });

/**
 * Canonicalises a request amount into an exact decimal string with at most `decimals` fraction digits.
 * A JSON number was already turned into a double by the JSON parser; its shortest round-trip form is exactly what
 * the client wrote as long as it has at most 15 significant digits, so that is all we accept in number form.
 */
export function canonicalAmount(input: string | number, decimals: number, currency: string): string {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw invalidAmount('amount must be a finite decimal number.');
    text = String(input);
    if (/e/i.test(text))
      throw invalidAmount('amount is too large or too small; send it as a decimal string.');
    if (text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').length > MAX_NUMBER_SIGNIFICANT_DIGITS) {
      throw invalidAmount('amount has too many digits for a JSON number; send it as a decimal string.');
    }
  } else {
    text = input;
  }
  if (text.startsWith('-')) throw invalidAmount('amount must be greater than 0.');
  if (!isPlainDecimal(text)) throw invalidAmount('amount must be a plain decimal number such as "19.99".');
  const [whole = '0', fraction = ''] = text.split('.');
  if (whole.length > MAX_WHOLE_DIGITS)
    throw invalidAmount(`amount is unreasonably large (over ${MAX_WHOLE_DIGITS} digits).`);
  if (fraction.replace(/0+$/, '').length > decimals) {
    throw invalidAmount(`amount has more than ${decimals} decimal places, the precision of ${currency}.`);
  }
  const units = toBaseUnits(text, decimals);
  if (units === 0n) throw invalidAmount('amount must be greater than 0.');
  return fromBaseUnits(units, decimals);
}

const fiatDecimalsCache = new Map<string, number | undefined>();

/**
 * Fraction digits of a fiat currency per ISO 4217 (2 for USD/EUR, 0 for JPY, 3 for KWD), from the runtime's ICU.
 * Remembered per code (at most 26^3 of them): building an Intl.NumberFormat costs ~10 µs, more than the rest of
 * pricing together.
 */
export function fiatDecimals(code: string): number | undefined {
  if (!/^[A-Z]{3}$/.test(code)) return undefined;
  if (fiatDecimalsCache.has(code)) return fiatDecimalsCache.get(code);
  let decimals: number | undefined;
  try {
    decimals = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions()
      .maximumFractionDigits;
  } catch {
    decimals = undefined;
  }
  fiatDecimalsCache.set(code, decimals);
  return decimals;
}

/**
 * Fraction digits wallets show for an asset: 8 for Bitcoin and Litecoin (all of them), 6 for everything else (ETH,
 * SOL, stablecoins, …: MetaMask, Phantom and TronLink show at least six). An amount with more digits than a wallet
 * shows is rounded by the wallet or by the payer copying it, and arrives short: so a converted amount is rounded to
 * this precision when the payment is priced.
 */
const walletDecimalsByAsset: Readonly<Record<string, number>> = { BTC: 8, LTC: 8 };
const DEFAULT_WALLET_DECIMALS = 6;

export function walletDecimals(asset: { code: string; decimals: number }): number {
  return Math.min(asset.decimals, walletDecimalsByAsset[asset.code] ?? DEFAULT_WALLET_DECIMALS);
}

/** Base units rounded up to what wallets show of the asset (up, so the merchant never gets less than the price). */
export function roundUpForWallets(units: bigint, asset: { code: string; decimals: number }): bigint {
  const step = 10n ** BigInt(asset.decimals - walletDecimals(asset));
  const remainder = units % step;
  return remainder === 0n ? units : units - remainder + step;
}
