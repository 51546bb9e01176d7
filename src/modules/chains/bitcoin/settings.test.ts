import { describe, expect, it } from 'vitest';
import { addressSpelling, parseBitcoinChainSettings, testAddressSpelling } from './settings.ts';

describe('Bitcoin-family chain settings from the environment', () => {
  it('reads live and test-network nodes per chain, with failover URLs and documented defaults', () => {
    const chains = parseBitcoinChainSettings({
      SVC_CHAIN_BITCOIN_RPC_URL: 'http://u:p@10.0.0.1:8332, http://u:p@10.0.0.2:8332',
      SVC_CHAIN_BITCOIN_MAX_FEE_RATE: '80',
      SVC_CHAIN_BITCOIN_SWEEP_BATCH: '20',
      SVC_TEST_CHAIN_LITECOIN_RPC_URL: 'http://127.0.0.1:19443',
      SVC_TEST_CHAIN_LITECOIN_RPC_COOKIE_FILE: '/var/lib/litecoind/regtest/.cookie',
      SVC_TEST_CHAIN_LITECOIN_CONFIRMATIONS: '1',
      SVC_TEST_CHAIN_LITECOIN_NETWORK: 'regtest',
      SVC_TEST_CHAIN_LITECOIN_POLL_MS: '250',
      SVC_TEST_CHAIN_LITECOIN_MAX_HEAD_AGE_SECONDS: '0',
    });
    expect(chains).toEqual([
      {
        chain: 'bitcoin',
        isTest: false,
        rpcUrls: ['http://u:p@10.0.0.1:8332', 'http://u:p@10.0.0.2:8332'],
        cookieFile: undefined,
        network: undefined,
        confirmations: undefined,
        pollIntervalMs: 1000,
        zmqUrls: [],
        zmqPollIntervalMs: 10_000,
        minFeeRate: 1n,
        maxFeeRate: 80n,
        feeTargetBlocks: 6,
        sweepBatch: 20,
        sweepMaxAgeSeconds: 21_600,
        sweepBumpAfterSeconds: 3600,
        maxHeadAgeSeconds: undefined,
      },
      {
        chain: 'litecoin',
        isTest: true,
        rpcUrls: ['http://127.0.0.1:19443'],
        cookieFile: '/var/lib/litecoind/regtest/.cookie',
        network: 'regtest',
        confirmations: 1,
        pollIntervalMs: 250,
        zmqUrls: [],
        zmqPollIntervalMs: 10_000,
        minFeeRate: 1n,
        maxFeeRate: 50n,
        feeTargetBlocks: 6,
        sweepBatch: 50,
        sweepMaxAgeSeconds: 21_600,
        sweepBumpAfterSeconds: 900,
        maxHeadAgeSeconds: 0,
      },
    ]);
    expect(parseBitcoinChainSettings({})).toEqual([]);
  });

  it('names the variable that is wrong, and never prints credentials', () => {
    expect(() => parseBitcoinChainSettings({ SVC_CHAIN_LITECOIN_RPC_URL: 'ftp://u:secret@h' })).toThrow(
      /^SVC_CHAIN_LITECOIN_RPC_URL: .* is not an http/,
    );
    expect(() => parseBitcoinChainSettings({ SVC_CHAIN_LITECOIN_RPC_URL: 'ftp://u:secret@h' })).not.toThrow(
      /secret/,
    );
    expect(() => parseBitcoinChainSettings({ SVC_CHAIN_BITCOIN_RPC_URL: 'http://10.0.0.1:8332' })).toThrow(
      /SVC_CHAIN_BITCOIN_RPC_URL: .* has no user:password and SVC_CHAIN_BITCOIN_RPC_COOKIE_FILE is not set/,
    );
    expect(() =>
      parseBitcoinChainSettings({
        SVC_CHAIN_BITCOIN_RPC_URL: 'http://u:p@h:1',
        SVC_CHAIN_BITCOIN_CONFIRMATIONS: '0',
      }),
    ).toThrow(/SVC_CHAIN_BITCOIN_CONFIRMATIONS: must be a whole number from 1/);
    expect(() =>
      parseBitcoinChainSettings({
        SVC_CHAIN_BITCOIN_RPC_URL: 'http://u:p@h:1',
        SVC_CHAIN_BITCOIN_MIN_FEE_RATE: '20',
        SVC_CHAIN_BITCOIN_MAX_FEE_RATE: '10',
      }),
    ).toThrow(/SVC_CHAIN_BITCOIN_MAX_FEE_RATE: must not be below/);
  });

  it("reads the node's ZMQ endpoints per chain and mode: one for both topics, or one per topic", () => {
    const [live, test] = parseBitcoinChainSettings({
      SVC_CHAIN_BITCOIN_RPC_URL: 'http://u:p@10.0.0.1:8332',
      SVC_CHAIN_BITCOIN_ZMQ_URL: 'tcp://10.0.0.1:28332',
      SVC_TEST_CHAIN_BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:18443',
      SVC_TEST_CHAIN_BITCOIN_POLL_MS: '30000',
      // Two ports (hashblock on one, rawtx on the other), a repeat, an IPv6 host and a node-local socket.
      SVC_TEST_CHAIN_BITCOIN_ZMQ_URL:
        'tcp://node.internal:28332, tcp://[::1]:28333,tcp://node.internal:28332, ipc:///var/run/bitcoind/zmq',
    });
    expect(live).toMatchObject({
      isTest: false,
      zmqUrls: ['tcp://10.0.0.1:28332'],
      pollIntervalMs: 1000,
      zmqPollIntervalMs: 10_000,
    });
    expect(test).toMatchObject({
      isTest: true,
      zmqUrls: ['tcp://node.internal:28332', 'tcp://[::1]:28333', 'ipc:///var/run/bitcoind/zmq'],
      pollIntervalMs: 30_000,
      // Never more often with ZMQ than without it.
      zmqPollIntervalMs: 30_000,
    });
    const [tuned] = parseBitcoinChainSettings({
      SVC_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1',
      SVC_CHAIN_LITECOIN_ZMQ_URL: 'tcp://127.0.0.1:28332',
      SVC_CHAIN_LITECOIN_ZMQ_POLL_MS: '60000',
    });
    expect(tuned?.zmqPollIntervalMs).toBe(60_000);
    // Without ZMQ_URL: polling only.
    expect(parseBitcoinChainSettings({ SVC_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1' })[0]?.zmqUrls).toEqual(
      [],
    );
  });

  it('refuses a ZMQ endpoint a subscriber cannot connect to, naming the variable', () => {
    const withZmq = (zmq: string) => () =>
      parseBitcoinChainSettings({
        SVC_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1',
        SVC_CHAIN_LITECOIN_ZMQ_URL: zmq,
      });
    for (const bad of [
      'http://127.0.0.1:28332', // an RPC URL by mistake
      '127.0.0.1:28332', // no scheme
      'tcp://127.0.0.1', // no port
      'tcp://127.0.0.1:0',
      'tcp://127.0.0.1:70000',
      'tcp://*:28332', // the node's bind address, not one to connect to
      'tcp://127.0.0.1:28332, udp://127.0.0.1:28333',
    ]) {
      expect(withZmq(bad), bad).toThrow(
        /^SVC_CHAIN_LITECOIN_ZMQ_URL: ".*" is not a tcp:\/\/host:port or ipc:\/\/path/,
      );
    }
    expect(() =>
      parseBitcoinChainSettings({
        SVC_TEST_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1',
        SVC_TEST_CHAIN_LITECOIN_ZMQ_POLL_MS: '5000',
      }),
    ).toThrow(/^SVC_TEST_CHAIN_LITECOIN_ZMQ_POLL_MS: set without SVC_TEST_CHAIN_LITECOIN_ZMQ_URL/);
    expect(() =>
      parseBitcoinChainSettings({
        SVC_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1',
        SVC_CHAIN_LITECOIN_ZMQ_URL: 'tcp://127.0.0.1:28332',
        SVC_CHAIN_LITECOIN_ZMQ_POLL_MS: '10',
      }),
    ).toThrow(/SVC_CHAIN_LITECOIN_ZMQ_POLL_MS: must be a whole number from 50/);
  });

  it('spells test-mode addresses for regtest only where the test node is configured as regtest; live never', () => {
    const chains = parseBitcoinChainSettings({
      SVC_CHAIN_LITECOIN_RPC_URL: 'http://u:p@127.0.0.1:1',
      SVC_CHAIN_LITECOIN_NETWORK: 'regtest', // a regtest node standing in for mainnet: live keeps ltc1…
      SVC_TEST_CHAIN_LITECOIN_RPC_URL: 'http://u:p@127.0.0.1:1',
      SVC_TEST_CHAIN_LITECOIN_NETWORK: 'regtest',
      SVC_TEST_CHAIN_BITCOIN_RPC_URL: 'http://u:p@127.0.0.1:2',
      SVC_TEST_CHAIN_BITCOIN_NETWORK: 'signet',
    });
    expect(chains.map((c) => [c.chain, c.isTest, addressSpelling(c)])).toEqual([
      ['bitcoin', true, 'test'],
      ['litecoin', false, 'main'],
      ['litecoin', true, 'regtest'],
    ]);
    expect(testAddressSpelling(chains)).toEqual({ bitcoin: 'test', litecoin: 'regtest' });
    // Without NETWORK the test node may be any test network: testnet's spelling, as before.
    expect(
      testAddressSpelling(parseBitcoinChainSettings({ SVC_TEST_CHAIN_LITECOIN_RPC_URL: 'http://u:p@h:1' })),
    ).toEqual({ litecoin: 'test' });
    // NETWORK without an RPC URL connects nothing and changes nothing.
    expect(
      testAddressSpelling(parseBitcoinChainSettings({ SVC_TEST_CHAIN_LITECOIN_NETWORK: 'regtest' })),
    ).toEqual({});
  });
});
