import type { Dispatcher } from 'undici';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { createRatesService, type RateSource, type RatesLogger, type RatesService } from './service.ts';
import type { RateSourceName } from './settings.ts';
import { createCoinbaseSource } from './sources/coinbase.ts';
import { createCoingeckoSource } from './sources/coingecko.ts';
import { createKrakenSource } from './sources/kraken.ts';

export type { RatesService } from './service.ts';

/** The real price sources named in the configuration, in its order. */
function createConfiguredSources(
  rates: Config['rates'],
  options: { dispatcher?: Dispatcher } = {},
): RateSource[] {
  const common = {
    timeoutMs: rates.timeoutMs,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  };
  const build: Record<RateSourceName, () => RateSource> = {
    coinbase: () => createCoinbaseSource({ ...common, baseUrl: rates.coinbaseUrl }),
    kraken: () => createKrakenSource({ ...common, baseUrl: rates.krakenUrl }),
    coingecko: () =>
      createCoingeckoSource({
        ...common,
        baseUrl: rates.coingeckoUrl,
        ...(rates.coingeckoApiKey === undefined ? {} : { apiKey: rates.coingeckoApiKey }),
      }),
  };
  return rates.sources.map((name) => build[name]());
}

/** The pricing service as the program runs it: fixed test rates, and the configured public sources for live. */
export function createDefaultRatesService(
  config: Config,
  clock: Clock,
  options: { logger?: RatesLogger; dispatcher?: Dispatcher } = {},
): RatesService {
  return createRatesService({
    sources: createConfiguredSources(config.rates, options),
    testRates: config.rates.testRates,
    clock,
    cacheTtlMs: config.rates.cacheTtlMs,
    maxStaleMs: config.rates.maxStaleMs,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
}
