import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { divideRatios, parseDecimalRatio, ratioToDecimal } from '../../../lib/money.ts';
import { getPricedAsset } from '../currencies.ts';
import { httpGetText, parseJson, RateSourceError } from '../http.ts';
import type { RateSource } from '../service.ts';

export interface KrakenSourceOptions {
  /** Default https://api.kraken.com */
  baseUrl?: string;
  timeoutMs: number;
  dispatcher?: Dispatcher;
}

/**
 * GET /0/public/Ticker?pair=XBTUSD → {"error":[],"result":{"XXBTZUSD":{"a":[…],"b":[…],"c":["67012.40000","0.0003"],…}}}
 * Kraken answers under its own pair name (XBTUSD → XXBTZUSD, ETHUSD → XETHZUSD, SOLUSD → SOLUSD), so the one entry
 * of `result` is taken whatever its key. `c` is the last trade: [price, lot volume]. Errors come as HTTP 200 with
 * {"error":["EQuery:Unknown asset pair"]}.
 */
const ticker = z.object({
  error: z.array(z.string()),
  result: z.record(z.string(), z.object({ c: z.tuple([z.string(), z.string()]) })).optional(),
});

/** Fiat currencies Kraken trades against the dollar, and whether the pair is quoted the other way round. */
const fiatPairs: Readonly<Record<string, { pair: string; inverted: boolean }>> = {
  EUR: { pair: 'EURUSD', inverted: false },
  GBP: { pair: 'GBPUSD', inverted: false },
  AUD: { pair: 'AUDUSD', inverted: false },
  CAD: { pair: 'USDCAD', inverted: true },
  CHF: { pair: 'USDCHF', inverted: true },
  JPY: { pair: 'USDJPY', inverted: true },
};

/** Kraken's public market data (no key): the last trade price of the asset's or currency's pair with USD. */
export function createKrakenSource(options: KrakenSourceOptions): RateSource {
  const name = 'kraken';
  const baseUrl = (options.baseUrl ?? 'https://api.kraken.com').replace(/\/+$/, '');
  const http = {
    source: name,
    timeoutMs: options.timeoutMs,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
  };

  async function lastTrade(pair: string): Promise<string> {
    const text = await httpGetText(`${baseUrl}/0/public/Ticker?pair=${encodeURIComponent(pair)}`, http);
    const parsed = ticker.safeParse(parseJson(text, name));
    if (!parsed.success) throw new RateSourceError(name, 'invalid_response', 'unexpected answer shape');
    const { error, result } = parsed.data;
    if (error.length > 0) throw new RateSourceError(name, 'invalid_response', error.join('; '));
    const entries = Object.values(result ?? {});
    const only = entries[0];
    if (entries.length !== 1 || only === undefined) {
      throw new RateSourceError(
        name,
        'invalid_response',
        `expected one ticker for ${pair}, got ${entries.length}`,
      );
    }
    return only.c[0];
  }

  return {
    name,
    async fetchUsdPrice(code) {
      const asset = getPricedAsset(code);
      if (asset !== undefined) {
        if (asset.kraken === undefined)
          throw new RateSourceError(name, 'unsupported', `no Kraken market for ${code}`);
        return lastTrade(`${asset.kraken}USD`);
      }
      const fiat = fiatPairs[code];
      if (fiat === undefined) throw new RateSourceError(name, 'unsupported', `no Kraken market for ${code}`);
      const price = await lastTrade(fiat.pair);
      if (!fiat.inverted) return price;
      const value = parseDecimalRatio(price);
      if (value.num <= 0n) throw new RateSourceError(name, 'invalid_response', `non-positive price ${price}`);
      return ratioToDecimal(divideRatios({ num: 1n, den: 1n }, value));
    },
  };
}
