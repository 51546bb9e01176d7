import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { chainNodeEnv } from '../node-env.ts';
import { redactUrl } from '../rpc-url.ts';

/**
 * The environment of the solana chain: for live mode `SVC_CHAIN_SOLANA_…`, for test mode on a real test cluster
 * (devnet, or a local validator) `SVC_TEST_CHAIN_SOLANA_…`:
 * - `RPC_URL`           one or more JSON-RPC URLs, comma-separated; the first that answers is used, the others are
 *                       failovers (and take over while one answers 429). Live mode is on only with this (and
 *                       SVC_MNEMONIC); test mode uses the simulator unless its test variable is set.
 * - `GENESIS_HASH`      the cluster the node must be on (`getGenesisHash`). Default: live mode mainnet-beta's
 *                       (5eykt4…2N9d); test mode anything but mainnet-beta's. Setting it lets a local validator or a
 *                       test RPC stand in for mainnet (end-to-end tests).
 * - `CONFIRMATIONS`     blocks counted on the `confirmed` commitment (its own block counts as 1) before a deposit is
 *                       re-checked at `finalized` and credited; default SVC_CONFIRMATIONS, else the registry's (32).
 * - `POLL_MS`           how often the confirmed slot is polled and new blocks scanned (default 1000).
 * - `WS_URL`            the node's PubSub WebSocket (ws:// or wss://; a local validator's is its RPC port + 1, e.g.
 *                       ws://127.0.0.1:8900; providers give a wss:// URL beside the https:// one): `slotSubscribe`
 *                       notifications wake the scan at once (slots.ts). Optional: without it the node is polled only.
 * - `WS_POLL_MS`        the safety net's interval while the socket delivers slots (default the larger of 10000 and
 *                       POLL_MS); POLL_MS applies while it does not.
 * - `FEE_PAYER_KEY`     the account that pays sweeps' fees (and the payout's token account rent when missing): a
 *                       base58 64-byte secret key (as wallets export it) or the JSON array of a solana-keygen file.
 *                       Unset: derived from the mode's mnemonic at the last index (m/44'/501'/2147483647'/0'), as the
 *                       EVM gas wallet is; its address and balance are in the start-up log.
 * - `MAX_PRIORITY_FEE`  micro-lamports per compute unit a sweep pays at most (the 75th percentile of
 *                       getRecentPrioritizationFees, capped at this; default 100000, i.e. ≤ 6,000 lamports for a
 *                       token sweep's 60,000 compute units).
 * - `FEE_PAYER_MIN_LAMPORTS` below this the fee payer's balance is reported on /readyz and in the log (default
 *                       50,000,000: 0.05 SOL).
 * - `MAX_SLOTS_BEHIND`  /readyz reports the node as behind past this many slots (getHealth; default 150).
 * - `RPC_TIMEOUT_MS`    per request (default 10000); `RPC_RETRIES` rounds over every URL (default 3).
 */

export interface SolanaChainSettings {
  chain: 'solana';
  isTest: boolean;
  rpcUrls: string[];
  genesisHash: string | undefined;
  confirmations: number | undefined;
  pollIntervalMs: number;
  /** The node's PubSub WebSocket URL; undefined: no socket, polling only. */
  wsUrl: string | undefined;
  /** The polling interval while the socket delivers slot notifications (they wake the scan in between). */
  wsPollIntervalMs: number;
  /** The fee payer's 32-byte ed25519 seed; undefined: derived from the mode's mnemonic. */
  feePayerKey: Uint8Array | undefined;
  maxPriorityFee: bigint;
  feePayerMinLamports: bigint;
  maxSlotsBehind: number;
  rpcTimeoutMs: number;
  rpcRetries: number;
}

export interface SolanaSettings {
  chains: SolanaChainSettings[];
}

export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

/** Deposit addresses one sweep transaction takes (its 1,232 bytes hold the fee payer, 4 deposits and their accounts). */
export const MAX_FORWARD_INPUTS = 4;

function wholeNumber(prefix: string, name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(`${prefix}${name}: must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/**
 * A Solana secret key as wallets and solana-keygen write it: 64 bytes (the ed25519 seed, then its public key), in
 * base58 or as a JSON array of numbers. Returns the seed; throws (never echoing the key) when malformed or when the
 * public half does not belong to the seed.
 */
export function parseSolanaSecretKey(text: string, name: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    if (text.startsWith('[')) {
      const list = JSON.parse(text) as unknown;
      if (!Array.isArray(list) || !list.every((n) => Number.isInteger(n) && n >= 0 && n <= 255))
        throw new Error('not bytes');
      bytes = Uint8Array.from(list as number[]);
    } else {
      bytes = base58.decode(text);
    }
  } catch {
    throw new Error(`${name}: not a base58 secret key nor a JSON array of bytes`);
  }
  if (bytes.length !== 64)
    throw new Error(`${name}: a Solana secret key has 64 bytes, this one ${bytes.length}`);
  const seed = bytes.slice(0, 32);
  const publicKey = ed25519.getPublicKey(seed);
  if (!publicKey.every((byte, index) => byte === bytes[32 + index])) {
    throw new Error(`${name}: the public half of the key does not belong to its secret half`);
  }
  return seed;
}

/**
 * One ws:// or wss:// URL with a host (a provider's API key may sit in its path or query): refused naming the variable,
 * the URL redacted.
 */
function parseWsUrl(prefix: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(text);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || !/^wss?:$/.test(parsed.protocol) || parsed.host === '' || /[\s,]/.test(text)) {
    throw new Error(`${prefix}WS_URL: "${redactUrl(text)}" is not one ws:// or wss:// URL`);
  }
  return text;
}

/** Reads every SVC_CHAIN_SOLANA_* / SVC_TEST_CHAIN_SOLANA_* variable; throws an Error naming the variable. */
export function parseSolanaChainSettings(env: Record<string, string | undefined>): SolanaChainSettings[] {
  const out: SolanaChainSettings[] = [];
  for (const isTest of [false, true]) {
    const node = chainNodeEnv(env, 'solana', isTest);
    if (node === undefined) continue;
    const { prefix, get, rpcUrls } = node;
    const number = (name: string, fallback: number, min: number, max: number): number => {
      const text = get(name);
      return text === undefined ? fallback : wholeNumber(prefix, name, text, min, max);
    };
    const genesisHash = get('GENESIS_HASH');
    if (genesisHash !== undefined && !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(genesisHash)) {
      throw new Error(`${prefix}GENESIS_HASH: not a base58 hash`);
    }
    const keyText = get('FEE_PAYER_KEY');
    const confirmationsText = get('CONFIRMATIONS');
    const pollIntervalMs = number('POLL_MS', 1000, 50, 600_000);
    const wsUrl = parseWsUrl(prefix, get('WS_URL'));
    if (wsUrl === undefined && get('WS_POLL_MS') !== undefined) {
      throw new Error(`${prefix}WS_POLL_MS: set without ${prefix}WS_URL`);
    }
    out.push({
      chain: 'solana',
      isTest,
      rpcUrls,
      genesisHash,
      confirmations:
        confirmationsText === undefined
          ? undefined
          : wholeNumber(prefix, 'CONFIRMATIONS', confirmationsText, 1, 10_000),
      pollIntervalMs,
      wsUrl,
      wsPollIntervalMs: number('WS_POLL_MS', Math.max(10_000, pollIntervalMs), 50, 600_000),
      feePayerKey:
        keyText === undefined ? undefined : parseSolanaSecretKey(keyText, `${prefix}FEE_PAYER_KEY`),
      maxPriorityFee: BigInt(number('MAX_PRIORITY_FEE', 100_000, 0, 1_000_000_000)),
      feePayerMinLamports: BigInt(number('FEE_PAYER_MIN_LAMPORTS', 50_000_000, 0, 1_000_000_000_000)),
      maxSlotsBehind: number('MAX_SLOTS_BEHIND', 150, 1, 1_000_000),
      rpcTimeoutMs: number('RPC_TIMEOUT_MS', 10_000, 100, 120_000),
      rpcRetries: number('RPC_RETRIES', 3, 1, 20),
    });
  }
  return out;
}
