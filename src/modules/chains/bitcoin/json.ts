/**
 * Bitcoin Core writes amounts as JSON numbers in coins (`"value": 0.00100000`). Through JSON.parse they would become
 * floats, and 0.1 + 0.2 is not 0.3: every number with a fraction or an exponent is therefore turned into a string
 * before parsing (strings are matched first, so digits inside hex or txids are never touched), and amounts become
 * bigint base units from that exact decimal text. Integers (heights, vout indexes, confirmations) stay numbers.
 *
 * Why not JSON.parse's reviver with the source text: `context.source` is not in Node 20.
 */
// A string (the unrolled form: runs of plain characters between escapes, fast on long hex), or a number with a
// fraction or an exponent. Integers never match: the regex moves past their digits without a callback.
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+(?:[eE][+-]?\d+)?|[eE][+-]?\d+)/g;

export function parseJsonKeepingDecimals(text: string): unknown {
  const quoted = text.replace(TOKENS, (token) => (token.charCodeAt(0) === 34 ? token : `"${token}"`));
  return JSON.parse(quoted);
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
