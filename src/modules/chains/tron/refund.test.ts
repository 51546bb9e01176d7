import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTronNode, startFakeTronNode, testKey } from '../../../../test/support/tron-node.ts';
import { type BuiltRefund, type RefundIntent, RefundRefused } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { createTronHttp } from './http.ts';
import { createTronRefunds } from './refund.ts';
import { createTronSweeper } from './sweep.ts';

/**
 * Tron refunds (refund.ts) against the fake node: TRX with its burn out of the refund (a new account's creation fee),
 * refused when nothing would be left, waiting while the deposit does not hold it; USDT with the resource wallet's
 * energy (delegate, transfer, undelegate: the payer gets it all); the bundle marked as a refund and followed by the
 * sweeper's status through the refunds' store; contracts refused as refund addresses. Through the program:
 * test/refunds-tron.test.ts.
 */

const logger = pino({ level: 'silent' });

describe('Tron refunds against the fake node', () => {
  let node: FakeTronNode;
  const funder = testKey('refund-funder');
  const resource = testKey('refund-resource');
  const gas = testKey('refund-gas');
  const deposit = testKey('refund-dep-0');
  const signingKeys: DepositSigningKeys = {
    keyFor(_chain, _isTest, index, address) {
      if (index !== 0 || address !== deposit.address) throw new Error('no such deposit key');
      return deposit.key;
    },
  };
  /** The refunds table: bundles stored before broadcast, found by hash. */
  const stored = new Map<string, string>();

  beforeEach(async () => {
    node = await startFakeTronNode();
    node.fund(funder.address, 10_000_000_000n, 1_000_000_000n);
    node.fund(gas.address, 1_000_000_000n);
    node.fund(resource.address, 50_000_000_000n);
    node.stake(resource.address, 'ENERGY', 40_000_000_000n);
    node.produceBlocks(3);
    stored.clear();
  });
  afterEach(() => node.close());

  function tron() {
    const http = createTronHttp({ urls: [node.url], timeoutMs: 2000, retries: 1, logger });
    const sweeper = createTronSweeper({
      http,
      chainId: 'tron',
      isTest: false,
      native: 'TRX',
      usdt: { code: 'USDT', contractHex: node.usdtHex },
      bundles: {
        byHash: async (hash) => stored.get(hash) ?? null,
        byForward: async () => null,
      },
      signingKeys,
      resourceKey: resource.key,
      feeKey: gas.key,
      maxBurnSun: 30_000_000n,
      logger,
    });
    const refunds = createTronRefunds({
      http,
      native: 'TRX',
      usdt: { code: 'USDT', contractHex: node.usdtHex },
      buildForward: sweeper.buildForward,
      lentTo: sweeper.lentTo,
    });
    return { sweeper, refunds };
  }

  const intent = (asset: string, amount: bigint, to: string): RefundIntent => ({
    id: 'rf_test',
    asset,
    amount,
    to,
    from: { address: deposit.address, derivationIndex: 0 },
  });

  /** Stores, broadcasts, then produces blocks until the sweeper's status says it is in a block. */
  async function land(t: ReturnType<typeof tron>, built: BuiltRefund) {
    stored.set(built.txHash, built.rawTx);
    await t.sweeper.broadcast(built.rawTx);
    for (let round = 0; round < 10; round++) {
      node.produceBlocks(1);
      const status = await t.sweeper.forwardStatus(built.txHash);
      if (status.state === 'included') return status;
    }
    throw new Error('refund never included');
  }

  it('sends TRX from the deposit, the new account creation fee out of the refund, marked as a refund', async () => {
    node.sendTrx(funder.key, deposit.address, 5_000_000n);
    node.produceBlocks(1);
    const t = tron();
    const to = testKey('refund-new-account').address;
    const built = await t.refunds.buildRefund(intent('TRX', 3_000_000n, to));
    expect(built.sent).toBe(3_000_000n - 1_100_000n);
    expect(built.fee).toBe(1_100_000n);
    const bundle = JSON.parse(built.rawTx) as { refund?: boolean; steps: Array<{ role: string }> };
    expect(bundle.refund).toBe(true);
    expect(bundle.steps.map((step) => step.role)).toEqual(['transfer']);
    const status = await land(t, built);
    expect(status).toMatchObject({ state: 'included' });
    expect(node.account(to)?.balance).toBe(1_900_000n);
    expect(node.account(deposit.address)?.balance).toBe(2_000_000n);
  });

  it('refuses TRX not worth its burn, and waits while the deposit does not hold the refund', async () => {
    node.sendTrx(funder.key, deposit.address, 5_000_000n);
    node.produceBlocks(1);
    const t = tron();
    const to = testKey('refund-new-account-2').address;
    await expect(t.refunds.buildRefund(intent('TRX', 1_000_000n, to))).rejects.toBeInstanceOf(RefundRefused);
    const more = t.refunds.buildRefund(intent('TRX', 6_000_000n, to));
    await expect(more).rejects.toThrow(/holds/);
    await expect(more).rejects.not.toBeInstanceOf(RefundRefused);
  });

  it('sends USDT with energy lent by the resource wallet: the payer gets it all, the stake comes back', async () => {
    node.sendUsdt(funder.key, deposit.address, 4_000_000n);
    node.produceBlocks(1);
    const t = tron();
    const to = testKey('refund-usdt-holder').address;
    const built = await t.refunds.buildRefund(intent('USDT', 1_500_000n, to));
    expect(built.sent).toBe(1_500_000n);
    const roles = (JSON.parse(built.rawTx) as { steps: Array<{ role: string }> }).steps.map(
      (step) => step.role,
    );
    expect(roles).toEqual(['activate', 'delegate', 'transfer', 'undelegate']);
    await land(t, built);
    for (let round = 0; round < 5 && (node.account(deposit.address)?.delegatedInEnergy ?? 0n) > 0n; round++) {
      node.produceBlocks(1);
      await t.sweeper.forwardStatus(built.txHash);
    }
    expect(node.account(to)?.usdt).toBe(1_500_000n);
    expect(node.account(deposit.address)?.usdt).toBe(2_500_000n);
    expect(node.account(deposit.address)?.delegatedInEnergy).toBe(0n);
    // Waits (a plain error) while the deposit does not hold it.
    const more = t.refunds.buildRefund(intent('USDT', 9_000_000n, to));
    await expect(more).rejects.toThrow();
    await expect(more).rejects.not.toBeInstanceOf(RefundRefused);
  });

  it('refuses contracts as refund addresses, takes accounts new or old', async () => {
    const t = tron();
    expect(await t.refunds.checkRefundAddress(node.usdt)).toMatch(/is a contract/);
    expect(await t.refunds.checkRefundAddress(funder.address)).toBeNull();
    expect(await t.refunds.checkRefundAddress(testKey('refund-nobody').address)).toBeNull();
  });
});
