/**
 * Exact money arithmetic. Amounts on chains are bigint base units (wei, satoshi, …); at the API's edges they are
 * decimal strings. Nothing here ever passes through a JavaScript number.
 */

const decimalPattern = /^(0|[1-9]\d*)(\.\d+)?$/;

export class MoneyFormatError extends Error {}

/** Parses a non-negative decimal string into base units; throws if it has more fraction digits than `decimals`. */
export function toBaseUnits(decimal: string, decimals: number): bigint {
  if (!decimalPattern.test(decimal)) throw new MoneyFormatError(`Not a plain decimal number: ${decimal}`);
  const [whole = '0', fraction = ''] = decimal.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  if (trimmed.length > decimals) {
    throw new MoneyFormatError(`More than ${decimals} decimal places: ${decimal}`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(trimmed.padEnd(decimals, '0') || '0');
}

/** Formats base units as the shortest exact decimal string ("1.5", "0.000001", "12"). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const scale = 10n ** BigInt(decimals);
  const whole = abs / scale;
  const fraction = (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Counts the fraction digits a decimal string really uses (trailing zeros do not count). */
export function fractionDigits(decimal: string): number {
  const fraction = decimal.split('.')[1] ?? '';
  return fraction.replace(/0+$/, '').length;
}

export function isPlainDecimal(value: string): boolean {
  return decimalPattern.test(value);
}

/**
 * A rational number `num / den` with bigint parts, for exact price conversion. Rates such as "67012.35" become
 * 6701235/100; conversions multiply and divide exactly and round only once, at the end.
 */
export interface Ratio {
  num: bigint;
  den: bigint;
}

export function ratioFromDecimal(decimal: string): Ratio {
  if (!decimalPattern.test(decimal)) throw new MoneyFormatError(`Not a plain decimal number: ${decimal}`);
  const digits = (decimal.split('.')[1] ?? '').length;
  return { num: toBaseUnits(decimal, digits), den: 10n ** BigInt(digits) };
}

/** Divides and rounds up (ceiling) for non-negative operands. */
export function divCeil(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n || numerator < 0n) throw new RangeError('divCeil expects non-negative operands');
  return (numerator + denominator - 1n) / denominator;
}

/**
 * Converts `amount` (a decimal string in the quote currency) into base units of an asset priced at `rate`
 * (quote currency per one whole asset), rounding up so the merchant is never short.
 */
export function convertToBaseUnits(amount: string, rate: string, assetDecimals: number): bigint {
  const a = ratioFromDecimal(amount);
  const r = ratioFromDecimal(rate);
  if (r.num === 0n) throw new RangeError('Rate must be positive');
  // amount / rate * 10^decimals = (a.num / a.den) * (r.den / r.num) * 10^decimals
  return divCeil(a.num * r.den * 10n ** BigInt(assetDecimals), a.den * r.num);
}
