import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBaseUnits } from '../src/lib/money.ts';
import { strongPassword, uniqueEmail } from './support/harness.ts';
import { startIsolatedServe } from './support/live-program.ts';
import { type FakeTronNode, startFakeTronNode, testKey } from './support/tron-node.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Tron payments end to end: the real program (`svc serve`, spawned) with a live mnemonic and
 * SVC_CHAIN_TRON_RPC_URL pointing at the fake Tron node (test/support/tron-node.ts: no Tron node runs here), which
 * this test drives: it produces a block every 100 ms (wall-clock times) and solidifies 19 behind. A payer pays the
 * deposit addresses the API hands out; checked through the API: TRX and USDT payments confirming at the head and
 * completed once solidified, swept to the payout wallet (USDT with energy delegated from the resource wallet, no TRX
 * burnt for it); underpaid then topped up; overpaid; a reverted USDT transfer never credited; a fork walked back; the
 * node gone mid-scan and back; a sweep the node lost, re-sent as is until it expired and only then signed again
 * (once); an undelegation the node lost, signed again so the stake comes back before the sweep is final. Operators see
 * what the sweeps cost and the resource wallet's stake.
 */

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  expected_amount_native: string;
  received_amount_native: string;
  forwarded_at: string | null;
  forward_tx_hash: string | null;
  deposits: Array<{ tx_hash: string; amount_native: string; state: string; output_index: number }>;
  events: Array<{ type: string }>;
}

describe('live Tron payments through the running program against the fake Tron node', {
  timeout: 120_000,
}, () => {
  let node: FakeTronNode;
  let base = '';
  let output = (): string => '';
  let stop: () => Promise<void> = async () => {};
  let producer: ReturnType<typeof setInterval> | undefined;
  let key = '';
  /** The first account's dashboard session: an operator of the instance. */
  let session = '';
  const payer = testKey('e2e-payer');
  const payout = testKey('e2e-payout');
  const resource = testKey('e2e-resource');

  beforeAll(async () => {
    node = await startFakeTronNode({ wallClock: true });
    node.fund(payer.address, 100_000_000_000n, 1_000_000_000_000n);
    node.fund(resource.address, 50_000_000_000n);
    node.stake(resource.address, 'ENERGY', 40_000_000_000n);
    // The payout already holds USDT (the cheap case: 64,285 energy a sweep) and exists.
    node.fund(payout.address, 1_000_000n, 1n);
    node.produceBlocks(25);
    producer = setInterval(() => node.produceBlocks(1), 100);
    const started = await startIsolatedServe({
      dataDirPrefix: 'svc-tron-live-',
      env: {
        SVC_CHAIN_TRON_RPC_URL: node.url,
        SVC_CHAIN_TRON_API_KEY: 'e2e-key',
        SVC_CHAIN_TRON_POLL_MS: '100',
        SVC_CHAIN_TRON_RESOURCE_KEY: Buffer.from(resource.key).toString('hex'),
        // Sweeps expire 30 s after their reference block (the least allowed), for the re-signing case.
        SVC_CHAIN_TRON_SWEEP_EXPIRATION_SECONDS: '30',
        SVC_TRON_HTTP_TIMEOUT_MS: '1000',
        SVC_TRON_HTTP_RETRIES: '1',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'info',
      },
    });
    stop = started.stop;
    base = started.base;
    const served = started.program;
    output = served.output;
    ({ key, session } = await merchant());
  }, 120_000);

  afterAll(async () => {
    if (producer !== undefined) clearInterval(producer);
    await stop();
    await node?.close();
  });

  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${base}/v1${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async function merchant(): Promise<{ key: string; session: string }> {
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
    });
    const { token } = (await signup.json()) as { token: string };
    const pair = (await (
      await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    ).json()) as { live: { full_key: string } };
    const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tron: payout.address }),
    });
    if (wallets.status !== 200) throw new Error(`payout wallets: ${wallets.status} ${await wallets.text()}`);
    return { key: pair.live.full_key, session: token };
  }

  /** A GET of an operator's view, with the first account's dashboard session. */
  async function operatorView<T>(path: string): Promise<T> {
    const response = await fetch(`${base}/v1${path}`, { headers: { authorization: `Bearer ${session}` } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** What the node charged for the transactions svc sent it (the sweeps), from their transaction infos. */
  async function chargedForSweeps() {
    let fee = 0n;
    let energyUsed = 0n;
    let energyDelegated = 0n;
    for (const txid of new Set(node.broadcasts().map((sent) => sent.txid))) {
      const info = (await (
        await fetch(`${node.url}/wallet/gettransactioninfobyid`, {
          method: 'POST',
          body: JSON.stringify({ value: txid }),
        })
      ).json()) as { fee?: number; receipt?: { energy_usage?: number; energy_usage_total?: number } };
      fee += BigInt(info.fee ?? 0);
      energyUsed += BigInt(info.receipt?.energy_usage_total ?? 0);
      energyDelegated += BigInt(info.receipt?.energy_usage ?? 0);
    }
    return { fee, energyUsed, energyDelegated };
  }

  const create = (amount: string, currency: 'TRX' | 'USDT') =>
    api<Payment>('POST', '/payments', {
      chain: 'tron',
      amount,
      currency,
      ...(currency === 'USDT' ? { asset: 'USDT' } : {}),
    });
  const get = (id: string) => api<Payment>('GET', `/payments/${id}`);
  const types = (p: Payment) => p.events.map((e) => e.type);

  async function until(id: string, what: string, check: (p: Payment) => boolean, timeoutMs = 20_000) {
    let last: Payment | undefined;
    try {
      return await waitFor(
        `${what} (payment ${id})`,
        async () => {
          last = await get(id);
          return check(last) ? last : undefined;
        },
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
    }
  }

  it('a TRX payment: confirming at the head, completed once solidified, swept to the payout less nothing but fees', async () => {
    const p = await create('12.5', 'TRX');
    expect(p.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const before = node.account(payout.address)?.balance ?? 0n;
    node.sendTrx(payer.key, p.address, 12_500_000n);
    await until(p.payment_id, 'confirming', (x) => x.status === 'confirming' || x.status === 'completed');
    const done = await until(p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(done.received_amount_native).toBe('12.5');
    expect(types(done)).toContain('payment.confirmed');
    const swept = await until(p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 30_000);
    expect(swept.forward_tx_hash).toMatch(/^[0-9a-f]{64}$/);
    // The deposit's free bandwidth paid for the sweep: all 12.5 TRX reached the payout.
    expect((node.account(payout.address)?.balance ?? 0n) - before).toBe(12_500_000n);
    expect(node.account(p.address)?.balance).toBe(0n);
  });

  it('a USDT payment swept with energy delegated by the resource wallet: no TRX burnt for energy', async () => {
    const p = await create('7', 'USDT');
    const before = node.account(payout.address)?.usdt ?? 0n;
    node.sendUsdt(payer.key, p.address, 7_000_000n);
    const done = await until(p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(done.deposits).toMatchObject([{ output_index: 1000, amount_native: '7' }]);
    await until(p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 30_000);
    expect((node.account(payout.address)?.usdt ?? 0n) - before).toBe(7_000_000n);
    // The deposit was activated with 1 sun and burnt none of it (that sun is svc's own transfer: never a payment, never
    // swept); the delegation was reclaimed.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(node.account(p.address)?.balance).toBe(1n);
    expect((await get(p.payment_id)).deposits).toHaveLength(1);
    expect(node.account(p.address)?.delegatedInEnergy).toBe(0n);

    // What operators see: the sweeps so far (this one and the TRX sweep before it) cost exactly what the node charged
    // for their transactions; this one's 64,285 energy (the payout holds USDT) was all lent, none burnt.
    const charged = await chargedForSweeps();
    expect(charged.energyDelegated).toBe(64_285n);
    const costs = await operatorView<{ data: unknown[] }>('/operator/sweep-costs');
    expect(costs.data).toEqual([
      {
        chain: 'tron',
        is_test: false,
        asset: 'TRX',
        sweeps: 2,
        fee_native: fromBaseUnits(charged.fee, 6),
        energy_used: charged.energyUsed.toString(),
        energy_delegated: '64285',
      },
    ]);
    // The resource wallet's stake: 40,000 TRX for energy, nothing lent once the sweep gave it back; at 10 energy a TRX
    // it gives 400,000 energy, 5 sweeps of 7,072 TRX (64,285 energy and 10%) each.
    const wallets = await operatorView<{ data: Array<Record<string, unknown>> }>('/operator/fee-wallets');
    expect(wallets.data).toEqual([
      expect.objectContaining({
        chain: 'tron',
        is_test: false,
        address: resource.address,
        stake: {
          energy_staked_native: '40000',
          energy_lent_native: '0',
          bandwidth_staked_native: '0',
          bandwidth_lent_native: '0',
          energy_available: '400000',
          energy_per_sweep: '64285',
          sweeps_covered: 5,
          short: false,
        },
      }),
    ]);
  });

  it('underpaid, then topped up; overpaid; a reverted transfer never credited', async () => {
    const under = await create('10', 'USDT');
    node.sendUsdt(payer.key, under.address, 4_000_000n);
    await until(under.payment_id, 'underpaid', (x) => x.status === 'underpaid');
    node.sendUsdt(payer.key, under.address, 6_000_000n);
    const topped = await until(under.payment_id, 'completed', (x) => x.status === 'completed');
    expect(topped.received_amount_native).toBe('10');
    expect(topped.deposits).toHaveLength(2);

    const over = await create('3', 'TRX');
    node.sendTrx(payer.key, over.address, 5_000_000n);
    const overpaid = await until(over.payment_id, 'overpaid', (x) => x.status === 'overpaid');
    expect(overpaid.received_amount_native).toBe('5');

    const reverted = await create('2', 'USDT');
    node.sendUsdt(payer.key, reverted.address, 2_000_000n, { revert: true });
    // 40 blocks later (past solidification) nothing was seen.
    const at = node.head().number;
    await waitFor('40 blocks', () => node.head().number >= at + 40, 20_000);
    const still = await get(reverted.payment_id);
    expect(still.deposits).toEqual([]);
    expect(still.status).toBe('pending');
  });

  it('a fork replaces the block of a deposit before it is solidified: walked back, the payment pending again', async () => {
    const p = await create('0.75', 'TRX');
    if (producer !== undefined) clearInterval(producer);
    const id = node.sendTrx(payer.key, p.address, 750_000n);
    node.produceBlocks(3);
    // The status is part of the condition: GET /v1/payments/{id} reads the payment and its deposits in two
    // statements, so a read racing the watcher's commit may list the deposit beside the status from before it.
    await until(
      p.payment_id,
      'seen at the head, confirming',
      (x) => x.deposits[0]?.state === 'seen' && x.status === 'confirming',
    );
    // The three newest blocks are replaced by four others without the payment (the payer's transaction is gone).
    node.fork(3, { drop: true });
    node.produceBlocks(1);
    const back = await until(p.payment_id, 'pending again', (x) => x.status === 'pending');
    expect(back.deposits).toMatchObject([{ tx_hash: id, state: 'reverted' }]);
    expect(back.received_amount_native).toBe('0');
    producer = setInterval(() => node.produceBlocks(1), 100);
    // Once the new blocks are solidified (and a little after), the payment was never confirmed.
    const forkedAt = node.head().number;
    await waitFor('the fork solidified', () => node.solidNumber() > forkedAt, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await get(p.payment_id)).events.map((e) => e.type)).not.toContain('payment.confirmed');
  });

  it('the node gone mid-scan and back: payments made meanwhile are found', async () => {
    const p = await create('1.5', 'TRX');
    if (producer !== undefined) clearInterval(producer);
    node.setDown(true);
    node.sendTrx(payer.key, p.address, 1_500_000n);
    node.produceBlocks(5);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const ready = await fetch(`${base}/readyz`);
    const detail = await ready.text();
    expect(ready.status).toBe(503);
    expect(detail).toMatch(/tron \(live\): node unreachable/);
    node.setDown(false);
    producer = setInterval(() => node.produceBlocks(1), 100);
    await until(p.payment_id, 'completed after the outage', (x) => x.status === 'completed');
    await waitFor('ready again', async () => (await fetch(`${base}/readyz`)).status === 200, 10_000);
  });

  it('a sweep the node loses: re-sent as is until it expires, then signed again once, and swept once', async () => {
    const p = await create('2', 'TRX');
    node.setLoseBroadcasts(true);
    node.sendTrx(payer.key, p.address, 2_000_000n);
    await until(p.payment_id, 'completed', (x) => x.status === 'completed');
    const sweeps = () =>
      new Set(
        node
          .broadcasts()
          .filter((b) => b.owner === p.address)
          .map((b) => b.txid),
      );
    const first = await waitFor('the sweep broadcast', () => [...sweeps()][0], 20_000);
    // Its expiry (30 s after its reference block) passes while every re-send of the same bytes is lost; nothing else is
    // signed meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 29_000));
    expect(sweeps()).toEqual(new Set([first]));
    // Once the solidified block is past its expiry (it provably cannot land), one new version is signed.
    const second = await waitFor('a second version', () => [...sweeps()].find((id) => id !== first), 20_000);
    node.setLoseBroadcasts(false);
    const swept = await until(p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 30_000);
    expect(swept.forward_tx_hash).toBe(second);
    expect(sweeps()).toEqual(new Set([first, second]));
    // The first version never landed; the second moved the 2 TRX (other sweeps to this payout land meanwhile).
    const post = (path: string, value: string) =>
      fetch(`${node.url}${path}`, { method: 'POST', body: JSON.stringify({ value }) }).then((r) => r.json());
    expect(await post('/wallet/gettransactioninfobyid', first)).toEqual({});
    const landed = (await post('/wallet/gettransactionbyid', second)) as {
      raw_data: { contract: Array<{ parameter: { value: { amount: number } } }> };
    };
    expect(landed.raw_data.contract[0]?.parameter.value.amount).toBe(2_000_000);
    expect(node.account(p.address)?.balance).toBe(0n);
  }, 90_000);

  it('an undelegation the node loses: signed again once it provably cannot land; the sweep is final only with the stake back', async () => {
    const p = await create('3', 'USDT');
    const undelegations = new Set<string>();
    let lost: string | undefined;
    // The node loses the sweep's first undelegation, every time it is sent, and nothing else.
    node.setLoseBroadcasts((tx) => {
      if (tx.raw_data.contract[0]?.type !== 'UnDelegateResourceContract') return false;
      undelegations.add(tx.txID);
      lost ??= tx.txID;
      return tx.txID === lost;
    });
    node.sendUsdt(payer.key, p.address, 3_000_000n);
    await until(p.payment_id, 'completed', (x) => x.status === 'completed');
    await waitFor('the USDT swept', () => node.account(p.address)?.usdt === 0n, 30_000);
    // The stake stays lent while its undelegation is lost, and the sweep is not final meanwhile.
    await waitFor('the undelegation sent', () => lost, 10_000);
    expect(node.account(p.address)?.delegatedInEnergy).toBeGreaterThan(0n);
    expect((await get(p.payment_id)).forwarded_at).toBeNull();
    // Once the solidified block is past its expiry, one new undelegation is signed; it lands, and only then is the
    // sweep final, with the stake back.
    const swept = await until(p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 60_000);
    node.setLoseBroadcasts(false);
    expect(node.account(p.address)?.delegatedInEnergy).toBe(0n);
    expect(undelegations.size).toBe(2);
    // The payment's sweep is its USDT transfer, signed once.
    const transfers = new Set(
      node
        .broadcasts()
        .filter((sent) => sent.owner === p.address)
        .map((sent) => sent.txid),
    );
    expect(transfers).toEqual(new Set([swept.forward_tx_hash]));
  }, 90_000);
});
