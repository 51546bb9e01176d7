import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { getPricedAsset } from '../currencies.ts';
import { httpGetText, parseJson, RateSourceError } from '../http.ts';
import type { RateSource } from '../service.ts';

export interface CoinbaseSourceOptions {
  /** Default https://api.coinbase.com */
  baseUrl?: string;
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

/** GET /v2/prices/BTC-USD/spot → {"data":{"amount":"67012.355","base":"BTC","currency":"USD"}} */
const spotPrice = z.object({
  data: z.object({ amount: z.string(), base: z.string(), currency: z.string() }),
});

/** GET /v2/exchange-rates?currency=EUR → {"data":{"currency":"EUR","rates":{"USD":"1.0845…",…}}} (EUR's value in each) */
const exchangeRates = z.object({
  data: z.object({ currency: z.string(), rates: z.record(z.string(), z.string()) }),
});

/** Coinbase's error body: {"errors":[{"id":"not_found","message":"Invalid currency"}]} */
const errorBody = z.object({ errors: z.array(z.object({ id: z.string(), message: z.string() })).min(1) });

/**
 * Coinbase's public data API (no key): assets through the spot price endpoint, fiat through the exchange-rates
 * table, both quoted as decimal strings.
 */
export function createCoinbaseSource(options: CoinbaseSourceOptions): RateSource {
  const name = 'coinbase';
  const baseUrl = (options.baseUrl ?? 'https://api.coinbase.com').replace(/\/+$/, '');
  const http = {
    source: name,
    timeoutMs: options.timeoutMs,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  };

  function parse<T>(schema: z.ZodType<T>, text: string): T {
    const body = parseJson(text, name);
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    const error = errorBody.safeParse(body);
    const detail = error.success
      ? error.data.errors.map((e) => `${e.id}: ${e.message}`).join('; ')
      : 'unexpected answer shape';
    throw new RateSourceError(name, 'invalid_response', detail);
  }

  return {
    name,
    async fetchUsdPrice(code) {
      const asset = getPricedAsset(code);
      if (asset !== undefined) {
        const pair = `${encodeURIComponent(code)}-USD`;
        const { data } = parse(spotPrice, await httpGetText(`${baseUrl}/v2/prices/${pair}/spot`, http));
        // Coinbase has been known to answer for another pair than the one asked; never trust it blindly.
        if (data.base !== code || data.currency !== 'USD') {
          throw new RateSourceError(
            name,
            'invalid_response',
            `asked ${code}-USD, got ${data.base}-${data.currency}`,
          );
        }
        return data.amount;
      }
      const url = `${baseUrl}/v2/exchange-rates?currency=${encodeURIComponent(code)}`;
      const { data } = parse(exchangeRates, await httpGetText(url, http));
      const usd = data.rates.USD;
      if (data.currency !== code || usd === undefined) {
        throw new RateSourceError(name, 'invalid_response', `no ${code} to USD rate in the answer`);
      }
      return usd;
    },
  };
}
