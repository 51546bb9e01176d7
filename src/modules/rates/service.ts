import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import {
  addRatios,
  compareRatios,
  divideRatios,
  multiplyRatios,
  parseDecimalRatio,
  type Ratio,
  ratioToDecimal,
} from '../../lib/money.ts';
import { getPricedAsset, isFixedAtOneUsd, isKnownCurrency } from './currencies.ts';
import type { TestRates } from './settings.ts';

interface RateQuote {
  /** Decimal string: units of `quote` per ONE whole `asset`. Exact, or rounded to 24 significant digits for crosses. */
  rate: string;
  /** Where it came from, e.g. "median(coinbase,coingecko,kraken)", "peg", "test"; stored beside the payment. */
  source: string;
  /** When the oldest price it rests on was fetched. */
  fetchedAt: Date;
}

export interface RatesService {
  /**
   * Units of `quote` per one `asset`. asset: an asset code (BTC, ETH, SOL, POL, BNB, LTC, TRX, USDC, USDT). quote: a
   * fiat code (USD, EUR, …) or an asset code. Codes are matched case-insensitively. Test mode uses the fixed rates of
   * the configuration. Throws AppError 'rate_unavailable' (503) when no price can be had, 'unsupported_asset' (param
   * asset) for an unknown asset and 'parameter_invalid' (param currency) for an unknown quote.
   */
  getRate(asset: string, quote: string, isTest: boolean): Promise<RateQuote>;
  /**
   * The rate `getRate` would give without asking any price feed: test and fixed rates, and live prices fetched in the
   * last few minutes (marked `stale` past the cache's lifetime); undefined when a feed would have to be asked. For
   * callers that must not wait on the network (inside a database transaction).
   */
  cachedRate(asset: string, quote: string, isTest: boolean): RateQuote | undefined;
  /** True for the supported fiat codes and the asset codes (case-insensitive). */
  isSupportedCurrency(code: string): boolean;
}

/**
 * One public price feed. Every value is in US dollars: the service divides two USD values to get any cross rate,
 * so a source only has to know how each currency trades against the dollar.
 */
export interface RateSource {
  readonly name: string;
  /**
   * USD per one unit of `code`: a non-pegged asset code (BTC, ETH, …) or a fiat code other than USD (EUR, JPY, …).
   * Returns the price as the exact decimal text the feed sent (scientific notation allowed); throws (a
   * RateSourceError, ideally) when the feed does not answer, does not know the code or answers nonsense.
   */
  fetchUsdPrice(code: string): Promise<string>;
}

/** The part of a pino logger the service uses. */
export interface RatesLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface RatesServiceDeps {
  sources: readonly RateSource[];
  /** USD value per unit of each code in test mode (see parseTestRates). */
  testRates: TestRates;
  clock: Clock;
  /** How long a fetched price is served without asking the sources again. Default 30 s. */
  cacheTtlMs?: number;
  /** When every source fails, a cached price up to this old is still served. Default 5 minutes. */
  maxStaleMs?: number;
  /** After every source failed for a code, how long to answer from the fallback without asking again. Default 5 s. */
  retryAfterFailureMs?: number;
  /** Answers further than this from the median (percent) count as disagreeing; default 5. See `combine`. */
  maxDeviationPercent?: number;
  logger?: RatesLogger;
}

/** USD values outside this band are refused as absurd, whatever the currency. */
const MIN_USD_VALUE = parseDecimalRatio('0.0000000001');
const MAX_USD_VALUE = parseDecimalRatio('10000000000');
const ONE: Ratio = { num: 1n, den: 1n };

/** A currency's USD value as the service knows it. */
interface UsdValue {
  value: Ratio;
  /** "test", "peg", "fixed" or "median(a,b,c)". */
  source: string;
  fetchedAt: Date;
}

export function medianOf(values: readonly Ratio[]): Ratio {
  const sorted = [...values].sort(compareRatios);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle];
  if (upper === undefined) throw new RangeError('median of nothing');
  if (sorted.length % 2 === 1) return upper;
  const lower = sorted[middle - 1] ?? upper;
  return multiplyRatios(addRatios(lower, upper), { num: 1n, den: 2n });
}

/** Checks one source's answer: a decimal number of USD within the sane band. */
export function validUsdPrice(text: string): Ratio {
  const value = parseDecimalRatio(text);
  if (value.num <= 0n) throw new Error(`non-positive price ${text}`);
  if (compareRatios(value, MIN_USD_VALUE) < 0 || compareRatios(value, MAX_USD_VALUE) > 0) {
    throw new Error(`absurd price ${text}`);
  }
  return value;
}

export function createRatesService(deps: RatesServiceDeps): RatesService {
  const { sources, testRates, clock, logger } = deps;
  const cacheTtlMs = deps.cacheTtlMs ?? 30_000;
  const maxStaleMs = deps.maxStaleMs ?? 5 * 60_000;
  const retryAfterFailureMs = deps.retryAfterFailureMs ?? 5_000;
  const maxDeviation: Ratio = {
    num: BigInt(Math.round((deps.maxDeviationPercent ?? 5) * 100)),
    den: 10_000n,
  };

  const cache = new Map<string, UsdValue>();
  const inFlight = new Map<string, Promise<UsdValue>>();
  const lastFailure = new Map<string, number>();

  const unavailable = (code: string, why: string) =>
    new AppError(
      'rate_unavailable',
      `No price for ${code} is available right now (${why}); try again shortly.`,
    );

  /**
   * The median of the answers, provided at least half of them lie within maxDeviation of it; otherwise the sources
   * disagree (one answered nonsense and there is no majority to outvote it) and nothing is returned.
   */
  function combine(answers: readonly { name: string; value: Ratio }[]): Ratio | undefined {
    const median = medianOf(answers.map((answer) => answer.value));
    const tolerance = multiplyRatios(median, maxDeviation);
    const close = answers.filter((answer) => {
      const distance = addRatios(answer.value, { num: -median.num, den: median.den });
      const absolute = distance.num < 0n ? { num: -distance.num, den: distance.den } : distance;
      return compareRatios(absolute, tolerance) <= 0;
    });
    return close.length * 2 >= answers.length ? median : undefined;
  }

  async function fetchFromSources(code: string): Promise<UsdValue> {
    const settled = await Promise.allSettled(
      sources.map(async (source) => ({
        name: source.name,
        value: validUsdPrice(await source.fetchUsdPrice(code)),
      })),
    );
    const answers: { name: string; value: Ratio }[] = [];
    settled.forEach((outcome, index) => {
      if (outcome.status === 'fulfilled') answers.push(outcome.value);
      else {
        const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
        logger?.warn({ source: sources[index]?.name, code, reason }, 'price source failed');
      }
    });
    if (answers.length === 0) throw unavailable(code, 'no price source answered');
    const value = combine(answers);
    if (value === undefined) {
      logger?.warn(
        { code, answers: answers.map((a) => `${a.name}=${ratioToDecimal(a.value)}`) },
        'price sources disagree',
      );
      throw unavailable(code, 'price sources disagree');
    }
    const names = answers.map((answer) => answer.name).sort();
    return { value, source: `median(${names.join(',')})`, fetchedAt: clock.now() };
  }

  /** The last good value if it is recent enough to stand in for a fresh one, else rate_unavailable. */
  function fallback(code: string, error: unknown): UsdValue {
    const cached = cache.get(code);
    if (cached !== undefined && clock.now().getTime() - cached.fetchedAt.getTime() <= maxStaleMs) {
      return { ...cached, source: `stale ${cached.source}` };
    }
    if (error instanceof AppError) throw error;
    throw unavailable(code, 'no price source answered');
  }

  async function liveUsdValue(code: string): Promise<UsdValue> {
    const now = clock.now().getTime();
    const cached = cache.get(code);
    if (cached !== undefined && now - cached.fetchedAt.getTime() < cacheTtlMs) return cached;
    const failedAt = lastFailure.get(code);
    if (failedAt !== undefined && now - failedAt < retryAfterFailureMs) {
      return fallback(code, unavailable(code, 'price sources failed moments ago'));
    }
    let pending = inFlight.get(code);
    if (pending === undefined) {
      pending = fetchFromSources(code)
        .then((fresh) => {
          cache.set(code, fresh);
          lastFailure.delete(code);
          return fresh;
        })
        .catch((error: unknown) => {
          lastFailure.set(code, clock.now().getTime());
          throw error;
        })
        .finally(() => inFlight.delete(code));
      inFlight.set(code, pending);
    }
    try {
      return await pending;
    } catch (error) {
      return fallback(code, error);
    }
  }

  /** usdValue without the network: undefined where a feed would be asked. */
  function knownUsdValue(code: string, isTest: boolean): UsdValue | undefined {
    if (isFixedAtOneUsd(code)) {
      return { value: ONE, source: code === 'USD' ? 'fixed' : 'peg', fetchedAt: clock.now() };
    }
    if (isTest) {
      const configured = testRates[code];
      return configured === undefined
        ? undefined
        : { value: parseDecimalRatio(configured), source: 'test', fetchedAt: clock.now() };
    }
    const cached = cache.get(code);
    if (cached === undefined) return undefined;
    const age = clock.now().getTime() - cached.fetchedAt.getTime();
    if (age < cacheTtlMs) return cached;
    return age <= maxStaleMs ? { ...cached, source: `stale ${cached.source}` } : undefined;
  }

  function quoteOf(base: UsdValue, counter: UsdValue, isTest: boolean): RateQuote {
    // Name only the legs that carry information: "fixed" (USD itself) says nothing.
    const legs = [base, counter].filter((leg) => leg.source !== 'fixed').map((leg) => leg.source);
    const source = isTest ? 'test' : [...new Set(legs)].join(' / ') || 'fixed';
    return {
      rate: ratioToDecimal(divideRatios(base.value, counter.value)),
      source,
      fetchedAt: new Date(Math.min(base.fetchedAt.getTime(), counter.fetchedAt.getTime())),
    };
  }

  async function usdValue(code: string, isTest: boolean): Promise<UsdValue> {
    if (isFixedAtOneUsd(code)) {
      return { value: ONE, source: code === 'USD' ? 'fixed' : 'peg', fetchedAt: clock.now() };
    }
    if (isTest) {
      const configured = testRates[code];
      if (configured === undefined) throw unavailable(code, 'no test rate configured; set SVC_TEST_RATES');
      return { value: parseDecimalRatio(configured), source: 'test', fetchedAt: clock.now() };
    }
    return liveUsdValue(code);
  }

  return {
    async getRate(asset, quote, isTest) {
      const assetCode = asset.toUpperCase();
      const quoteCode = quote.toUpperCase();
      if (getPricedAsset(assetCode) === undefined) {
        throw new AppError('unsupported_asset', `No price is known for asset ${asset}.`, { param: 'asset' });
      }
      if (!isKnownCurrency(quoteCode)) {
        throw new AppError('parameter_invalid', `Unsupported currency "${quote}".`, { param: 'currency' });
      }
      if (assetCode === quoteCode) return { rate: '1', source: 'identity', fetchedAt: clock.now() };
      const [base, counter] = await Promise.all([usdValue(assetCode, isTest), usdValue(quoteCode, isTest)]);
      return quoteOf(base, counter, isTest);
    },
    cachedRate(asset, quote, isTest) {
      const assetCode = asset.toUpperCase();
      const quoteCode = quote.toUpperCase();
      if (getPricedAsset(assetCode) === undefined || !isKnownCurrency(quoteCode)) return undefined;
      if (assetCode === quoteCode) return { rate: '1', source: 'identity', fetchedAt: clock.now() };
      const base = knownUsdValue(assetCode, isTest);
      const counter = knownUsdValue(quoteCode, isTest);
      return base === undefined || counter === undefined ? undefined : quoteOf(base, counter, isTest);
    },
    isSupportedCurrency(code) {
      return isKnownCurrency(code.toUpperCase());
    },
  };
}
