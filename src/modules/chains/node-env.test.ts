import { describe, expect, it } from 'vitest';
import { chainNodeEnv, liveNodeWithoutSeed } from './node-env.ts';

describe('chain node variables', () => {
  it('reads a chain’s node per mode, failover URLs in order, and names a bad URL without its secrets', () => {
    const env = {
      SVC_CHAIN_LITECOIN_RPC_URL: ' https://a.example/key1 , http://u:p@b.example:9332 ',
      SVC_CHAIN_LITECOIN_CONFIRMATIONS: ' 6 ',
      SVC_TEST_CHAIN_LITECOIN_RPC_URL: '',
    };
    const live = chainNodeEnv(env, 'litecoin', false);
    expect(live?.prefix).toBe('SVC_CHAIN_LITECOIN_');
    expect(live?.rpcUrls).toEqual(['https://a.example/key1', 'http://u:p@b.example:9332']);
    expect(live?.get('CONFIRMATIONS')).toBe('6');
    expect(live?.get('MISSING')).toBeUndefined();
    expect(chainNodeEnv(env, 'litecoin', true)).toBeUndefined();
    expect(() =>
      chainNodeEnv({ SVC_TEST_CHAIN_BASE_RPC_URL: 'ws://x.example/secret' }, 'base', true),
    ).toThrow('SVC_TEST_CHAIN_BASE_RPC_URL: "ws://x.example/…" is not an http:// or https:// URL');
  });

  it('turns a live node off, with a warning, while no live seed is set', () => {
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) };
    expect(liveNodeWithoutSeed({ chain: 'bitcoin', isTest: false }, undefined, logger)).toBe(true);
    expect(warnings).toHaveLength(1);
    expect(liveNodeWithoutSeed({ chain: 'bitcoin', isTest: false }, 'words', logger)).toBe(false);
    expect(liveNodeWithoutSeed({ chain: 'bitcoin', isTest: true }, undefined, logger)).toBe(false);
    expect(warnings).toHaveLength(1);
  });
});
