import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import { BITCOIN_NETWORKS } from './network.ts';
import { createBitcoinNode } from './node.ts';
import { type BitcoinRpc, createBitcoinRpc } from './rpc.ts';

const logger = pino({ level: 'silent' });
const T0 = Date.parse('2026-01-01T00:00:00Z');

/** A node that answers getblockchaininfo with `info` and a best block mined at `blockTime`. */
function stubRpc(
  info: Record<string, unknown>,
  blockTime: number,
  down: BitcoinRpc['health'] = () => ({ down: null, url: 'x' }),
) {
  const calls: string[] = [];
  const answer = async (method: string) => {
    calls.push(method);
    if (method === 'getblockchaininfo') {
      return {
        chain: 'main',
        blocks: 900_000,
        headers: 900_000,
        bestblockhash: 'best',
        initialblockdownload: false,
        verificationprogress: '0.9999990',
        pruned: true,
        ...info,
      };
    }
    if (method === 'getblockheader') return { time: blockTime / 1000 };
    throw new Error(`unexpected ${method}`);
  };
  const rpc = {
    call: answer,
    callExact: answer,
    health: down,
    close: async () => {},
  } as unknown as BitcoinRpc;
  return { rpc, calls };
}

function node(rpc: BitcoinRpc, at: number, maxHeadAgeSeconds?: number) {
  return createBitcoinNode({
    rpc,
    network: BITCOIN_NETWORKS['bitcoin-main'],
    chainId: 'bitcoin',
    isTest: false,
    blockTimeSeconds: 600,
    ...(maxHeadAgeSeconds === undefined ? {} : { maxHeadAgeSeconds }),
    logger,
    now: () => new Date(at),
  });
}

describe('bitcoin node readiness', () => {
  it('is ready before the first check and with a synced node on the right network and a recent best block', async () => {
    const { rpc, calls } = stubRpc({}, T0 - 20 * 60_000);
    const subject = node(rpc, T0);
    expect(await subject.readiness()).toBeNull();
    await subject.refresh();
    expect(await subject.readiness()).toBeNull();
    // The header of a best block already known is not asked again.
    await subject.refresh();
    expect(calls).toEqual(['getblockchaininfo', 'getblockheader', 'getblockchaininfo']);
  });

  it('reports a node that is down, with the reason and since when', async () => {
    const since = new Date(T0);
    const { rpc } = stubRpc({}, T0, () => ({
      down: { reason: 'node unreachable: timed out', since },
      url: 'x',
    }));
    expect(await node(rpc, T0).readiness()).toBe(
      'bitcoin (live): node unreachable: timed out since 2026-01-01T00:00:00.000Z',
    );
  });

  it('reports a node on another network', async () => {
    const { rpc } = stubRpc({ chain: 'test' }, T0);
    const subject = node(rpc, T0);
    await subject.refresh();
    expect(await subject.readiness()).toBe(
      'bitcoin (live): node is on the "test" network, expected "main" (bitcoin-main)',
    );
  });

  it('reports a syncing node: initial block download, or headers beyond its blocks', async () => {
    const ibd = stubRpc({ initialblockdownload: true, blocks: 500_000, verificationprogress: '0.4212' }, T0);
    const first = node(ibd.rpc, T0);
    await first.refresh();
    expect(await first.readiness()).toBe(
      'bitcoin (live): node syncing: block 500000 of 900000 headers (42.12% verified)',
    );
    const behind = stubRpc({ blocks: 899_990 }, T0);
    const second = node(behind.rpc, T0);
    await second.refresh();
    expect(await second.readiness()).toMatch(/node syncing: block 899990 of 900000 headers/);
  });

  it('reports a lagging node (best block older than 10 block times by default), unless the check is off', async () => {
    const { rpc } = stubRpc({}, T0 - 101 * 60_000);
    const subject = node(rpc, T0);
    await subject.refresh();
    expect(await subject.readiness()).toBe('bitcoin (live): node lagging: best block 900000 is 6060 s old');
    const off = node(rpc, T0, 0);
    await off.refresh();
    expect(await off.readiness()).toBeNull();
  });
});

describe.skipIf(!runLitecoindTests)('bitcoin node readiness against litecoind regtest', () => {
  let litecoind: Litecoind;
  beforeAll(async () => {
    litecoind = await startLitecoind({ blocks: 5 });
  });
  afterAll(async () => {
    await litecoind?.stop();
  });

  it('is ready on regtest, refuses another network, and reports the node down once it stops', async () => {
    const rpc = createBitcoinRpc({ urls: [litecoind.urlWithAuth], timeoutMs: 2000, retries: 1, logger });
    const common = { rpc, chainId: 'litecoin', isTest: true, blockTimeSeconds: 150, logger };
    const regtest = createBitcoinNode({ ...common, network: BITCOIN_NETWORKS['litecoin-regtest'] });
    const state = await regtest.refresh();
    expect(state).toMatchObject({ chain: 'regtest', blocks: 5, headers: 5, initialBlockDownload: false });
    expect(Math.abs(state.bestBlockTime.getTime() - Date.now())).toBeLessThan(10 * 60_000);
    expect(await regtest.readiness()).toBeNull();

    const wrong = createBitcoinNode({ ...common, network: BITCOIN_NETWORKS['litecoin-main'] });
    await wrong.refresh();
    expect(await wrong.readiness()).toMatch(/node is on the "regtest" network, expected "main"/);

    await litecoind.stop();
    await expect(regtest.refresh()).rejects.toMatchObject({ kind: 'connection' });
    expect(await regtest.readiness()).toMatch(/^litecoin \(test\): node unreachable: connection failed/);
    await rpc.close();
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
