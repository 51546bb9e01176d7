/**
 * java-tron's HTTP API writes amounts as JSON integers: sun for TRX (within 2^53 in practice) but also token amounts
 * (TRC-10 balances, `call_value`, fees summed by explorers) that can exceed 2^53, where JSON.parse would silently
 * round. One pass over the text, like bitcoin/json.ts: strings are jumped over to their closing quote, and every
 * integer token of more than 15 digits outside strings is put in quotes, so it arrives as its exact text. Smaller
 * integers stay numbers (heights, timestamps, sun). Read amounts with `units`, which takes either form.
 */
export function parseJsonExactIntegers(text: string): unknown {
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let end = text.indexOf('"', i + 1);
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) break; // unterminated: JSON.parse says so
      i = end + 1;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i += 1;
      for (; i < length; i++) {
        const d = text.charCodeAt(i);
        if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
      }
      // 15 digits are always below 2^53; longer integers keep their text (a fraction or exponent is left to JSON.parse
      // and refused by `units`).
      if (i - start > 15 && /^-?\d+$/.test(text.slice(start, i))) {
        parts.push(text.slice(copied, start), '"', text.slice(start, i), '"');
        copied = i;
      }
    } else {
      i += 1;
    }
  }
  if (parts.length === 0) return JSON.parse(text);
  parts.push(text.slice(copied));
  return JSON.parse(parts.join(''));
}

function escaped(text: string, quote: number): boolean {
  let backslashes = 0;
  for (let at = quote - 1; text.charCodeAt(at) === 92 /* \\ */; at--) backslashes += 1;
  return backslashes % 2 === 1;
}

/** A number that JSON.parse may have rounded (beyond 2^53, or not an integer): never read as an amount. */
export class InexactAmountError extends Error {
  constructor(value: number) {
    super(`amount ${value} is not an exact integer`);
    this.name = 'InexactAmountError';
  }
}

/**
 * An integer amount as parseJsonExactIntegers left it (a safe-integer number or the text of a bigger one), or 0n when
 * absent (java-tron omits zero-valued protobuf fields: an account without TRX has no `balance`). Anything else is a
 * bug to see, not money to guess.
 */
export function units(value: unknown): bigint {
  if (value === undefined || value === null) return 0n;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new InexactAmountError(value);
    return BigInt(value);
  }
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  throw new Error(`"${String(value)}" is not an integer amount`);
}

/**
 * A sun amount as the JSON number java-tron's transaction shapes take. A JavaScript number is exact only up to
 * 2^53 − 1 (about 9 billion TRX), so anything outside 0..that is refused, never rounded.
 */
export function sunNumber(value: bigint): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`${value} sun cannot be written exactly as a JSON number`);
  }
  return Number(value);
}
