import { describe, expect, it } from 'vitest';
import { parseTronSettings, trxToSun } from './settings.ts';

describe('tron settings', () => {
  it('is empty without an RPC URL, with the shared defaults', () => {
    expect(parseTronSettings({})).toEqual({ chains: [], httpTimeoutMs: 10_000, httpRetries: 3 });
  });

  it('reads live and test nodes with their own variables', () => {
    const key = `0x${'ab'.repeat(32)}`;
    const settings = parseTronSettings({
      SVC_CHAIN_TRON_RPC_URL: 'https://api.trongrid.io, http://127.0.0.1:8090',
      SVC_CHAIN_TRON_API_KEY: 'k-1',
      SVC_CHAIN_TRON_RESOURCE_KEY: key,
      SVC_CHAIN_TRON_MAX_BURN_TRX: '12.5',
      SVC_TEST_CHAIN_TRON_RPC_URL: 'https://nile.trongrid.io',
      SVC_TEST_CHAIN_TRON_MAX_HEAD_AGE_SECONDS: '0',
      SVC_TEST_CHAIN_TRON_SWEEP_EXPIRATION_SECONDS: '120',
      SVC_TRON_HTTP_RETRIES: '5',
    });
    expect(settings.httpRetries).toBe(5);
    const [live, test] = settings.chains;
    expect(live).toMatchObject({
      isTest: false,
      rpcUrls: ['https://api.trongrid.io', 'http://127.0.0.1:8090'],
      apiKey: 'k-1',
      maxBurnSun: 12_500_000n,
      maxHeadAgeSeconds: 60,
    });
    expect(Buffer.from(live?.resourceKey ?? []).toString('hex')).toBe('ab'.repeat(32));
    expect(test).toMatchObject({
      isTest: true,
      apiKey: undefined,
      resourceKey: undefined,
      maxBurnSun: 30_000_000n,
    });
    expect(test?.maxHeadAgeSeconds).toBe(0);
    expect(test?.sweepExpirationSeconds).toBe(120);
    expect(live?.sweepExpirationSeconds).toBe(3600);
  });

  it('refuses bad values naming the variable, never echoing a key', () => {
    const base = { SVC_CHAIN_TRON_RPC_URL: 'http://127.0.0.1:8090' };
    expect(() => parseTronSettings({ ...base, SVC_CHAIN_TRON_RESOURCE_KEY: 'secretsecret' })).toThrow(
      /^SVC_CHAIN_TRON_RESOURCE_KEY: must be a private key of 64 hex digits$/,
    );
    expect(() => parseTronSettings({ ...base, SVC_CHAIN_TRON_MAX_BURN_TRX: '1.1234567' })).toThrow(
      /SVC_CHAIN_TRON_MAX_BURN_TRX/,
    );
    expect(() => parseTronSettings({ ...base, SVC_CHAIN_TRON_POLL_MS: '1' })).toThrow(
      /SVC_CHAIN_TRON_POLL_MS/,
    );
    expect(() => parseTronSettings({ SVC_CHAIN_TRON_RPC_URL: 'ftp://x' })).toThrow(/SVC_CHAIN_TRON_RPC_URL/);
  });

  it('trxToSun is exact', () => {
    expect(trxToSun('X', '0')).toBe(0n);
    expect(trxToSun('X', '0.000001')).toBe(1n);
    expect(trxToSun('X', '100000000000')).toBe(100_000_000_000_000_000n);
  });
});
