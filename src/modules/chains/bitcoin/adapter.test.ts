import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../../test/support/harness.ts';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import { createAddressDeriver } from '../derivation.ts';
import { createDepositSigningKeys, createDerivationCheck } from '../derivation-check.ts';
import { type BitcoinAdapter, createBitcoinAdapter } from './adapter.ts';
import { coinsToBaseUnits } from './json.ts';
import { addressToScript, BITCOIN_NETWORKS, scriptToAddress } from './network.ts';
import type { BitcoinChainSettings } from './settings.ts';

/**
 * The Bitcoin-family adapter against a real node (Debian's litecoind in regtest): blocks and mempool against watched
 * deposit addresses, a replacement (BIP125) noticed at once, a reorganisation seen by recheck, and a batched sweep
 * signed here, broadcast, mined and found. The whole program runs against litecoind in test/bitcoin-live.test.ts.
 */

const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
const signingKeys = createDepositSigningKeys(
  deriver,
  createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
);
const logger = pino({ level: 'silent' });
const svcNetwork = BITCOIN_NETWORKS['litecoin-test'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];

function settings(url: string, overrides: Partial<BitcoinChainSettings> = {}): BitcoinChainSettings {
  return {
    chain: 'litecoin',
    isTest: true,
    rpcUrls: [url],
    cookieFile: undefined,
    network: undefined,
    confirmations: undefined,
    pollIntervalMs: 1000,
    zmqUrls: [],
    zmqPollIntervalMs: 10_000,
    minFeeRate: 1n,
    maxFeeRate: 50n,
    feeTargetBlocks: 6,
    sweepBatch: 50,
    sweepMaxAgeSeconds: 0,
    sweepBumpAfterSeconds: 1,
    maxHeadAgeSeconds: 0,
    ...overrides,
  };
}

/** A test-mode deposit address (svc's tltc spelling) and how a regtest wallet writes the same script (rltc). */
function deposit(index: number): { address: string; regtest: string } {
  const address = deriver.deriveAddress('litecoin', true, index);
  const spelled = scriptToAddress(regtest, addressToScript(svcNetwork, address));
  if (spelled === null) throw new Error('not a segwit address');
  return { address, regtest: spelled };
}

const toSvc = (regtestAddress: string): string => {
  const spelled = scriptToAddress(svcNetwork, addressToScript(regtest, regtestAddress));
  if (spelled === null) throw new Error('not a segwit address');
  return spelled;
};

describe.skipIf(!runLitecoindTests)('Bitcoin-family adapter against litecoind regtest', () => {
  let node: Litecoind;
  let adapter: BitcoinAdapter;
  const pay = (to: string, coins: string) =>
    node.rpc<string>('sendtoaddress', [to, coins, '', '', false, true], { wallet: node.wallet });

  beforeAll(async () => {
    node = await startLitecoind();
    adapter = createBitcoinAdapter({
      settings: settings(node.urlWithAuth),
      shared: { rpcTimeoutMs: 5000, rpcRetries: 2 },
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await adapter.start();
  }, 60_000);

  afterAll(async () => {
    await adapter?.close();
    await node?.stop();
  });

  it('reads the node network at start and refuses a live adapter on regtest', async () => {
    expect(adapter.nodeNetwork()).toBe('litecoin-regtest');
    expect(await adapter.readiness()).toBeNull();
    const live = createBitcoinAdapter({
      settings: settings(node.urlWithAuth, { isTest: false }),
      shared: { rpcTimeoutMs: 5000, rpcRetries: 1 },
      requiredConfirmations: 6,
      signingKeys,
      logger,
    });
    await expect(live.start()).rejects.toThrow(/"regtest" network, expected main/);
    expect(await live.readiness()).toMatch(/expected main/);
    await live.close();
  });

  it('finds payments in the mempool at once and in their block, one transfer per output', async () => {
    const a = deposit(1);
    const b = deposit(2);
    const watched = new Set([a.address, b.address].map(adapter.addressKey));
    await adapter.mempool(watched, []); // what was already waiting
    const txid = await node.rpc<string>(
      'sendmany',
      ['', { [a.regtest]: '0.25', [b.regtest]: '0.125' }, 1, '', [], true],
      { wallet: node.wallet },
    );
    const seen = await adapter.mempool(watched, []);
    expect(seen.gone).toEqual([]);
    expect(seen.transfers.map((t) => [t.txHash, t.to, t.asset, t.amount]).sort()).toEqual(
      [
        [txid, a.address, 'LTC', 25_000_000n],
        [txid, b.address, 'LTC', 12_500_000n],
      ].sort(),
    );
    const [hash] = await node.mine(1);
    const head = await adapter.head();
    expect(head?.hash).toBe(hash);
    const block = await adapter.block(head?.number ?? -1);
    expect(block).toEqual(head);
    const inBlock = await adapter.transfers(block as NonNullable<typeof block>, watched);
    expect(inBlock).toHaveLength(2);
    expect(new Set(inBlock.map((t) => t.txHash))).toEqual(new Set([txid]));
    // Mined, not gone: the recorded mempool outputs stand.
    const recorded = inBlock.map((t) => ({ txHash: t.txHash, outputIndex: t.outputIndex }));
    expect((await adapter.mempool(watched, recorded)).gone).toEqual([]);
    expect(await adapter.block((head?.number ?? 0) + 1)).toBeNull();
  });

  it('notices a replacement (BIP125 bumpfee) at once: the old outputs are gone, the new ones seen', async () => {
    const a = deposit(3);
    const watched = new Set([adapter.addressKey(a.address)]);
    const first = await pay(a.regtest, '0.3');
    const seen = await adapter.mempool(watched, []);
    expect(seen.transfers.map((t) => t.txHash)).toEqual([first]);
    const recorded = seen.transfers.map((t) => ({ txHash: t.txHash, outputIndex: t.outputIndex }));
    const bumped = await node.rpc<{ txid: string }>('bumpfee', [first], { wallet: node.wallet });
    const after = await adapter.mempool(watched, recorded);
    expect(after.gone).toEqual(recorded);
    expect(after.transfers.map((t) => t.txHash)).toEqual([bumped.txid]);
    await node.mine(1);
  });

  it('rechecks deposits against the chain: a block reorganised away no longer stands', async () => {
    const a = deposit(4);
    const txid = await pay(a.regtest, '0.2');
    const [hash] = await node.mine(1);
    const header = await node.rpc<{ height: number }>('getblockheader', [hash]);
    const seen = { txHash: txid, blockNumber: header.height, blockHash: hash as string };
    expect(await adapter.recheck([seen])).toEqual(new Set([txid]));
    await node.rpc('invalidateblock', [hash]);
    expect(await adapter.recheck([seen])).toEqual(new Set());
    await node.rpc('reconsiderblock', [hash]);
    expect(await adapter.recheck([seen])).toEqual(new Set([txid]));
  });

  it('sweeps many deposit outputs in one signed transaction at the floor fee rate, leaves dust, re-broadcasts harmlessly', async () => {
    const inputs: Array<{
      address: string;
      derivationIndex: number;
      amount: bigint;
      outputs: Array<{ txHash: string; outputIndex: number; amount: bigint }>;
    }> = [];
    const addresses: string[] = [];
    for (let index = 10; index < 16; index++) addresses.push(deposit(index).address);
    const dust = deposit(16);
    const watched = new Set([...addresses, dust.address].map(adapter.addressKey));
    for (let index = 10; index < 16; index++) {
      const d = deposit(index);
      // Two outputs to the first address: both are spent.
      for (let n = 0; n < (index === 10 ? 2 : 1); n++) await pay(d.regtest, '0.01');
    }
    // Worth less than the 68 vB × 100 sat/vB it would cost to spend (and above the node's own dust limit).
    await pay(dust.regtest, '0.00005000');
    const [hash] = await node.mine(1);
    const header = await node.rpc<{ height: number }>('getblockheader', [hash]);
    const block = await adapter.block(header.height);
    const found = await adapter.transfers(block as NonNullable<typeof block>, watched);
    expect(found).toHaveLength(8);
    for (const transfer of found) {
      const index = transfer.to === dust.address ? 16 : 10 + addresses.indexOf(transfer.to);
      let input = inputs.find((i) => i.address === transfer.to);
      if (input === undefined) {
        input = { address: transfer.to, derivationIndex: index, amount: 0n, outputs: [] };
        inputs.push(input);
      }
      input.amount += transfer.amount;
      input.outputs.push({
        txHash: transfer.txHash,
        outputIndex: transfer.outputIndex,
        amount: transfer.amount,
      });
    }
    const payoutRegtest = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
    const sweeper = createBitcoinAdapter({
      settings: settings(node.urlWithAuth, { minFeeRate: 100n, maxFeeRate: 200n }),
      shared: { rpcTimeoutMs: 5000, rpcRetries: 1 },
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await sweeper.start();
    const built = await sweeper.buildForward({
      id: 'fwd_test',
      asset: 'LTC',
      inputs,
      to: toSvc(payoutRegtest),
    });
    await sweeper.close();
    expect(adapter.dust()).toEqual([]);
    expect(built.left).toEqual([dust.address]);
    const swept = inputs.filter((i) => i.address !== dust.address).reduce((sum, i) => sum + i.amount, 0n);
    expect(built.amount + built.fee).toBe(swept);
    // 7 P2WPKH inputs, one P2WPKH output: 11 + 7 × 68 + 31 = 518 vB at the floor (no estimate on a fresh regtest).
    const estimate = await node.rpc<{ feerate?: number }>('estimatesmartfee', [6]);
    expect(estimate.feerate).toBeUndefined();
    expect(built.fee).toBe(518n * 100n);
    const decoded = await node.rpc<{ txid: string; vsize: number; vin: Array<{ sequence: number }> }>(
      'decoderawtransaction',
      [built.rawTx],
    );
    expect(decoded.txid).toBe(built.txHash);
    expect(decoded.vsize).toBeLessThanOrEqual(518);
    expect(decoded.vin.every((vin) => vin.sequence === 0xfffffffd)).toBe(true);
    expect(await adapter.forwardStatus(built.txHash)).toEqual({ state: 'unknown' });
    await adapter.broadcast(built.rawTx);
    await adapter.broadcast(built.rawTx);
    expect(await adapter.forwardStatus(built.txHash)).toEqual({ state: 'pending' });
    const [sweepBlock] = await node.mine(1);
    const status = await adapter.forwardStatus(built.txHash);
    expect(status).toMatchObject({ state: 'included', blockHash: sweepBlock });
    await adapter.broadcast(built.rawTx);
    const received = await node.rpc<number>('getreceivedbyaddress', [payoutRegtest, 1], {
      wallet: node.wallet,
    });
    expect(coinsToBaseUnits(String(received))).toBe(built.amount);
  });

  it('replaces a stuck sweep (BIP125) with the same inputs and a higher fee; only one version lands', async () => {
    const a = deposit(30);
    const b = deposit(31);
    const watched = new Set([a.address, b.address].map(adapter.addressKey));
    await pay(a.regtest, '0.02');
    await pay(b.regtest, '0.03');
    const [hash] = await node.mine(1);
    const header = await node.rpc<{ height: number }>('getblockheader', [hash]);
    const block = await adapter.block(header.height);
    const found = await adapter.transfers(block as NonNullable<typeof block>, watched);
    const inputs = found.map((t) => ({
      address: t.to,
      derivationIndex: t.to === a.address ? 30 : 31,
      amount: t.amount,
      outputs: [{ txHash: t.txHash, outputIndex: t.outputIndex, amount: t.amount }],
    }));
    const payoutRegtest = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
    const intent = { id: 'fwd_bump', asset: 'LTC', inputs, to: toSvc(payoutRegtest) };
    const first = await adapter.buildForward(intent);
    await adapter.broadcast(first.rawTx);
    const second = await adapter.bumpForward?.(intent, { fee: first.fee });
    if (second === null || second === undefined) throw new Error('no replacement');
    expect(second.txHash).not.toBe(first.txHash);
    expect(second.fee).toBeGreaterThan(first.fee);
    expect(second.amount + second.fee).toBe(first.amount + first.fee);
    const spent = (raw: string) =>
      node
        .rpc<{ vin: Array<{ txid: string; vout: number }> }>('decoderawtransaction', [raw])
        .then((tx) => tx.vin.map((vin) => `${vin.txid}:${vin.vout}`).sort());
    expect(await spent(second.rawTx)).toEqual(await spent(first.rawTx));
    await adapter.broadcast(second.rawTx);
    expect(await adapter.forwardStatus(first.txHash)).toEqual({ state: 'unknown' });
    expect(await adapter.forwardStatus(second.txHash)).toEqual({ state: 'pending' });
    // The first version is stale now: sending it again is refused, it can never land beside the second.
    await expect(adapter.broadcast(first.rawTx)).rejects.toThrow();
    await node.mine(1);
    expect(await adapter.forwardStatus(second.txHash)).toMatchObject({ state: 'included' });
    expect(await adapter.forwardStatus(first.txHash)).toEqual({ state: 'unknown' });
    // Above the cap, no replacement: the stuck version keeps waiting.
    expect(await adapter.bumpForward?.(intent, { fee: 50n * 1000n })).toBeNull();
  });

  it('with the test node configured as regtest: records rltc1…, and sweeps deposits spelled either way to an rltc1… payout', async () => {
    // What the program composes for SVC_TEST_CHAIN_LITECOIN_NETWORK=regtest (services.ts): both derivations spell
    // rltc1…, and the adapter records and sweeps with the same settings.
    const testSpelling = { litecoin: 'regtest' } as const;
    const seeds = { testMnemonic, liveMnemonic: testMnemonic };
    const regtestDeriver = createAddressDeriver(seeds, { testSpelling });
    const regtestAdapter = createBitcoinAdapter({
      settings: settings(node.urlWithAuth, { network: 'regtest' }),
      shared: { rpcTimeoutMs: 5000, rpcRetries: 1 },
      requiredConfirmations: 1,
      signingKeys: createDepositSigningKeys(regtestDeriver, createDerivationCheck(seeds, { testSpelling })),
      logger,
    });
    await regtestAdapter.start();
    try {
      // A new payment's address as the checkout shows it, paid as it is; and one created before the setting changed
      // (tltc1…, still stored so), paid by a wallet at its regtest spelling.
      const fresh = regtestDeriver.deriveAddress('litecoin', true, 40);
      expect(fresh).toMatch(/^rltc1q/);
      const old = deposit(41);
      const watched = new Set([fresh, old.address].map(regtestAdapter.addressKey));
      await pay(fresh, '0.04');
      await pay(old.regtest, '0.05');
      const [hash] = await node.mine(1);
      const header = await node.rpc<{ height: number }>('getblockheader', [hash]);
      const block = await regtestAdapter.block(header.height);
      const found = await regtestAdapter.transfers(block as NonNullable<typeof block>, watched);
      // Recorded in the configured spelling; the old payment's key (its script) still finds its deposit.
      expect(found.map((t) => t.to).sort()).toEqual([fresh, old.regtest].sort());
      expect(found.every((t) => watched.has(regtestAdapter.addressKey(t.to)))).toBe(true);
      const inputs = found.map((t) => ({
        // The old deposit as it was recorded before the change (tltc1…), the new one as recorded now.
        address: t.to === fresh ? fresh : old.address,
        derivationIndex: t.to === fresh ? 40 : 41,
        amount: t.amount,
        outputs: [{ txHash: t.txHash, outputIndex: t.outputIndex, amount: t.amount }],
      }));
      const payoutRegtest = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      const built = await regtestAdapter.buildForward({
        id: 'fwd_regtest',
        asset: 'LTC',
        inputs,
        to: payoutRegtest,
      });
      expect(built.left).toEqual([]);
      expect(built.amount + built.fee).toBe(9_000_000n);
      await regtestAdapter.broadcast(built.rawTx);
      await node.mine(1);
      expect(await regtestAdapter.forwardStatus(built.txHash)).toMatchObject({ state: 'included' });
      const received = await node.rpc<number>('getreceivedbyaddress', [payoutRegtest, 1], {
        wallet: node.wallet,
      });
      expect(coinsToBaseUnits(String(received))).toBe(built.amount);
      // Another index's key for a deposit address: refused before anything is signed.
      await expect(
        regtestAdapter.buildForward({
          id: 'fwd_wrong',
          asset: 'LTC',
          inputs: [{ ...(inputs[0] as (typeof inputs)[number]), derivationIndex: 42 }],
          to: payoutRegtest,
        }),
      ).rejects.toThrow(/not to the deposit address/);
    } finally {
      await regtestAdapter.close();
    }
  });

  it('waits while the fee rate is above the cap', async () => {
    const capped = createBitcoinAdapter({
      settings: settings(node.urlWithAuth, { minFeeRate: 100n, maxFeeRate: 50n }),
      shared: { rpcTimeoutMs: 5000, rpcRetries: 1 },
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await capped.start();
    const a = deposit(20);
    const built = await capped.buildForward({
      id: 'fwd_cap',
      asset: 'LTC',
      inputs: [
        {
          address: a.address,
          derivationIndex: 20,
          amount: 1000n,
          outputs: [{ txHash: '00'.repeat(32), outputIndex: 0, amount: 1000n }],
        },
      ],
      to: a.address,
    });
    expect(built).toMatchObject({ amount: 0n, left: [a.address] });
    await capped.close();
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});

describe('Bitcoin-family adapter with the node ZMQ', () => {
  const build = (
    overrides: Partial<BitcoinChainSettings>,
    zmq?: Parameters<typeof createBitcoinAdapter>[0]['zmq'],
  ) =>
    createBitcoinAdapter({
      settings: settings('http://u:p@127.0.0.1:1', overrides),
      shared: { rpcTimeoutMs: 1000, rpcRetries: 1 },
      requiredConfirmations: 1,
      signingKeys,
      logger,
      ...(zmq === undefined ? {} : { zmq }),
    });

  it('without ZMQ_URL: no wake-ups offered, polls every POLL_MS', () => {
    const adapter = build({ pollIntervalMs: 1000 });
    expect(adapter.onActivity).toBeUndefined();
    expect(adapter.pollIntervalMs).toBe(1000);
  });

  it('with ZMQ_URL: wake-ups passed to the loop, the slower interval only while ZMQ is connected', () => {
    let connected = false;
    let wakes = 0;
    const adapter = build(
      { pollIntervalMs: 1000, zmqUrls: ['tcp://127.0.0.1:28332'], zmqPollIntervalMs: 10_000 },
      {
        onActivity(wake) {
          wake();
          wakes++;
          return () => {};
        },
        connected: () => connected,
        stats: () => ({ received: 0, gaps: 0 }),
        close: async () => {},
      },
    );
    expect(adapter.pollIntervalMs).toBe(1000);
    connected = true;
    expect(adapter.pollIntervalMs).toBe(10_000);
    connected = false;
    expect(adapter.pollIntervalMs).toBe(1000);
    let woken = 0;
    adapter.onActivity?.(() => {
      woken++;
    });
    expect([wakes, woken]).toEqual([1, 1]);
  });
});
