import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeTronNode, startFakeTronNode, testKey } from '../../../../test/support/tron-node.ts';
import type { ForwardIntent } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { createTronHttp } from './http.ts';
import { createTronSweeper } from './sweep.ts';

const logger = pino({ level: 'silent' });

describe('Tron sweeps against the fake node', () => {
  let node: FakeTronNode;
  const funder = testKey('sweep-funder');
  const payout = testKey('sweep-payout');
  const resource = testKey('sweep-resource');
  const gas = testKey('sweep-gas');
  const deposits = [testKey('sweep-dep-0'), testKey('sweep-dep-1')];
  const signingKeys: DepositSigningKeys = {
    keyFor(_chain, _isTest, index, address) {
      const key = deposits[index];
      if (key === undefined || key.address !== address) throw new Error('no such deposit key');
      return key.key;
    },
  };
  /** The forwards table: bundles stored before broadcast, by hash and by forward id. */
  const stored = new Map<string, { id: string; rawTx: string }>();
  const bundles = {
    byHash: async (hash: string) => stored.get(hash)?.rawTx ?? null,
    byForward: async (id: string) => [...stored.values()].find((row) => row.id === id)?.rawTx ?? null,
  };

  beforeEach(async () => {
    node = await startFakeTronNode();
    node.fund(funder.address, 10_000_000_000n, 1_000_000_000n);
    node.fund(gas.address, 1_000_000_000n);
    node.produceBlocks(3);
    stored.clear();
  });
  afterEach(() => node.close());

  function sweeper(options: { resource?: boolean; maxBurnSun?: bigint; expirationMs?: number } = {}) {
    const http = createTronHttp({ urls: [node.url], timeoutMs: 2000, retries: 1, logger });
    return createTronSweeper({
      http,
      chainId: 'tron',
      isTest: false,
      native: 'TRX',
      usdt: { code: 'USDT', contractHex: node.usdtHex },
      bundles,
      signingKeys,
      resourceKey: options.resource === true ? resource.key : undefined,
      feeKey: gas.key,
      maxBurnSun: options.maxBurnSun ?? 30_000_000n,
      ...(options.expirationMs === undefined ? {} : { expirationMs: options.expirationMs }),
      logger,
    });
  }

  const intent = (id: string, asset: string, amounts: bigint[]): ForwardIntent => ({
    id,
    asset,
    to: payout.address,
    inputs: amounts.map((amount, index) => ({
      address: deposits[index]?.address ?? '',
      derivationIndex: index,
      amount,
    })),
  });

  /** Broadcasts, then produces blocks and asks the status until the forward is included (as the forwarder does). */
  async function settle(s: ReturnType<typeof sweeper>, id: string, forward: ForwardIntent) {
    const built = await s.buildForward(forward);
    stored.set(built.txHash, { id, rawTx: built.rawTx });
    await s.broadcast(built.rawTx);
    for (let round = 0; round < 10; round++) {
      node.produceBlocks(1);
      const status = await s.forwardStatus(built.txHash);
      if (status.state === 'included') return { built, status };
    }
    throw new Error('sweep never included');
  }

  it('sweeps TRX less the bandwidth and the payout account creation, to the sun', async () => {
    node.sendTrx(funder.key, deposits[0]?.address ?? '', 5_000_000n);
    node.sendTrx(funder.key, deposits[1]?.address ?? '', 3_000_000n);
    node.produceBlocks(1);
    const s = sweeper();
    const { built, status } = await settle(s, 'fwd_trx', intent('fwd_trx', 'TRX', [5_000_000n, 3_000_000n]));
    // The first transfer creates the payout account (1.1 TRX); both fit in the deposits' free bandwidth.
    expect(built.amount).toBe(5_000_000n - 1_100_000n + 3_000_000n);
    expect(built.fee).toBe(1_100_000n);
    expect(node.account(payout.address)?.balance).toBe(built.amount);
    expect(node.account(deposits[0]?.address ?? '')?.balance).toBe(0n);
    expect(node.account(deposits[1]?.address ?? '')?.balance).toBe(0n);
    expect(status).toMatchObject({ state: 'included', fee: 1_100_000n });
  });

  it('sweeps USDT with energy delegated from the resource wallet: activation, delegate, transfer, undelegate; no TRX burnt for energy', async () => {
    node.fund(resource.address, 30_000_000_000n);
    node.stake(resource.address, 'ENERGY', 20_000_000_000n);
    node.sendUsdt(funder.key, deposits[0]?.address ?? '', 7_000_000n);
    node.produceBlocks(1);
    expect(node.account(deposits[0]?.address ?? '')?.balance).toBe(0n);
    const s = sweeper({ resource: true });
    const burntBefore = node.burnt();
    const { built, status } = await settle(s, 'fwd_usdt', intent('fwd_usdt', 'USDT', [7_000_000n]));
    const steps = (JSON.parse(built.rawTx) as { steps: Array<{ role: string }> }).steps.map(
      (step) => step.role,
    );
    expect(steps).toEqual(['activate', 'delegate', 'transfer', 'undelegate']);
    expect(node.account(payout.address)?.usdt).toBe(7_000_000n);
    expect(node.account(deposits[0]?.address ?? '')?.usdt).toBe(0n);
    // The transfer burnt nothing: its energy was delegated (then reclaimed) and its bandwidth was the deposit's free
    // bandwidth. What burnt is the activation (1.1 TRX) and the resource wallet's own bandwidth past its free 600 bytes.
    const info = (await (
      await fetch(`${node.url}/wallet/gettransactioninfobyid`, {
        method: 'POST',
        body: JSON.stringify({ value: built.txHash }),
      })
    ).json()) as { fee?: number; receipt: { energy_usage?: number; energy_fee?: number; result: string } };
    expect(info.fee).toBeUndefined();
    expect(info.receipt).toEqual({
      energy_usage: 130_285,
      energy_usage_total: 130_285,
      net_usage: expect.any(Number),
      result: 'SUCCESS',
    });
    expect(node.account(deposits[0]?.address ?? '')?.balance).toBe(1n);
    expect(node.burnt() - burntBefore).toBeLessThan(1_100_000n + 300_000n);
    expect(node.account(deposits[0]?.address ?? '')?.delegatedInEnergy).toBe(0n);
    expect([...(node.account(resource.address)?.delegatedOutEnergy.values() ?? [])]).toEqual([0n]);
    // What the sweep used, from its receipts: all its energy lent, none burnt; the fee is what burnt (activation and
    // bandwidth).
    expect(status).toMatchObject({
      state: 'included',
      fee: node.burnt() - burntBefore,
      usage: { energyUsed: 130_285n, energyDelegated: 130_285n },
    });
  });

  it("reports the resource wallet's stake: staked, lent out, and the USDT sweeps its free energy covers", async () => {
    expect(await sweeper().resourceStake()).toBeNull();
    node.fund(resource.address, 30_000_000_000n);
    node.stake(resource.address, 'ENERGY', 5_000_000_000n);
    const s = sweeper({ resource: true });
    // 5,000 TRX staked is short of one sweep's 7,072 (below).
    expect(await s.resourceStake()).toMatchObject({
      energyAvailable: 50_000n,
      sweepsCovered: 0n,
      short: true,
    });
    node.stake(resource.address, 'ENERGY', 15_000_000_000n);
    node.stake(resource.address, 'BANDWIDTH', 1_000_000_000n);
    // 10 energy a staked TRX here; a sweep borrows the stake of 64,285 energy, 10% more, rounded up: 7,072 TRX.
    expect(await s.resourceStake()).toEqual({
      energyStaked: 20_000_000_000n,
      energyLent: 0n,
      bandwidthStaked: 1_000_000_000n,
      bandwidthLent: 0n,
      energyAvailable: 200_000n,
      energyPerSweep: 64_285n,
      sweepsCovered: 2n,
      short: false,
    });
    // While a sweep borrows some, the rest covers one sweep fewer.
    node.sendUsdt(funder.key, deposits[0]?.address ?? '', 1_000_000n);
    node.produceBlocks(1);
    const built = await s.buildForward(intent('fwd_stake', 'USDT', [1_000_000n]));
    stored.set(built.txHash, { id: 'fwd_stake', rawTx: built.rawTx });
    await s.broadcast(built.rawTx);
    await rounds(s, built.txHash, () => (node.account(resource.address)?.delegatedOutEnergy.size ?? 0) > 0);
    const lent = [...(node.account(resource.address)?.delegatedOutEnergy.values() ?? [])][0] ?? 0n;
    expect(lent).toBeGreaterThan(0n);
    expect(await s.resourceStake()).toMatchObject({
      energyStaked: 20_000_000_000n,
      energyLent: lent,
      energyAvailable: ((20_000_000_000n - lent) / 1_000_000n) * 10n,
      sweepsCovered: (20_000_000_000n - lent) / 7_072_000_000n,
    });
  });

  it('falls back to a burnt TRX top-up within the cap, and leaves the input beyond it', async () => {
    node.fund(payout.address, 1_000_000n, 1n); // the payout holds USDT: 64,285 energy
    node.sendUsdt(funder.key, deposits[0]?.address ?? '', 2_000_000n);
    node.produceBlocks(1);
    const capped = await sweeper({ maxBurnSun: 5_000_000n }).buildForward(
      intent('fwd_cap', 'USDT', [2_000_000n]),
    );
    expect(capped).toMatchObject({ amount: 0n, left: [deposits[0]?.address] });

    const s = sweeper();
    const gasBefore = node.account(gas.address)?.balance ?? 0n;
    const { built, status } = await settle(s, 'fwd_burn', intent('fwd_burn', 'USDT', [2_000_000n]));
    const steps = (JSON.parse(built.rawTx) as { steps: Array<{ role: string }> }).steps.map(
      (step) => step.role,
    );
    expect(steps).toEqual(['topup', 'transfer']);
    // 64,285 energy × 100 sun burnt, topped up by the gas wallet (plus the new account's creation fee).
    expect(built.fee).toBe(6_428_500n + 1_100_000n);
    expect(gasBefore - (node.account(gas.address)?.balance ?? 0n)).toBe(6_428_500n + 1_100_000n);
    expect(node.account(payout.address)?.usdt).toBe(2_000_001n);
    expect(status).toMatchObject({
      state: 'included',
      fee: 6_428_500n + 1_100_000n,
      usage: { energyUsed: 64_285n, energyDelegated: 0n },
    });
  });

  it('falls back to the burn when the resource wallet has too little free stake, and says so', async () => {
    node.fund(resource.address, 100_000_000_000n);
    node.stake(resource.address, 'ENERGY', 1_000_000_000n); // 10,000 energy: far short of 130,285
    node.sendUsdt(funder.key, deposits[0]?.address ?? '', 3_000_000n);
    node.produceBlocks(1);
    const lines: string[] = [];
    const http = createTronHttp({ urls: [node.url], timeoutMs: 2000, retries: 1, logger });
    const s = createTronSweeper({
      http,
      chainId: 'tron',
      isTest: false,
      native: 'TRX',
      usdt: { code: 'USDT', contractHex: node.usdtHex },
      bundles,
      signingKeys,
      resourceKey: resource.key,
      feeKey: gas.key,
      maxBurnSun: 30_000_000n,
      logger: pino({ level: 'warn' }, { write: (line: string) => lines.push(line) }),
    });
    const built = await s.buildForward(intent('fwd_short', 'USDT', [3_000_000n]));
    const steps = (JSON.parse(built.rawTx) as { steps: Array<{ role: string }> }).steps.map(
      (step) => step.role,
    );
    expect(steps).toEqual(['topup', 'transfer']);
    expect(lines.join('')).toMatch(/resource wallet energy short/);
  });

  it('re-sends a lost sweep as is, and signs a new version only once the old one expired before the solidified block', async () => {
    node.sendTrx(funder.key, deposits[0]?.address ?? '', 4_000_000n);
    node.fund(payout.address, 1n);
    node.produceBlocks(1);
    const s = sweeper({ expirationMs: 30_000 });
    const forward = intent('fwd_exp', 'TRX', [4_000_000n]);
    const first = await s.buildForward(forward);
    stored.set(first.txHash, { id: 'fwd_exp', rawTx: first.rawTx });
    const previous = { fee: first.fee };
    // Never broadcast (lost): the status check sends the stored bytes themselves, and nothing is re-signed.
    expect(await s.bumpForward(forward, previous)).toBeNull();
    expect(await s.forwardStatus(first.txHash)).toEqual({ state: 'pending' });
    expect(node.pool()).toEqual([first.txHash]);
    // The node loses it; 11 blocks (33 s) later it expired, but the solidified block is still older than its expiry.
    node.dropPool();
    node.produceBlocks(11);
    expect(await s.forwardStatus(first.txHash)).toEqual({ state: 'pending' });
    expect(await s.bumpForward(forward, previous)).toBeNull();
    // 19 more: the solidified block is past its expiration and the chain does not have it: it provably cannot land,
    // and the status says so at once (the forwarder then signs a new version without waiting).
    node.produceBlocks(19);
    expect(await s.forwardStatus(first.txHash)).toEqual({ state: 'expired' });
    const second = await s.bumpForward(forward, previous);
    expect(second).not.toBeNull();
    expect(second?.txHash).not.toBe(first.txHash);
    // The old version is refused for good; the new one lands, and the deposit is swept once.
    await s.broadcast(first.rawTx);
    expect(node.pool()).toEqual([]);
    stored.set(second?.txHash ?? '', { id: 'fwd_exp', rawTx: second?.rawTx ?? '' });
    await s.broadcast(second?.rawTx ?? '');
    node.produceBlocks(1);
    expect(await s.forwardStatus(second?.txHash ?? '')).toMatchObject({ state: 'included' });
    expect(node.account(payout.address)?.balance).toBe(1n + 4_000_000n);
  });

  /**
   * Produces blocks and asks the status (which sends the steps now ready), as the forwarder's rounds do, until `done`
   * holds after a block: the steps that become ready then are not sent yet.
   */
  async function rounds(s: ReturnType<typeof sweeper>, txHash: string, done: () => boolean, most = 60) {
    for (let round = 0; round < most; round++) {
      node.produceBlocks(1);
      if (done()) return;
      await s.forwardStatus(txHash);
    }
    throw new Error('never happened');
  }

  /** A USDT deposit and a resource wallet with energy staked; the sweep built, stored and its first step sent. */
  async function usdtSweep(id: string) {
    node.fund(resource.address, 30_000_000_000n);
    node.stake(resource.address, 'ENERGY', 20_000_000_000n);
    node.fund(payout.address, 1_000_000n, 1n);
    node.sendUsdt(funder.key, deposits[0]?.address ?? '', 5_000_000n);
    node.produceBlocks(1);
    const s = sweeper({ resource: true, expirationMs: 30_000 });
    const forward = intent(id, 'USDT', [5_000_000n]);
    const built = await s.buildForward(forward);
    stored.set(built.txHash, { id, rawTx: built.rawTx });
    await s.broadcast(built.rawTx);
    const deposit = deposits[0]?.address ?? '';
    const lent = () => node.account(resource.address)?.delegatedOutEnergy.get(deposits[0]?.hex ?? '') ?? 0n;
    return { s, forward, built, deposit, lent };
  }
  const roles = (rawTx: string) =>
    (JSON.parse(rawTx) as { steps: Array<{ role: string }> }).steps.map((step) => step.role);

  it('signs an undelegation that expired unsent again, holding the sweep open until the stake is back', async () => {
    const { s, forward, built, lent } = await usdtSweep('fwd_reclaim');
    expect(roles(built.rawTx)).toEqual(['activate', 'delegate', 'transfer', 'undelegate']);
    // The transfer lands; then the node loses everything sent to it, the undelegation included.
    await rounds(s, built.txHash, () => (node.account(payout.address)?.usdt ?? 0n) === 5_000_001n);
    node.setLoseBroadcasts(true);
    expect(lent()).toBeGreaterThan(0n);
    let status = await s.forwardStatus(built.txHash);
    for (let round = 0; round < 60 && status.state === 'pending'; round++) {
      node.produceBlocks(1);
      status = await s.forwardStatus(built.txHash);
    }
    // Its expiration is older than the solidified block and the chain does not have it: signed again, not given up.
    expect(status).toEqual({ state: 'expired' });
    expect(lent()).toBeGreaterThan(0n);
    const again = await s.bumpForward(forward, { fee: built.fee });
    expect(again).not.toBeNull();
    // The same sweep (its transfer kept, so its hash), with a new undelegation of what is still lent.
    expect(again?.txHash).toBe(built.txHash);
    expect(again?.amount).toBe(5_000_000n);
    expect(roles(again?.rawTx ?? '')).toEqual(['activate', 'delegate', 'transfer', 'undelegate']);
    const txIDs = (rawTx: string) =>
      (JSON.parse(rawTx) as { steps: Array<{ tx: { txID: string } }> }).steps.map((step) => step.tx.txID);
    expect(txIDs(again?.rawTx ?? '').slice(0, 3)).toEqual(txIDs(built.rawTx).slice(0, 3));
    expect(txIDs(again?.rawTx ?? '')[3]).not.toBe(txIDs(built.rawTx)[3]);
    stored.set(built.txHash, { id: 'fwd_reclaim', rawTx: again?.rawTx ?? '' });
    node.setLoseBroadcasts(false);
    await s.broadcast(again?.rawTx ?? '');
    node.produceBlocks(1);
    expect(lent()).toBe(0n);
    expect(await s.forwardStatus(built.txHash)).toMatchObject({ state: 'included' });
    // Swept once.
    expect(node.account(payout.address)?.usdt).toBe(5_000_001n);
  });

  it('ends the sweep without signing again when the stake came back otherwise (reclaimed by hand)', async () => {
    const { s, built, deposit, lent } = await usdtSweep('fwd_by_hand');
    await rounds(s, built.txHash, () => (node.account(payout.address)?.usdt ?? 0n) === 5_000_001n);
    node.setLoseBroadcasts(true);
    node.reclaim(resource.address, deposit, 'ENERGY');
    expect(lent()).toBe(0n);
    let status = await s.forwardStatus(built.txHash);
    for (let round = 0; round < 60 && status.state === 'pending'; round++) {
      node.produceBlocks(1);
      status = await s.forwardStatus(built.txHash);
    }
    expect(status).toMatchObject({ state: 'included' });
  });

  it('signs a transfer that expired unsent again, giving back the energy the old version lent, and sweeps once', async () => {
    const { s, forward, built, lent } = await usdtSweep('fwd_redo');
    // The activation and the delegation land; the transfer is lost until it cannot land any more.
    await rounds(s, built.txHash, () => lent() > 0n);
    node.setLoseBroadcasts(true);
    let status = await s.forwardStatus(built.txHash);
    for (let round = 0; round < 60 && status.state === 'pending'; round++) {
      node.produceBlocks(1);
      status = await s.forwardStatus(built.txHash);
    }
    expect(status).toEqual({ state: 'expired' });
    expect(node.account(payout.address)?.usdt).toBe(1n);
    const again = await s.bumpForward(forward, { fee: built.fee });
    expect(again).not.toBeNull();
    expect(again?.txHash).not.toBe(built.txHash);
    // What landed is kept; the energy already lent covers the new transfer, and the undelegation gives it back.
    expect(roles(again?.rawTx ?? '')).toEqual(['activate', 'delegate', 'transfer', 'undelegate']);
    expect((JSON.parse(again?.rawTx ?? '') as { carried?: unknown }).carried).toEqual([
      { address: deposits[0]?.address, resource: 'ENERGY', balance: lent().toString() },
    ]);
    stored.set(again?.txHash ?? '', { id: 'fwd_redo', rawTx: again?.rawTx ?? '' });
    node.setLoseBroadcasts(false);
    await s.broadcast(again?.rawTx ?? '');
    await rounds(s, again?.txHash ?? '', () => lent() === 0n);
    expect(await s.forwardStatus(again?.txHash ?? '')).toMatchObject({ state: 'included' });
    expect(node.account(payout.address)?.usdt).toBe(5_000_001n);
    // The old transfer is refused for good.
    expect(node.broadcast(JSON.parse(built.rawTx).steps[2].tx)).toMatchObject({
      code: 'TRANSACTION_EXPIRATION_ERROR',
    });
  });
});
