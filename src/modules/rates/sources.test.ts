import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { fixture, type ReplayServer, startReplayServer } from './fixtures/replay-server.ts';
import { httpGetText, parseJsonKeepingNumbers, RateSourceError } from './http.ts';
import { createRatesService } from './service.ts';
import { defaultTestRates } from './settings.ts';
import { createCoinbaseSource } from './sources/coinbase.ts';
import { createCoingeckoSource } from './sources/coingecko.ts';
import { createKrakenSource } from './sources/kraken.ts';

const TIMEOUT_MS = 300;

let server: ReplayServer;
beforeEach(async () => {
  server = await startReplayServer();
});
afterEach(async () => {
  await server.close();
});

/** Runs `promise`, expects a RateSourceError of `kind` whose message contains `text`. */
async function expectSourceError(promise: Promise<unknown>, kind: RateSourceError['kind'], text?: string) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RateSourceError);
  expect((error as RateSourceError).kind).toBe(kind);
  if (text !== undefined) expect((error as RateSourceError).message).toContain(text);
}

describe('bounded HTTP', () => {
  it('gives up on a server that never answers within the deadline', async () => {
    server.set('/hang', { hang: true });
    const started = Date.now();
    await expectSourceError(
      httpGetText(`${server.url}/hang`, { source: 't', timeoutMs: TIMEOUT_MS }),
      'timeout',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it('gives up on a body that never ends', async () => {
    server.set('/slow-body', { hangBody: true });
    await expectSourceError(
      httpGetText(`${server.url}/slow-body`, { source: 't', timeoutMs: TIMEOUT_MS }),
      'timeout',
    );
  });

  it('refuses a body over the size cap', async () => {
    server.set('/big', { body: `"${'x'.repeat(200_000)}"` });
    await expectSourceError(
      httpGetText(`${server.url}/big`, { source: 't', timeoutMs: 2000, maxBytes: 100_000 }),
      'too_large',
    );
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = await startReplayServer();
    const url = closed.url;
    await closed.close();
    await expectSourceError(httpGetText(`${url}/x`, { source: 't', timeoutMs: 2000 }), 'network');
  });

  it('does not follow redirects', async () => {
    server.set('/moved', { status: 301, body: '', headers: { location: 'http://169.254.169.254/' } });
    await expectSourceError(
      httpGetText(`${server.url}/moved`, { source: 't', timeoutMs: 2000 }),
      'http',
      'HTTP 301',
    );
  });

  it('keeps JSON numbers as their exact text', () => {
    const parsed = parseJsonKeepingNumbers(
      '{"a":67009.8031635729412345678,"b":[1e-7,-2,0],"c":"7 \\" 8","d":true,"e":null}',
      't',
    );
    expect(parsed).toEqual({
      a: '67009.8031635729412345678',
      b: ['1e-7', '-2', '0'],
      c: '7 " 8',
      d: true,
      e: null,
    });
    expect(() => parseJsonKeepingNumbers('{"a":1', 't')).toThrow(RateSourceError);
  });
});

describe('Coinbase source', () => {
  const source = () => createCoinbaseSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS });

  it('reads an asset from the spot price endpoint, as the exact string sent', async () => {
    server.set('/v2/prices/BTC-USD/spot', { fixture: 'coinbase/spot-btc-usd.json' });
    expect(await source().fetchUsdPrice('BTC')).toBe('67012.355');
    expect(server.requests[0]?.headers['user-agent']).toMatch(/^svc\//);
    expect(server.requests[0]?.headers.accept).toBe('application/json');
  });

  it('reads a fiat currency from the exchange-rates table (USD per one EUR)', async () => {
    server.set('/v2/exchange-rates?currency=EUR', { fixture: 'coinbase/exchange-rates-eur.json' });
    expect(await source().fetchUsdPrice('EUR')).toBe('1.08453');
  });

  it('refuses an answer for another pair than the one asked', async () => {
    server.set('/v2/prices/ETH-USD/spot', { fixture: 'coinbase/spot-wrong-pair.json' });
    await expectSourceError(source().fetchUsdPrice('ETH'), 'invalid_response', 'asked ETH-USD, got BTC-USD');
  });

  it('reports its error bodies', async () => {
    server.set('/v2/prices/BNB-USD/spot', { status: 404, fixture: 'coinbase/error-not-found.json' });
    await expectSourceError(source().fetchUsdPrice('BNB'), 'http', 'Invalid base currency');
    server.set('/v2/exchange-rates?currency=MMK', {
      status: 400,
      fixture: 'coinbase/error-invalid-currency.json',
    });
    await expectSourceError(source().fetchUsdPrice('MMK'), 'http', 'HTTP 400');
  });

  it('reports HTTP 429 with its retry-after, and HTTP 500', async () => {
    server.set('/v2/prices/BTC-USD/spot', {
      status: 429,
      fixture: 'coinbase/error-rate-limit.json',
      headers: { 'retry-after': '30' },
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 429 (retry-after 30)');
    server.set('/v2/prices/BTC-USD/spot', {
      status: 500,
      body: '{"errors":[{"id":"internal_server_error"}]}',
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 500');
  });

  it('reports a Cloudflare error page, whatever its status', async () => {
    server.set('/v2/prices/BTC-USD/spot', { status: 502, fixture: 'common/cloudflare-502.html' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'Bad gateway');
    server.set('/v2/prices/BTC-USD/spot', { status: 200, fixture: 'common/cloudflare-502.html' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'not JSON');
  });

  it('reports malformed JSON and unexpected shapes', async () => {
    server.set('/v2/prices/BTC-USD/spot', { fixture: 'coinbase/spot-truncated.json' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'not JSON');
    server.set('/v2/prices/BTC-USD/spot', {
      body: '{"data":{"amount":67012.35,"base":"BTC","currency":"USD"}}',
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'unexpected answer shape');
    server.set('/v2/exchange-rates?currency=EUR', {
      body: '{"data":{"currency":"EUR","rates":{"GBP":"0.84"}}}',
    });
    await expectSourceError(source().fetchUsdPrice('EUR'), 'invalid_response', 'no EUR to USD rate');
  });

  it('times out on a server that never answers', async () => {
    server.set('/v2/prices/BTC-USD/spot', { hang: true });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'timeout');
  });

  it('passes odd numbers through unchanged for the service to judge', async () => {
    server.set('/v2/prices/BTC-USD/spot', { fixture: 'coinbase/spot-negative.json' });
    expect(await source().fetchUsdPrice('BTC')).toBe('-67012.355');
  });
});

describe('Kraken source', () => {
  const source = () => createKrakenSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS });

  it("asks XBTUSD and reads the last trade under Kraken's own name XXBTZUSD", async () => {
    server.set('/0/public/Ticker?pair=XBTUSD', { fixture: 'kraken/ticker-xbtusd.json' });
    expect(await source().fetchUsdPrice('BTC')).toBe('67018.10000');
    server.set('/0/public/Ticker?pair=ETHUSD', { fixture: 'kraken/ticker-ethusd.json' });
    expect(await source().fetchUsdPrice('ETH')).toBe('3012.88000');
  });

  it('reads fiat pairs, inverting those quoted as USD/xxx exactly', async () => {
    server.set('/0/public/Ticker?pair=EURUSD', { fixture: 'kraken/ticker-eurusd.json' });
    expect(await source().fetchUsdPrice('EUR')).toBe('1.08464');
    server.set('/0/public/Ticker?pair=USDJPY', { fixture: 'kraken/ticker-usdjpy.json' });
    expect(await source().fetchUsdPrice('JPY')).toBe('0.00666222518321119253830779');
  });

  it('declines currencies it has no market for without asking', async () => {
    await expectSourceError(source().fetchUsdPrice('SEK'), 'unsupported');
    expect(server.requests).toHaveLength(0);
  });

  it('reports its error arrays, sent with HTTP 200', async () => {
    server.set('/0/public/Ticker?pair=BNBUSD', { fixture: 'kraken/error-unknown-pair.json' });
    await expectSourceError(source().fetchUsdPrice('BNB'), 'invalid_response', 'EQuery:Unknown asset pair');
    server.set('/0/public/Ticker?pair=XBTUSD', { fixture: 'kraken/error-unavailable.json' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'EService:Unavailable');
    server.set('/0/public/Ticker?pair=XBTUSD', {
      status: 429,
      fixture: 'kraken/error-too-many-requests.json',
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 429');
  });

  it('refuses an answer with more than one ticker', async () => {
    server.set('/0/public/Ticker?pair=XBTUSD', { fixture: 'kraken/ticker-two-pairs.json' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'expected one ticker');
  });

  it('reports HTTP 500, HTML pages and timeouts', async () => {
    server.set('/0/public/Ticker?pair=XBTUSD', {
      status: 500,
      body: 'Internal Server Error',
      contentType: 'text/plain',
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 500');
    server.set('/0/public/Ticker?pair=XBTUSD', { status: 520, fixture: 'common/cloudflare-502.html' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 520');
    server.set('/0/public/Ticker?pair=XBTUSD', { hang: true });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'timeout');
  });

  it('refuses a non-positive price on a pair it must invert', async () => {
    server.set('/0/public/Ticker?pair=USDJPY', {
      body: fixture('kraken/ticker-usdjpy.json').replace('"c":["150.100"', '"c":["0.000"'),
    });
    await expectSourceError(source().fetchUsdPrice('JPY'), 'invalid_response', 'non-positive');
  });
});

describe('CoinGecko source', () => {
  const source = (apiKey?: string) =>
    createCoingeckoSource({
      baseUrl: server.url,
      timeoutMs: TIMEOUT_MS,
      ...(apiKey === undefined ? {} : { apiKey }),
    });
  const btcPath = '/simple/price?ids=bitcoin&vs_currencies=usd&precision=full';

  it('reads simple/price by coin id, keeping the JSON number exact', async () => {
    server.set(btcPath, { fixture: 'coingecko/simple-price-bitcoin.json' });
    expect(await source().fetchUsdPrice('BTC')).toBe('67009.80316357294');
    // More digits than a double holds: a float would have lost them.
    server.set(btcPath, { fixture: 'coingecko/simple-price-bitcoin-long.json' });
    expect(await source().fetchUsdPrice('BTC')).toBe('67009.8031635729412345678');
    server.set('/simple/price?ids=tron&vs_currencies=usd&precision=full', {
      fixture: 'coingecko/simple-price-tron-small.json',
    });
    expect(await source().fetchUsdPrice('TRX')).toBe('1.2345e-1');
  });

  it('sends the demo API key when configured', async () => {
    server.set('/simple/price?ids=polygon-ecosystem-token&vs_currencies=usd&precision=full', {
      body: '{"polygon-ecosystem-token":{"usd":0.4812}}',
    });
    expect(await source('CG-demo').fetchUsdPrice('POL')).toBe('0.4812');
    expect(server.requests[0]?.headers['x-cg-demo-api-key']).toBe('CG-demo');
  });

  it('derives fiat from its BTC exchange-rate table exactly', async () => {
    server.set('/exchange_rates', { fixture: 'coingecko/exchange-rates.json' });
    expect(await source().fetchUsdPrice('EUR')).toBe('1.08454670961059139610915');
    expect(await source().fetchUsdPrice('KWD')).toBe('3.26157758800444599938905');
    await expectSourceError(source().fetchUsdPrice('SEK'), 'invalid_response', 'no SEK');
  });

  it('reports an empty answer for an id it does not know', async () => {
    server.set(btcPath, { fixture: 'coingecko/simple-price-empty.json' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'no USD price for BTC');
  });

  it('reports its rate limit, as JSON or as a Cloudflare page', async () => {
    server.set(btcPath, {
      status: 429,
      fixture: 'coingecko/error-rate-limit.json',
      headers: { 'retry-after': '119' },
    });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', "You've exceeded the Rate Limit");
    server.set(btcPath, { status: 200, fixture: 'coingecko/error-rate-limit.json' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', '429');
    server.set(btcPath, { status: 429, fixture: 'common/cloudflare-1015.html' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'You are being rate limited');
  });

  it('reports malformed JSON, HTTP 500 and timeouts', async () => {
    server.set(btcPath, { body: '{"bitcoin":{"usd":67009.8' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'invalid_response', 'not JSON');
    server.set(btcPath, { status: 500, body: '{"error":"Internal Server Error"}' });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'http', 'HTTP 500');
    server.set(btcPath, { hang: true });
    await expectSourceError(source().fetchUsdPrice('BTC'), 'timeout');
  });
});

describe('nonsense from a real feed never becomes a rate', () => {
  const cases: [string, string][] = [
    ['coinbase/spot-negative.json', 'negative'],
    ['coinbase/spot-zero.json', 'zero'],
    ['coinbase/spot-absurd.json', 'absurd'],
    ['coinbase/spot-not-a-number.json', 'NaN'],
  ];

  for (const [file, what] of cases) {
    it(`refuses a ${what} price and prices from the other feed`, async () => {
      server.set('/v2/prices/BTC-USD/spot', { fixture: file });
      server.set('/simple/price?ids=bitcoin&vs_currencies=usd&precision=full', {
        fixture: 'coingecko/simple-price-bitcoin.json',
      });
      const warnings: string[] = [];
      const rates = createRatesService({
        sources: [
          createCoinbaseSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS }),
          createCoingeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS }),
        ],
        testRates: defaultTestRates,
        clock: manualClock(),
        logger: { warn: (details) => warnings.push(String(details.source)) },
      });
      expect(await rates.getRate('BTC', 'USD', false)).toMatchObject({
        rate: '67009.80316357294',
        source: 'median(coingecko)',
      });
      expect(warnings).toEqual(['coinbase']);
    });
  }

  it('answers rate_unavailable when every feed answers nonsense', async () => {
    server.set('/v2/prices/BTC-USD/spot', { fixture: 'coinbase/spot-zero.json' });
    server.set('/simple/price?ids=bitcoin&vs_currencies=usd&precision=full', {
      fixture: 'coingecko/simple-price-negative.json',
    });
    const rates = createRatesService({
      sources: [
        createCoinbaseSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS }),
        createCoingeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS }),
      ],
      testRates: defaultTestRates,
      clock: manualClock(),
    });
    const error = await rates.getRate('BTC', 'USD', false).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('rate_unavailable');
  });
});
