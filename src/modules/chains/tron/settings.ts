import { chainNodeEnv } from '../node-env.ts';

/**
 * The environment of the tron chain. For live mode `SVC_CHAIN_TRON_…`, for test mode on Nile (or Shasta)
 * `SVC_TEST_CHAIN_TRON_…`:
 * - `RPC_URL`              one or more base URLs of java-tron's HTTP API (a full node's `:8090`, or TronGrid
 *                          `https://api.trongrid.io`), comma-separated; the first that answers is used, the others are
 *                          failovers. The solidity API is read under the same base (`/walletsolidity/…`), which a
 *                          full node and TronGrid both serve.
 * - `API_KEY`              sent as the `TRON-PRO-API-KEY` header (TronGrid rate-limits requests without one).
 * - `CONFIRMATIONS`        blocks on top before the watcher asks to credit (default SVC_CONFIRMATIONS, else 19); a
 *                          deposit is credited only once its block is also solidified (adapter `recheck`), whatever
 *                          this says.
 * - `POLL_MS`              how often the head is polled (default: the watcher's, half the 3 s block time).
 * - `RESOURCE_KEY`         hex private key of a wallet with TRX staked for energy (Stake 2.0) that delegates energy
 *                          and bandwidth to a deposit address for its USDT sweep and reclaims them after.
 * - `MAX_BURN_TRX`         the most TRX one sweep may burn for energy and bandwidth when no delegation covers it
 *                          (decimal TRX, default 30; 0 refuses burning: USDT sweeps then wait for energy).
 * - `SWEEP_EXPIRATION_SECONDS` how long a sweep's signed transactions stay valid after their reference block (default
 *                          3600, 30 to 86400: Tron refuses more than 24 h). They are re-sent as they are until then; a
 *                          new version is signed only after it, once the old one provably cannot land.
 * - `MAX_HEAD_AGE_SECONDS` /readyz reports the node as lagging when its head block is older (default 60: twenty block
 *                          times; 0 turns it off).
 * Shared: SVC_TRON_HTTP_TIMEOUT_MS (default 10000), SVC_TRON_HTTP_RETRIES (rounds over every URL, default 3).
 */

export interface TronChainSettings {
  chain: 'tron';
  isTest: boolean;
  rpcUrls: string[];
  apiKey: string | undefined;
  confirmations: number | undefined;
  pollIntervalMs: number | undefined;
  /** 32 bytes, or undefined: USDT sweeps burn TRX (within maxBurnSun). */
  resourceKey: Uint8Array | undefined;
  /** Sun. */
  maxBurnSun: bigint;
  maxHeadAgeSeconds: number;
  sweepExpirationSeconds: number;
}

export interface TronSettings {
  chains: TronChainSettings[];
  httpTimeoutMs: number;
  httpRetries: number;
}

function wholeNumber(name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(`${name}: must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/** Decimal TRX (at most 6 decimals) to sun, without a float. */
export function trxToSun(name: string, text: string): bigint {
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text);
  if (match === null)
    throw new Error(`${name}: must be an amount of TRX such as 30 or 12.5 (at most 6 decimals)`);
  const [, whole = '0', fraction = ''] = match;
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}

/** Reads every SVC_CHAIN_TRON_* / SVC_TEST_CHAIN_TRON_* variable and the shared SVC_TRON_*; throws naming the variable. */
export function parseTronSettings(env: Record<string, string | undefined>): TronSettings {
  const chains: TronChainSettings[] = [];
  for (const isTest of [false, true]) {
    const node = chainNodeEnv(env, 'tron', isTest);
    if (node === undefined) continue;
    const { prefix, get, rpcUrls } = node;
    const number = (name: string, min: number, max: number): number | undefined => {
      const text = get(name);
      return text === undefined ? undefined : wholeNumber(`${prefix}${name}`, text, min, max);
    };
    const keyText = get('RESOURCE_KEY');
    let resourceKey: Uint8Array | undefined;
    if (keyText !== undefined) {
      const hex = keyText.replace(/^0x/i, '');
      if (!/^[0-9a-fA-F]{64}$/.test(hex) || /^0+$/.test(hex)) {
        // Never echo the value: it is a private key.
        throw new Error(`${prefix}RESOURCE_KEY: must be a private key of 64 hex digits`);
      }
      resourceKey = Uint8Array.from(Buffer.from(hex, 'hex'));
    }
    const burnText = get('MAX_BURN_TRX');
    chains.push({
      chain: 'tron',
      isTest,
      rpcUrls,
      apiKey: get('API_KEY'),
      confirmations: number('CONFIRMATIONS', 1, 10_000),
      pollIntervalMs: number('POLL_MS', 50, 600_000),
      resourceKey,
      maxBurnSun: burnText === undefined ? 30_000_000n : trxToSun(`${prefix}MAX_BURN_TRX`, burnText),
      maxHeadAgeSeconds: number('MAX_HEAD_AGE_SECONDS', 0, 30 * 86_400) ?? 60,
      sweepExpirationSeconds: number('SWEEP_EXPIRATION_SECONDS', 30, 86_400) ?? 3600,
    });
  }
  const shared = (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? fallback : wholeNumber(name, text, min, max);
  };
  return {
    chains,
    httpTimeoutMs: shared('SVC_TRON_HTTP_TIMEOUT_MS', 10_000, 100, 600_000),
    httpRetries: shared('SVC_TRON_HTTP_RETRIES', 3, 1, 100),
  };
}
