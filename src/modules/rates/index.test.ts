import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { manualClock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { type ReplayServer, startReplayServer } from './fixtures/replay-server.ts';
import { createDefaultRatesService } from './index.ts';
import { defaultTestRates } from './settings.ts';

/** A configuration that writes nothing to disk (DATABASE_URL set, secrets given). */
function config(env: Record<string, string> = {}) {
  return loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_TEST_MNEMONIC:
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    ...env,
  });
}

function configProblems(env: Record<string, string>): string[] {
  try {
    config(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('rates configuration', () => {
  it('has sensible defaults', () => {
    const { rates } = config();
    expect(rates).toEqual({
      testRates: defaultTestRates,
      sources: ['coinbase', 'kraken', 'coingecko'],
      coinbaseUrl: 'https://api.coinbase.com',
      krakenUrl: 'https://api.kraken.com',
      coingeckoUrl: 'https://api.coingecko.com/api/v3',
      coingeckoApiKey: undefined,
      cacheTtlMs: 30_000,
      maxStaleMs: 300_000,
      timeoutMs: 5000,
    });
    for (const code of ['BTC', 'ETH', 'SOL', 'POL', 'BNB', 'LTC', 'TRX', 'EUR', 'GBP', 'JPY']) {
      expect(rates.testRates[code], code).toMatch(/^\d/);
    }
  });

  it('reads SVC_TEST_RATES over the defaults and the other variables', () => {
    const { rates } = config({
      SVC_TEST_RATES: 'BTC=50000,EUR=1.1',
      SVC_RATES_SOURCES: 'kraken, coinbase',
      SVC_RATES_CACHE_SECONDS: '10',
      SVC_RATES_MAX_STALE_SECONDS: '0',
      SVC_RATES_TIMEOUT_MS: '1500',
      SVC_RATES_COINGECKO_API_KEY: 'CG-x',
    });
    expect(rates.testRates.BTC).toBe('50000');
    expect(rates.testRates.EUR).toBe('1.1');
    expect(rates.testRates.ETH).toBe('3000');
    expect(rates.sources).toEqual(['kraken', 'coinbase']);
    expect([rates.cacheTtlMs, rates.maxStaleMs, rates.timeoutMs, rates.coingeckoApiKey]).toEqual([
      10_000,
      0,
      1500,
      'CG-x',
    ]);
  });

  it('refuses bad values with a message naming the variable', () => {
    const cases: [Record<string, string>, string][] = [
      [{ SVC_TEST_RATES: 'BTC=abc' }, 'SVC_TEST_RATES: BTC must be a positive decimal'],
      [{ SVC_TEST_RATES: 'BTC=0' }, 'SVC_TEST_RATES: BTC must be a positive decimal'],
      [{ SVC_TEST_RATES: 'BTC=-5' }, 'SVC_TEST_RATES: BTC must be a positive decimal'],
      [{ SVC_TEST_RATES: 'BTC=1e5' }, 'SVC_TEST_RATES: BTC must be a positive decimal'],
      [{ SVC_TEST_RATES: 'DOGE=0.1' }, 'SVC_TEST_RATES: unknown currency DOGE'],
      [{ SVC_TEST_RATES: 'USDT=0.99' }, 'SVC_TEST_RATES: USDT is always worth 1 USD'],
      [{ SVC_TEST_RATES: 'BTC' }, 'SVC_TEST_RATES: "BTC" is not CODE=VALUE'],
      [{ SVC_RATES_SOURCES: 'coinbase,binance' }, 'SVC_RATES_SOURCES: unknown source "binance"'],
      [{ SVC_RATES_SOURCES: ' , ' }, 'SVC_RATES_SOURCES: must name at least one'],
      [{ SVC_RATES_KRAKEN_URL: 'not a url' }, 'SVC_RATES_KRAKEN_URL'],
      [{ SVC_RATES_CACHE_SECONDS: '0' }, 'SVC_RATES_CACHE_SECONDS'],
      [{ SVC_RATES_TIMEOUT_MS: 'soon' }, 'SVC_RATES_TIMEOUT_MS'],
    ];
    for (const [env, message] of cases) {
      const problems = configProblems(env);
      expect(problems.join('\n'), JSON.stringify(env)).toContain(message);
    }
  });
});

describe('createDefaultRatesService against local replays of the three feeds', () => {
  let coinbase: ReplayServer;
  let kraken: ReplayServer;
  let coingecko: ReplayServer;

  beforeAll(async () => {
    coinbase = await startReplayServer({
      '/v2/prices/BTC-USD/spot': { fixture: 'coinbase/spot-btc-usd.json' },
      '/v2/prices/ETH-USD/spot': { fixture: 'coinbase/spot-eth-usd.json' },
      '/v2/exchange-rates?currency=EUR': { fixture: 'coinbase/exchange-rates-eur.json' },
    });
    kraken = await startReplayServer({
      '/0/public/Ticker?pair=XBTUSD': { fixture: 'kraken/ticker-xbtusd.json' },
      '/0/public/Ticker?pair=ETHUSD': { status: 502, fixture: 'common/cloudflare-502.html' },
      '/0/public/Ticker?pair=EURUSD': { fixture: 'kraken/ticker-eurusd.json' },
    });
    coingecko = await startReplayServer({
      '/api/v3/simple/price?ids=bitcoin&vs_currencies=usd&precision=full': {
        fixture: 'coingecko/simple-price-bitcoin.json',
      },
      '/api/v3/simple/price?ids=ethereum&vs_currencies=usd&precision=full': { hang: true },
      '/api/v3/exchange_rates': { fixture: 'coingecko/exchange-rates.json' },
    });
  });
  afterAll(async () => {
    await Promise.all([coinbase.close(), kraken.close(), coingecko.close()]);
  });

  function service() {
    const clock = manualClock();
    const cfg = config({
      SVC_RATES_COINBASE_URL: coinbase.url,
      SVC_RATES_KRAKEN_URL: `${kraken.url}/`,
      SVC_RATES_COINGECKO_URL: `${coingecko.url}/api/v3`,
      SVC_RATES_TIMEOUT_MS: '300',
    });
    return { rates: createDefaultRatesService(cfg, clock), clock };
  }

  it('prices BTC in USD at the median of the three', async () => {
    const { rates, clock } = service();
    expect(await rates.getRate('BTC', 'USD', false)).toEqual({
      rate: '67012.355',
      source: 'median(coinbase,coingecko,kraken)',
      fetchedAt: clock.now(),
    });
  });

  it('prices through a Cloudflare error and a hanging feed with the one left', async () => {
    const { rates } = service();
    const started = Date.now();
    expect(await rates.getRate('ETH', 'USD', false)).toMatchObject({
      rate: '3012.4',
      source: 'median(coinbase)',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('crosses into EUR with each leg a median, exactly', async () => {
    const { rates } = service();
    // EUR: coinbase 1.08453, kraken 1.08464, coingecko 1.08454670961059139610915 → median 1.08454670961059139610915.
    const quote = await rates.getRate('BTC', 'EUR', false);
    expect(quote.source).toBe('median(coinbase,coingecko,kraken)');
    expect(quote.rate).toBe('61788.3530567908101445993');
    expect((await rates.getRate('USDC', 'EUR', false)).rate).toBe('0.92204419702591873012968');
  });

  it('answers rate_unavailable for a live price nobody has', async () => {
    const { rates } = service();
    const error = await rates.getRate('LTC', 'USD', false).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('rate_unavailable');
  });

  it('serves test mode from the configuration without the network', async () => {
    const { rates } = service();
    const before = coinbase.requests.length + kraken.requests.length + coingecko.requests.length;
    expect((await rates.getRate('BTC', 'USD', true)).rate).toBe('60000');
    expect(coinbase.requests.length + kraken.requests.length + coingecko.requests.length).toBe(before);
  });
});
