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
function divCeil(numerator: bigint, denominator: bigint): bigint {
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

/** A decimal number as text: optional sign, digits, optional fraction, optional exponent (JSON's number grammar, leniently allowing leading zeros). */
const numberTextPattern = /^(-|\+)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** Largest exponent (either sign) and digit count `parseDecimalRatio` accepts, so hostile input cannot make huge bigints. */
const maxExponent = 400;
const maxDigits = 400;

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** The same number with a positive denominator and no common factor. */
export function reduceRatio(r: Ratio): Ratio {
  if (r.den === 0n) throw new RangeError('Ratio denominator must not be zero');
  const sign = r.den < 0n ? -1n : 1n;
  const divisor = gcd(r.num, r.den) || 1n;
  return { num: (sign * r.num) / divisor, den: (sign * r.den) / divisor };
}

/**
 * Parses a decimal number exactly, including a sign and scientific notation ("-1.5", "1.2e-7", "6.7E+4"), as
 * price feeds send them. Throws MoneyFormatError for anything else (empty, "NaN", "Infinity", "1,5", hex, …).
 */
export function parseDecimalRatio(text: string): Ratio {
  const match = numberTextPattern.exec(text);
  if (match === null || text.length > maxDigits) {
    throw new MoneyFormatError(`Not a decimal number: ${text.slice(0, 40)}`);
  }
  const [, sign, whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number.parseInt(exponentText, 10) - fraction.length;
  if (Math.abs(exponent) > maxExponent + maxDigits) {
    throw new MoneyFormatError(`Exponent out of range: ${text.slice(0, 40)}`);
  }
  const digits = BigInt(whole + fraction) * (sign === '-' ? -1n : 1n);
  return exponent >= 0
    ? { num: digits * 10n ** BigInt(exponent), den: 1n }
    : reduceRatio({ num: digits, den: 10n ** BigInt(-exponent) });
}

export function multiplyRatios(a: Ratio, b: Ratio): Ratio {
  return reduceRatio({ num: a.num * b.num, den: a.den * b.den });
}

export function divideRatios(a: Ratio, b: Ratio): Ratio {
  if (b.num === 0n) throw new RangeError('Division by zero');
  return reduceRatio({ num: a.num * b.den, den: a.den * b.num });
}

export function addRatios(a: Ratio, b: Ratio): Ratio {
  return reduceRatio({ num: a.num * b.den + b.num * a.den, den: a.den * b.den });
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareRatios(a: Ratio, b: Ratio): -1 | 0 | 1 {
  const left = reduceRatio(a);
  const right = reduceRatio(b);
  const difference = left.num * right.den - right.num * left.den;
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/**
 * Formats a ratio as a plain decimal string (never scientific notation). The result is exact whenever the number
 * has at most `significantDigits` significant digits ("67012.35", "0.05", "1"); otherwise it is rounded half away
 * from zero to that many significant digits (1/3 → "0.333333333333333333333333" at 24).
 */
export function ratioToDecimal(r: Ratio, significantDigits = 24): string {
  if (!Number.isInteger(significantDigits) || significantDigits < 1) {
    throw new RangeError('significantDigits must be a positive integer');
  }
  const { num, den } = reduceRatio(r);
  if (num === 0n) return '0';
  const negative = num < 0n;
  const n = negative ? -num : num;
  // First guess of the position of the leading digit, then correct it by at most one.
  let exponent = n.toString().length - den.toString().length;
  if (n * 10n ** BigInt(Math.max(0, -exponent)) < den * 10n ** BigInt(Math.max(0, exponent))) exponent -= 1;
  // Scale so that the integer part holds exactly `significantDigits` digits.
  const shift = significantDigits - 1 - exponent;
  const scaledNum = shift >= 0 ? n * 10n ** BigInt(shift) : n;
  const scaledDen = shift >= 0 ? den : den * 10n ** BigInt(-shift);
  let digits = scaledNum / scaledDen;
  const remainder = scaledNum % scaledDen;
  if (remainder * 2n >= scaledDen) digits += 1n;
  const text = shift >= 0 ? fromBaseUnits(digits, shift) : (digits * 10n ** BigInt(-shift)).toString();
  return negative ? `-${text}` : text;
}
