import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../../test/support/harness.ts';
import { redactUrl } from '../rpc-url.ts';
import { parseEvmChainSettings } from './settings.ts';

describe('EVM chain settings from the environment', () => {
  it('reads live and test-network nodes per chain, with failover URLs and defaults', () => {
    const chains = parseEvmChainSettings({
      SVC_CHAIN_ETHEREUM_RPC_URL: 'https://a.example/key1, https://b.example',
      SVC_CHAIN_ETHEREUM_MAX_FEE_GWEI: '80.5',
      SVC_CHAIN_ETHEREUM_FINALITY: 'finalized',
      SVC_TEST_CHAIN_BASE_RPC_URL: 'http://127.0.0.1:8545',
      SVC_TEST_CHAIN_BASE_CHAIN_ID: '31337',
      SVC_TEST_CHAIN_BASE_POLL_MS: '250',
      SVC_TEST_CHAIN_BASE_TRACE: 'trace',
      SVC_TEST_CHAIN_BASE_REFUND_WALLET: 'on',
    });
    expect(chains).toEqual([
      {
        chain: 'ethereum',
        isTest: false,
        rpcUrls: ['https://a.example/key1', 'https://b.example'],
        gasKey: undefined,
        refundWallet: false,
        refundKey: undefined,
        chainId: undefined,
        maxFeePerGasWei: 80_500_000_000n,
        finality: 'finalized',
        trace: 'auto',
        pollIntervalMs: undefined,
      },
      {
        chain: 'base',
        isTest: true,
        rpcUrls: ['http://127.0.0.1:8545'],
        gasKey: undefined,
        refundWallet: true,
        refundKey: undefined,
        chainId: 31337,
        maxFeePerGasWei: 10_000_000_000n,
        finality: 'confirmations',
        trace: 'trace',
        pollIntervalMs: 250,
      },
    ]);
  });

  it.each([
    [{ SVC_CHAIN_POLYGON_RPC_URL: 'ftp://x' }, /SVC_CHAIN_POLYGON_RPC_URL/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_GAS_KEY: '0x12' }, /SVC_CHAIN_BSC_GAS_KEY/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_MAX_FEE_GWEI: '0' }, /MAX_FEE_GWEI/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_FINALITY: 'safe' }, /FINALITY/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_TRACE: 'yes' }, /TRACE/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_POLL_MS: '10' }, /POLL_MS/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_REFUND_WALLET: 'maybe' }, /REFUND_WALLET/],
    [{ SVC_CHAIN_BSC_RPC_URL: 'https://x', SVC_CHAIN_BSC_REFUND_KEY: '0x12' }, /SVC_CHAIN_BSC_REFUND_KEY/],
    [
      {
        SVC_CHAIN_BSC_RPC_URL: 'https://x',
        SVC_CHAIN_BSC_REFUND_KEY: `0x${'11'.repeat(32)}`,
        SVC_CHAIN_BSC_REFUND_WALLET: 'off',
      },
      /REFUND_WALLET is off/,
    ],
  ])('refuses a bad value and names the variable (%o)', (env, message) => {
    expect(() => parseEvmChainSettings(env)).toThrow(message);
  });

  it('turns the refund wallet on with a key of its own', () => {
    const key = `0x${'22'.repeat(32)}`;
    const [settings] = parseEvmChainSettings({
      SVC_CHAIN_POLYGON_RPC_URL: 'https://x',
      SVC_CHAIN_POLYGON_REFUND_KEY: key,
    });
    expect(settings).toMatchObject({ chain: 'polygon', refundWallet: true, refundKey: key });
  });

  it('stops the program at boot with the variable named', () => {
    expect(() => testConfig({ SVC_CHAIN_ARBITRUM_RPC_URL: 'not a url' })).toThrow(
      /SVC_CHAIN_ARBITRUM_RPC_URL/,
    );
    expect(testConfig().evm.chains).toEqual([]);
  });

  it('never logs a URL path or query (they hold API keys)', () => {
    expect(redactUrl('https://eth-mainnet.example/v2/SECRET?key=x')).toBe('https://eth-mainnet.example/…');
    expect(redactUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
  });
});
