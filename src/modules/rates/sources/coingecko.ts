import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { divideRatios, parseDecimalRatio, ratioToDecimal } from '../../../lib/money.ts';
import { getPricedAsset } from '../currencies.ts';
import { httpGetText, parseJsonKeepingNumbers, RateSourceError } from '../http.ts';
import type { RateSource } from '../service.ts';

export interface CoingeckoSourceOptions {
  /** Default https://api.coingecko.com/api/v3 */
  baseUrl?: string;
  timeoutMs: number;
  /** A CoinGecko demo API key, sent as x-cg-demo-api-key; the keyless public API allows only a few calls a minute. */
  apiKey?: string;
  dispatcher?: Dispatcher;
}

/** GET /simple/price?ids=bitcoin&vs_currencies=usd → {"bitcoin":{"usd":67012.35}}; an unknown id gives {}. */
const simplePrice = z.record(z.string(), z.record(z.string(), z.string()));

/**
 * GET /exchange_rates → {"rates":{"btc":{"name":"Bitcoin","unit":"BTC","value":1,"type":"crypto"},
 * "usd":{…,"value":67012.354,"type":"fiat"},"eur":{…}}}: each currency per one bitcoin.
 */
const exchangeRates = z.object({
  rates: z.record(z.string(), z.object({ value: z.string(), type: z.string() })),
});

/** CoinGecko's error body: {"status":{"error_code":429,"error_message":"You've exceeded the Rate Limit…"}} */
const errorBody = z.object({ status: z.object({ error_code: z.string(), error_message: z.string() }) });

/**
 * CoinGecko's public API. Its prices are JSON numbers, read here as their exact text (never as doubles). Fiat values
 * come from its BTC exchange-rate table: USD per EUR = (USD per BTC) / (EUR per BTC).
 */
export function createCoingeckoSource(options: CoingeckoSourceOptions): RateSource {
  const name = 'coingecko';
  const baseUrl = (options.baseUrl ?? 'https://api.coingecko.com/api/v3').replace(/\/+$/, '');
  const http = {
    source: name,
    timeoutMs: options.timeoutMs,
    ...(options.apiKey === undefined ? {} : { headers: { 'x-cg-demo-api-key': options.apiKey } }),
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  };

  function parse<T>(schema: z.ZodType<T>, text: string): T {
    const body = parseJsonKeepingNumbers(text, name);
    const error = errorBody.safeParse(body);
    if (error.success) {
      throw new RateSourceError(
        name,
        'invalid_response',
        `${error.data.status.error_code}: ${error.data.status.error_message}`,
      );
    }
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new RateSourceError(name, 'invalid_response', 'unexpected answer shape');
    return parsed.data;
  }

  return {
    name,
    async fetchUsdPrice(code) {
      const asset = getPricedAsset(code);
      if (asset !== undefined) {
        if (asset.coingecko === undefined) {
          throw new RateSourceError(name, 'unsupported', `no CoinGecko id for ${code}`);
        }
        const id = encodeURIComponent(asset.coingecko);
        const url = `${baseUrl}/simple/price?ids=${id}&vs_currencies=usd&precision=full`;
        const prices = parse(simplePrice, await httpGetText(url, http));
        const usd = prices[asset.coingecko]?.usd;
        if (usd === undefined)
          throw new RateSourceError(name, 'invalid_response', `no USD price for ${code}`);
        return usd;
      }
      const { rates } = parse(exchangeRates, await httpGetText(`${baseUrl}/exchange_rates`, http));
      const usdPerBtc = rates.usd;
      const fiatPerBtc = rates[code.toLowerCase()];
      if (usdPerBtc === undefined || fiatPerBtc === undefined || fiatPerBtc.type !== 'fiat') {
        throw new RateSourceError(name, 'invalid_response', `no ${code} in the exchange-rate table`);
      }
      const usd = parseDecimalRatio(usdPerBtc.value);
      const fiat = parseDecimalRatio(fiatPerBtc.value);
      if (usd.num <= 0n || fiat.num <= 0n) {
        throw new RateSourceError(name, 'invalid_response', `non-positive rate for ${code}`);
      }
      return ratioToDecimal(divideRatios(usd, fiat));
    },
  };
}
