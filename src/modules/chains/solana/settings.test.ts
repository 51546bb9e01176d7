import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { parseSolanaChainSettings, parseSolanaSecretKey } from './settings.ts';

const seed = new Uint8Array(randomBytes(32));
const secret = new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]);

describe('solana settings', () => {
  it('is off without an RPC URL; reads each mode with its defaults', () => {
    expect(parseSolanaChainSettings({})).toEqual([]);
    const [live, test] = parseSolanaChainSettings({
      SVC_CHAIN_SOLANA_RPC_URL: 'https://a.example/?key=1, https://b.example',
      SVC_TEST_CHAIN_SOLANA_RPC_URL: 'http://127.0.0.1:8899',
      SVC_TEST_CHAIN_SOLANA_CONFIRMATIONS: '4',
    });
    expect(live).toMatchObject({
      chain: 'solana',
      isTest: false,
      rpcUrls: ['https://a.example/?key=1', 'https://b.example'],
      genesisHash: undefined,
      confirmations: undefined,
      pollIntervalMs: 1000,
      wsUrl: undefined,
      wsPollIntervalMs: 10_000,
      feePayerKey: undefined,
      maxPriorityFee: 100_000n,
      feePayerMinLamports: 50_000_000n,
      maxSlotsBehind: 150,
      rpcTimeoutMs: 10_000,
      rpcRetries: 3,
    });
    expect(test).toMatchObject({ isTest: true, confirmations: 4 });
  });

  it("reads the node's WebSocket (ws:// or wss://) and the safety net's interval while it delivers", () => {
    const [live, test] = parseSolanaChainSettings({
      SVC_CHAIN_SOLANA_RPC_URL: 'https://rpc.example/?api-key=k',
      SVC_CHAIN_SOLANA_WS_URL: 'wss://rpc.example/?api-key=k',
      SVC_TEST_CHAIN_SOLANA_RPC_URL: 'http://127.0.0.1:8899',
      SVC_TEST_CHAIN_SOLANA_WS_URL: 'ws://127.0.0.1:8900',
      SVC_TEST_CHAIN_SOLANA_POLL_MS: '20000',
      SVC_TEST_CHAIN_SOLANA_WS_POLL_MS: '60000',
    });
    expect(live).toMatchObject({ wsUrl: 'wss://rpc.example/?api-key=k', wsPollIntervalMs: 10_000 });
    expect(test).toMatchObject({
      wsUrl: 'ws://127.0.0.1:8900',
      pollIntervalMs: 20_000,
      wsPollIntervalMs: 60_000,
    });
    // The default safety net is never faster than POLL_MS.
    const [slow] = parseSolanaChainSettings({
      SVC_CHAIN_SOLANA_RPC_URL: 'http://x',
      SVC_CHAIN_SOLANA_WS_URL: 'ws://x',
      SVC_CHAIN_SOLANA_POLL_MS: '30000',
    });
    expect(slow?.wsPollIntervalMs).toBe(30_000);
  });

  it('refuses a WebSocket URL that is not one ws:// or wss:// URL by name, without its secrets', () => {
    const bad = (env: Record<string, string>) => () =>
      parseSolanaChainSettings({ SVC_TEST_CHAIN_SOLANA_RPC_URL: 'http://x', ...env });
    for (const url of [
      'https://rpc.example/?api-key=secret',
      'rpc.example:8900',
      'ws://',
      'ws://a, ws://b',
    ]) {
      expect(bad({ SVC_TEST_CHAIN_SOLANA_WS_URL: url })).toThrow(
        /^SVC_TEST_CHAIN_SOLANA_WS_URL: .* is not one ws:\/\/ or wss:\/\/ URL$/,
      );
    }
    try {
      bad({ SVC_TEST_CHAIN_SOLANA_WS_URL: 'https://rpc.example/?api-key=secret' })();
    } catch (error) {
      expect(String(error)).not.toContain('secret');
    }
    expect(bad({ SVC_TEST_CHAIN_SOLANA_WS_POLL_MS: '5000' })).toThrow(
      'SVC_TEST_CHAIN_SOLANA_WS_POLL_MS: set without SVC_TEST_CHAIN_SOLANA_WS_URL',
    );
    expect(bad({ SVC_TEST_CHAIN_SOLANA_WS_URL: 'ws://x', SVC_TEST_CHAIN_SOLANA_WS_POLL_MS: 'slow' })).toThrow(
      /SVC_TEST_CHAIN_SOLANA_WS_POLL_MS: must be a whole number/,
    );
  });

  it('takes the fee payer key as base58 or a solana-keygen JSON array, and keeps only its seed', () => {
    const fromBase58 = parseSolanaChainSettings({
      SVC_CHAIN_SOLANA_RPC_URL: 'http://x',
      SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(secret),
    });
    expect(fromBase58[0]?.feePayerKey).toEqual(seed);
    expect(parseSolanaSecretKey(JSON.stringify([...secret]), 'K')).toEqual(seed);
  });

  it('refuses a malformed or mismatched key without echoing it, and bad numbers, naming the variable', () => {
    const wrongHalf = new Uint8Array(secret);
    wrongHalf[40] = (wrongHalf[40] ?? 0) ^ 1;
    const bad = (env: Record<string, string>) => () =>
      parseSolanaChainSettings({ SVC_CHAIN_SOLANA_RPC_URL: 'http://x', ...env });
    expect(bad({ SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(wrongHalf) })).toThrow(
      /SVC_CHAIN_SOLANA_FEE_PAYER_KEY: the public half/,
    );
    expect(bad({ SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(seed) })).toThrow(/64 bytes, this one 32/);
    expect(bad({ SVC_CHAIN_SOLANA_FEE_PAYER_KEY: 'not-base58-0OIl' })).toThrow(/not a base58 secret key/);
    try {
      bad({ SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(wrongHalf) })();
    } catch (error) {
      expect(String(error)).not.toContain(base58.encode(wrongHalf));
    }
    expect(bad({ SVC_CHAIN_SOLANA_CONFIRMATIONS: '0' })).toThrow(/SVC_CHAIN_SOLANA_CONFIRMATIONS/);
    expect(bad({ SVC_CHAIN_SOLANA_POLL_MS: 'fast' })).toThrow(/SVC_CHAIN_SOLANA_POLL_MS/);
    expect(bad({ SVC_CHAIN_SOLANA_GENESIS_HASH: 'xyz!' })).toThrow(/SVC_CHAIN_SOLANA_GENESIS_HASH/);
    expect(() => parseSolanaChainSettings({ SVC_CHAIN_SOLANA_RPC_URL: 'ws://x' })).toThrow(/not an http/);
  });
});
