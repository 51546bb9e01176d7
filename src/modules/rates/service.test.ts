import { describe, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { convertToBaseUnits } from '../../lib/money.ts';
import {
  createRatesService,
  medianOf,
  type RateSource,
  type RatesServiceDeps,
  validUsdPrice,
} from './service.ts';
import { defaultTestRates, parseTestRates } from './settings.ts';

const plainDecimal = /^(0|[1-9]\d*)(\.\d*[1-9])?$/;

/** A source answering from a table that tests change as they go; counts its calls per code. */
function fakeSource(name: string, prices: Record<string, string | Error>) {
  const calls: string[] = [];
  const source: RateSource & { calls: string[]; prices: Record<string, string | Error> } = {
    name,
    calls,
    prices,
    async fetchUsdPrice(code) {
      calls.push(code);
      const answer = source.prices[code];
      if (answer === undefined) throw new Error(`${name} does not know ${code}`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return source;
}

function liveService(sources: RateSource[], extra: Partial<RatesServiceDeps> = {}) {
  const clock = manualClock();
  const warnings: { details: Record<string, unknown>; message: string }[] = [];
  const service = createRatesService({
    sources,
    testRates: defaultTestRates,
    clock,
    logger: { warn: (details, message) => warnings.push({ details, message }) },
    ...extra,
  });
  return { service, clock, warnings };
}

async function errorOf(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('test mode', () => {
  const { service } = liveService([]);

  it('uses the fixed USD rates, exactly', async () => {
    expect(await service.getRate('BTC', 'USD', true)).toMatchObject({ rate: '60000', source: 'test' });
    expect((await service.getRate('ETH', 'USD', true)).rate).toBe('3000');
    expect((await service.getRate('TRX', 'USD', true)).rate).toBe('0.12');
  });

  it('crosses through USD: assets in fiat, assets in assets', async () => {
    expect((await service.getRate('ETH', 'EUR', true)).rate).toBe('2777.77777777777777777778');
    expect((await service.getRate('BTC', 'ETH', true)).rate).toBe('20');
    expect((await service.getRate('ETH', 'BTC', true)).rate).toBe('0.05');
    expect((await service.getRate('SOL', 'USDC', true)).rate).toBe('150');
    expect((await service.getRate('BTC', 'JPY', true)).rate).toBe('8955223.88059701492537313');
  });

  it('pegs stablecoins to one dollar', async () => {
    expect((await service.getRate('USDC', 'USD', true)).rate).toBe('1');
    expect((await service.getRate('USDT', 'USDC', true)).rate).toBe('1');
    expect((await service.getRate('USDT', 'EUR', true)).rate).toBe('0.925925925925925925925926');
  });

  it('takes the configured SVC_TEST_RATES over the defaults', async () => {
    const custom = createRatesService({
      sources: [],
      testRates: parseTestRates('BTC=50000, eth=2500.5 ,EUR=1.25'),
      clock: manualClock(),
    });
    expect((await custom.getRate('BTC', 'USD', true)).rate).toBe('50000');
    expect((await custom.getRate('ETH', 'EUR', true)).rate).toBe('2000.4');
    expect((await custom.getRate('SOL', 'USD', true)).rate).toBe('150');
  });

  it('answers rate_unavailable for a code without a test rate', async () => {
    const sparse = createRatesService({ sources: [], testRates: { BTC: '1' }, clock: manualClock() });
    const error = await errorOf(sparse.getRate('ETH', 'USD', true));
    expect(error.code).toBe('rate_unavailable');
    expect(error.status).toBe(503);
  });
});

describe('what it accepts', () => {
  const { service } = liveService([]);

  it('knows the fiat codes and the asset codes, case-insensitively', () => {
    for (const code of [
      'USD',
      'eur',
      'GBP',
      'JPY',
      'KWD',
      'BTC',
      'eth',
      'SOL',
      'POL',
      'BNB',
      'LTC',
      'TRX',
      'USDC',
      'USDT',
    ]) {
      expect(service.isSupportedCurrency(code), code).toBe(true);
    }
    for (const code of ['', 'XYZ', 'DOGE', 'XAU', 'USD ', 'EURO'])
      expect(service.isSupportedCurrency(code), code).toBe(false);
  });

  it('names the parameter of an unknown asset or currency', async () => {
    const asset = await errorOf(service.getRate('DOGE', 'USD', true));
    expect([asset.code, asset.param]).toEqual(['unsupported_asset', 'asset']);
    const currency = await errorOf(service.getRate('BTC', 'XYZ', true));
    expect([currency.code, currency.param]).toEqual(['parameter_invalid', 'currency']);
  });

  it('prices an asset in itself at exactly 1 without asking anyone', async () => {
    const source = fakeSource('a', {});
    const { service: live } = liveService([source]);
    expect(await live.getRate('btc', 'BTC', false)).toMatchObject({ rate: '1', source: 'identity' });
    expect(source.calls).toEqual([]);
  });
});

describe('live mode', () => {
  it('takes the median of the sources (odd and even counts), as an exact decimal', async () => {
    const a = fakeSource('coinbase', { BTC: '67012.355' });
    const b = fakeSource('kraken', { BTC: '67018.10000' });
    const c = fakeSource('coingecko', { BTC: '67009.80316357294' });
    const { service, clock } = liveService([a, b, c]);
    const quote = await service.getRate('BTC', 'USD', false);
    expect(quote).toEqual({
      rate: '67012.355',
      source: 'median(coinbase,coingecko,kraken)',
      fetchedAt: clock.now(),
    });

    const even = liveService([a, b]).service;
    expect((await even.getRate('BTC', 'USD', false)).rate).toBe('67015.2275');
  });

  it('reads scientific notation and trailing zeros exactly', async () => {
    const { service } = liveService([fakeSource('x', { TRX: '1.2345e-1' })]);
    expect((await service.getRate('TRX', 'USD', false)).rate).toBe('0.12345');
  });

  it('crosses two live legs exactly and the result converts without floats', async () => {
    const { service } = liveService([fakeSource('x', { BTC: '67012.355', EUR: '1.08453', ETH: '3012.4' })]);
    const eur = await service.getRate('BTC', 'EUR', false);
    expect(eur.rate).toBe('61789.3050445815237937171');
    expect(eur.rate).toMatch(plainDecimal);
    expect((await service.getRate('BTC', 'ETH', false)).rate).toBe('22.2455035851812508299031');
    // 1000 EUR at that rate, in satoshis, rounded up.
    expect(convertToBaseUnits('1000', eur.rate, 8)).toBe(1618404n);
  });

  it('pegs stablecoins to USD without asking the sources', async () => {
    const source = fakeSource('x', { EUR: '1.25' });
    const { service } = liveService([source]);
    expect(await service.getRate('USDT', 'USD', false)).toMatchObject({ rate: '1', source: 'peg' });
    expect(source.calls).toEqual([]);
    expect(await service.getRate('USDC', 'EUR', false)).toMatchObject({
      rate: '0.8',
      source: 'peg / median(x)',
    });
    expect(source.calls).toEqual(['EUR']);
    // A price for a stablecoin in a crypto asset divides by the asset's USD value.
    source.prices.ETH = '2500';
    expect((await service.getRate('USDC', 'ETH', false)).rate).toBe('0.0004');
  });

  it('ignores sources that fail or answer nonsense, and logs them', async () => {
    const good = fakeSource('good', { BTC: '67000' });
    const down = fakeSource('down', { BTC: new Error('HTTP 500') });
    const negative = fakeSource('negative', { BTC: '-67000' });
    const zero = fakeSource('zero', { BTC: '0' });
    const absurd = fakeSource('absurd', { BTC: '67000000000000000' });
    const tiny = fakeSource('tiny', { BTC: '0.00000000000001' });
    const garbage = fakeSource('garbage', { BTC: 'NaN' });
    const { service, warnings } = liveService([good, down, negative, zero, absurd, tiny, garbage]);
    expect(await service.getRate('BTC', 'USD', false)).toMatchObject({
      rate: '67000',
      source: 'median(good)',
    });
    expect(warnings.map((w) => w.details.source).sort()).toEqual(
      ['absurd', 'down', 'garbage', 'negative', 'tiny', 'zero'].sort(),
    );
  });

  it('outvotes one wild source, but refuses when the sources disagree without a majority', async () => {
    const wild = liveService([
      fakeSource('a', { BTC: '67000' }),
      fakeSource('b', { BTC: '67100' }),
      fakeSource('c', { BTC: '6700' }),
    ]);
    expect((await wild.service.getRate('BTC', 'USD', false)).rate).toBe('67000');

    const split = liveService([fakeSource('a', { BTC: '67000' }), fakeSource('b', { BTC: '6700' })]);
    const error = await errorOf(split.service.getRate('BTC', 'USD', false));
    expect(error.code).toBe('rate_unavailable');
    expect(split.warnings.some((w) => w.message === 'price sources disagree')).toBe(true);
  });

  it('answers 503 rate_unavailable when no source answers and nothing is cached', async () => {
    const { service } = liveService([fakeSource('a', { BTC: new Error('down') }), fakeSource('b', {})]);
    const error = await errorOf(service.getRate('BTC', 'USD', false));
    expect(error.code).toBe('rate_unavailable');
    expect(error.status).toBe(503);
    const none = liveService([]).service;
    expect((await errorOf(none.getRate('ETH', 'USD', false))).code).toBe('rate_unavailable');
  });

  it('caches each price for the TTL, then asks again', async () => {
    const source = fakeSource('x', { BTC: '67000' });
    const { service, clock } = liveService([source], { cacheTtlMs: 30_000 });
    const first = await service.getRate('BTC', 'USD', false);
    source.prices.BTC = '68000';
    clock.advance(29_999);
    const cached = await service.getRate('BTC', 'USD', false);
    expect(cached).toEqual(first);
    expect(source.calls).toEqual(['BTC']);
    clock.advance(1);
    const fresh = await service.getRate('BTC', 'USD', false);
    expect(fresh.rate).toBe('68000');
    expect(fresh.fetchedAt).toEqual(clock.now());
    expect(source.calls).toEqual(['BTC', 'BTC']);
  });

  it('falls back to a cached price no older than the bound when every source fails, then gives up', async () => {
    const source = fakeSource('x', { BTC: '67000' });
    const { service, clock } = liveService([source], {
      cacheTtlMs: 30_000,
      maxStaleMs: 300_000,
      retryAfterFailureMs: 5_000,
    });
    const first = await service.getRate('BTC', 'USD', false);
    source.prices.BTC = new Error('down');
    clock.advance(60_000);
    const stale = await service.getRate('BTC', 'USD', false);
    expect(stale).toEqual({ rate: '67000', source: 'stale median(x)', fetchedAt: first.fetchedAt });
    expect(source.calls).toHaveLength(2);

    // Right after a failure the sources are not asked again; the stale price keeps answering.
    clock.advance(4_000);
    expect((await service.getRate('BTC', 'USD', false)).source).toBe('stale median(x)');
    expect(source.calls).toHaveLength(2);
    clock.advance(1_000);
    await service.getRate('BTC', 'USD', false);
    expect(source.calls).toHaveLength(3);

    clock.set(new Date(first.fetchedAt.getTime() + 300_001));
    expect((await errorOf(service.getRate('BTC', 'USD', false))).code).toBe('rate_unavailable');

    // A source that recovers is used again once the failure pause is over.
    source.prices.BTC = '69000';
    clock.advance(5_000);
    expect(await service.getRate('BTC', 'USD', false)).toMatchObject({ rate: '69000', source: 'median(x)' });
  });

  it('fails fast after a total failure instead of waiting on the sources for every request', async () => {
    const source = fakeSource('x', { BTC: new Error('down') });
    const { service, clock } = liveService([source], { retryAfterFailureMs: 5_000 });
    await errorOf(service.getRate('BTC', 'USD', false));
    await errorOf(service.getRate('BTC', 'USD', false));
    expect(source.calls).toHaveLength(1);
    clock.advance(5_000);
    await errorOf(service.getRate('BTC', 'USD', false));
    expect(source.calls).toHaveLength(2);
  });

  it('asks the sources once for many concurrent requests', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const slow: RateSource = {
      name: 'slow',
      async fetchUsdPrice() {
        calls += 1;
        await gate;
        return '67000';
      },
    };
    const { service } = liveService([slow]);
    const pending = Array.from({ length: 50 }, () => service.getRate('BTC', 'USD', false));
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const quotes = await Promise.all(pending);
    expect(new Set(quotes.map((q) => q.rate))).toEqual(new Set(['67000']));
    expect(calls).toBe(1);
  });

  it('keeps test and live apart: test mode never asks the sources', async () => {
    const source = fakeSource('x', { BTC: '67000' });
    const { service } = liveService([source]);
    expect((await service.getRate('BTC', 'USD', true)).rate).toBe('60000');
    expect(source.calls).toEqual([]);
  });
});

describe('helpers', () => {
  it('medianOf handles odd, even and single inputs', () => {
    const r = (n: bigint, d = 1n) => ({ num: n, den: d });
    expect(medianOf([r(3n), r(1n), r(2n)])).toEqual(r(2n));
    expect(medianOf([r(4n), r(1n), r(2n), r(3n)])).toEqual(r(5n, 2n));
    expect(medianOf([r(7n)])).toEqual(r(7n));
    expect(() => medianOf([])).toThrow(RangeError);
  });

  it('validUsdPrice refuses non-positive and absurd values', () => {
    expect(validUsdPrice('67012.35')).toEqual({ num: 1340247n, den: 20n });
    for (const bad of ['0', '-1', '0.00', '1e11', '1e-11', 'abc', ''])
      expect(() => validUsdPrice(bad), bad).toThrow();
  });
});

describe('cachedRate: the rate as already known, without asking a feed', () => {
  it('is undefined until a feed answered, then that price, stale past the cache lifetime, gone past the stale limit', async () => {
    const source = fakeSource('a', { BTC: '60000', EUR: '1.25' });
    const { service, clock } = liveService([source], { cacheTtlMs: 30_000, maxStaleMs: 300_000 });
    expect(service.cachedRate('BTC', 'EUR', false)).toBeUndefined();
    expect(source.calls).toEqual([]);
    const fetched = await service.getRate('BTC', 'EUR', false);
    expect(service.cachedRate('BTC', 'EUR', false)).toEqual(fetched);
    clock.advance(31_000);
    expect(service.cachedRate('BTC', 'EUR', false)).toMatchObject({
      rate: '48000',
      source: 'stale median(a)',
    });
    clock.advance(300_000);
    expect(service.cachedRate('BTC', 'EUR', false)).toBeUndefined();
    expect(source.calls).toEqual(['BTC', 'EUR']);
  });

  it('gives test, pegged and identity rates at once, and nothing for what it does not price', () => {
    const { service } = liveService([]);
    expect(service.cachedRate('BTC', 'USD', true)).toMatchObject({ rate: '60000', source: 'test' });
    expect(service.cachedRate('USDC', 'USD', false)).toMatchObject({ rate: '1' });
    expect(service.cachedRate('ETH', 'ETH', false)).toMatchObject({ rate: '1', source: 'identity' });
    expect(service.cachedRate('DOGE', 'USD', false)).toBeUndefined();
    expect(service.cachedRate('ETH', 'XYZ', false)).toBeUndefined();
  });
});
