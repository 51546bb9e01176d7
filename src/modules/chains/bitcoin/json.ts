/**
 * Bitcoin Core writes amounts as JSON numbers in coins (`"value": 0.00100000`). Through JSON.parse they would become
 * floats, and 0.1 + 0.2 is not 0.3: every number with a fraction or an exponent is therefore turned into a string
 * before parsing (strings are matched first, so digits inside hex or txids are never touched), and amounts become
 * bigint base units from that exact decimal text. Integers (heights, vout indexes, confirmations) stay numbers.
 *
 * Why not JSON.parse's reviver with the source text: `context.source` is not in Node 20.
 */
/** A JSON number, whole. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * One pass over the text: a string is skipped in one jump to its closing quote (indexOf, native: a block's text is
 * mostly long hex strings), and a number with a fraction or an exponent outside strings is put in quotes. A regex
 * with a callback for every string token took about five times as long on a 2,000-transaction block.
 */
export function parseJsonKeepingDecimals(text: string): unknown {
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  const length = text.length;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      let end = text.indexOf('"', i + 1);
      // A quote after an odd number of backslashes is inside the string.
      while (end !== -1 && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (end === -1) break; // unterminated: JSON.parse says so
      i = end + 1;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      let decimal = false;
      i += 1;
      for (; i < length; i++) {
        const d = text.charCodeAt(i);
        if (d >= 48 && d <= 57) continue;
        if (d === 46 /* . */ || d === 101 /* e */ || d === 69 /* E */) decimal = true;
        else if (d !== 43 /* + */ && d !== 45 /* - */) break;
      }
      // Only a number JSON allows is quoted: anything else ("1.", "0.5e", "1-2") is left for JSON.parse to refuse.
      if (decimal && JSON_NUMBER.test(text.slice(start, i))) {
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

/**
 * Base units (satoshis, litoshis: 8 decimals) of an amount in coins as the node wrote it. Refuses more than 8
 * decimals and anything that is not a plain decimal, rather than rounding: a value svc cannot read exactly is a bug to
 * see, not money to guess.
 */
export function coinsToBaseUnits(amount: string | number, decimals = 8): bigint {
  let text: string;
  if (typeof amount === 'number') {
    // Only an integer number can be read exactly (a decimal one was parsed as a float somewhere: refuse it).
    if (!Number.isSafeInteger(amount)) throw new Error(`amount ${amount} was read as a float`);
    text = String(amount);
  } else {
    text = amount;
  }
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (match === null) throw new Error(`"${text}" is not a decimal amount`);
  const [, sign = '', whole = '0', fraction = '', exponentText] = match;
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  // No amount needs more; a bigger exponent would only make a huge power of ten.
  if (Math.abs(exponent) > 30) throw new Error(`"${text}" is out of range`);
  // digits × 10^(exponent - fraction.length) coins, × 10^decimals base units.
  const digits = BigInt(whole + fraction);
  const shift = exponent - fraction.length + decimals;
  let units: bigint;
  if (shift >= 0) {
    units = digits * 10n ** BigInt(shift);
  } else {
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) throw new Error(`"${text}" has more than ${decimals} decimals`);
    units = digits / divisor;
  }
  return sign === '-' ? -units : units;
}
