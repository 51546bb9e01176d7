import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  manualClock,
  schemaChecked,
  type TestApp,
} from '../../../test/support/harness.ts';
import { createIsolatedDatabase, seedPayloadFields } from '../../../test/support/webhooks.ts';
import { queryRows } from '../../db/client.ts';
import { toBaseUnits } from '../../lib/money.ts';
import { paymentDetailSchema } from '../payments/schemas.ts';
import type { ChainAdapter, Transfer } from './adapter.ts';
import { createForwarder } from './forwarder.ts';
import { chainsRepo } from './repo.ts';
import type { SimulatedChain } from './simulated/chain.ts';
import { createWatcher, type Watcher } from './watcher.ts';

let t: TestApp;
let m: Merchant;
let drop: () => Promise<void>;
const clock = manualClock(new Date());
let sim: SimulatedChain;
let watcher: Watcher;

const CONFIRMATIONS = 3;

beforeAll(async () => {
  // A database of its own: the watcher and forwarder act on every payment of their chain in the database.
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({
    database: isolated.database,
    clock,
    env: { SVC_SIM_CONFIRMATIONS: String(CONFIRMATIONS) },
  });
  m = await createMerchant(t.app);
  const chain = t.services.chainAdapters.simulated('ethereum');
  if (chain === undefined) throw new Error('no simulated ethereum');
  sim = chain;
  watcher = newWatcher();
  await sim.produceBlock();
  await watcher.poll(); // starts the cursor at the head
});

afterAll(async () => {
  await t?.close();
  await drop?.();
});

function newWatcher(): Watcher {
  return createWatcher({
    db: t.database.db,
    clock,
    adapter: sim,
    payments: t.services.payments,
    lateWatchDays: 7,
  });
}

function newForwarder(afterIntent?: (id: string) => void) {
  return createForwarder({
    db: t.database.db,
    clock,
    adapter: sim,
    payments: t.services.payments,
    settings: t.services.settings,
    afterIntent,
  });
}

/** Produces `blocks` blocks one second apart, then lets `w` scan them. */
async function advance(blocks: number, w: Watcher = watcher) {
  for (let i = 0; i < blocks; i++) {
    clock.advance(1000);
    await sim.produceBlock();
  }
  return w.poll();
}

async function createPayment(amount: string, extra: Record<string, unknown> = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/payments',
    headers: apiKey(m.testKey),
    payload: { amount, currency: 'ETH', chain: 'ethereum', ...extra },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { payment_id: string; address: string; expected_amount_native: string };
}

async function payment(id: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/v1/payments/${id}`,
    headers: apiKey(m.testKey),
  });
  expect(response.statusCode, response.body).toBe(200);
  // The route's compiled serializer writes what the schema-checked path would, deposits and events included.
  expect(response.body).toBe(schemaChecked(paymentDetailSchema)(response.json()));
  return response.json();
}

async function eventsOf(id: string): Promise<Array<{ type: string; body: Record<string, unknown> }>> {
  const rows = await queryRows<{ type: string; body: string }>(
    t.database.db,
    sql`select type, body from events where payment_id = ${id} order by created_at, id`,
  );
  return rows.map((row) => ({ type: row.type, body: JSON.parse(row.body) as Record<string, unknown> }));
}

const wei = (eth: string) => toBaseUnits(eth, 18);

describe('watcher on the simulated chain', () => {
  it('walks a paid payment through confirmations to completed with payment.confirmed', async () => {
    const p = await createPayment('0.01');
    const sent = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.01') });
    const seen = await advance(1);
    expect(seen.deposits).toBe(1);
    let view = await payment(p.payment_id);
    expect(view.status).toBe('confirming');
    expect(view.tx_hash).toBe(sent.txHash);
    expect(view.received_amount_native).toBe('0');
    expect(view.confirmations).toEqual({ seen: 1, required: CONFIRMATIONS });
    expect(view.deposits).toMatchObject([
      {
        tx_hash: sent.txHash,
        state: 'seen',
        amount_native: '0.01',
        confirmations: 1,
        simulated: true,
        explorer_url: null,
      },
    ]);
    expect(sent.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    await advance(1);
    expect((await payment(p.payment_id)).confirmations.seen).toBe(2);
    await advance(1);
    view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.received_amount_native).toBe('0.01');
    expect(view.confirmations).toEqual({ seen: CONFIRMATIONS, required: CONFIRMATIONS });
    expect(view.deposits[0].state).toBe('final');
    const events = await eventsOf(p.payment_id);
    expect(events.map((event) => event.type)).toEqual(['payment.confirmed']);
    expect(Object.keys(events[0]?.body ?? {})).toEqual(seedPayloadFields);
    expect(events[0]?.body).toMatchObject({
      event: 'payment.confirmed',
      payment_id: p.payment_id,
      status: 'completed',
      amount: 0.01,
      currency: 'ETH',
      chain: 'ethereum',
      tx_hash: sent.txHash,
      received_amount_native: '0.01',
      expected_amount_native: '0.01',
      is_test: true,
    });
    expect(view.events.map((event: { type: string }) => event.type)).toEqual(['payment.confirmed']);
  });

  it('underpaid, a top-up still short (second payment.underpaid), then paid in full', async () => {
    const p = await createPayment('1');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.25') });
    await advance(CONFIRMATIONS);
    expect((await payment(p.payment_id)).status).toBe('underpaid');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.25') });
    await advance(CONFIRMATIONS);
    const short = await payment(p.payment_id);
    expect(short.status).toBe('underpaid');
    expect(short.received_amount_native).toBe('0.5');
    expect(short.remaining_amount_native).toBe('0.5');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.5') });
    await advance(CONFIRMATIONS);
    expect((await payment(p.payment_id)).status).toBe('completed');
    const events = await eventsOf(p.payment_id);
    expect(
      events.map((event) => `${event.type}:${event.body.status}:${event.body.received_amount_native}`),
    ).toEqual([
      'payment.underpaid:underpaid:0.25',
      'payment.underpaid:underpaid:0.5',
      'payment.confirmed:completed:1',
    ]);
  });

  it('several deposits in one block count once each; more than expected is overpaid', async () => {
    const p = await createPayment('0.3');
    for (let i = 0; i < 3; i++) await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.15') });
    await advance(CONFIRMATIONS);
    const view = await payment(p.payment_id);
    expect(view.status).toBe('overpaid');
    expect(view.received_amount_native).toBe('0.45');
    expect(view.deposits).toHaveLength(3);
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.overpaid']);
  });

  it('honours the merchant tolerances', async () => {
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/v1/settings',
      headers: bearer(m.token),
      payload: { underpayment_tolerance_percent: '1', overpayment_tolerance_amount: '0.01' },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    try {
      const under = await createPayment('1');
      const over = await createPayment('1');
      await sim.sendDeposit({ to: under.address, asset: 'ETH', amount: wei('0.99') });
      await sim.sendDeposit({ to: over.address, asset: 'ETH', amount: wei('1.01') });
      await advance(CONFIRMATIONS);
      expect((await payment(under.payment_id)).status).toBe('completed');
      expect((await payment(over.payment_id)).status).toBe('completed');
    } finally {
      await t.app.inject({
        method: 'PATCH',
        url: '/v1/settings',
        headers: bearer(m.token),
        payload: { underpayment_tolerance_percent: '0', overpayment_tolerance_amount: '0' },
      });
    }
  });

  it('a new watcher over the same database continues mid-confirmation without missing or double counting', async () => {
    const p = await createPayment('0.02');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.02') });
    await advance(1);
    expect((await payment(p.payment_id)).status).toBe('confirming');
    // "Restart": the old watcher is dropped, blocks go on, a fresh instance picks up from the stored cursor.
    for (let i = 0; i < CONFIRMATIONS; i++) {
      clock.advance(1000);
      await sim.produceBlock();
    }
    const restarted = newWatcher();
    const result = await restarted.poll();
    expect(result.blocks).toBe(CONFIRMATIONS);
    expect(result.deposits).toBe(0);
    let view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.received_amount_native).toBe('0.02');

    // Even a rescan from an older cursor (as after a crash that lost the cursor) records nothing twice.
    const cursor = await chainsRepo.cursor(t.database.db, 'ethereum', true);
    if (cursor === undefined) throw new Error('no cursor');
    const back = await sim.block(cursor.blockNumber - CONFIRMATIONS - 1);
    if (back === null) throw new Error('no block');
    await chainsRepo.setCursor(t.database.db, {
      chain: 'ethereum',
      isTest: true,
      blockNumber: back.number,
      blockHash: back.hash,
      blockTime: back.timestamp,
      updatedAt: clock.now(),
    });
    const rescan = await newWatcher().poll();
    expect(rescan.blocks).toBeGreaterThan(CONFIRMATIONS);
    expect(rescan.deposits).toBe(0);
    view = await payment(p.payment_id);
    expect(view.deposits).toHaveLength(1);
    expect(view.received_amount_native).toBe('0.02');
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.confirmed']);
    watcher = newWatcher();
  });

  it('a deposit reorganised away before finality sends the payment back to pending; re-mined it completes', async () => {
    const p = await createPayment('0.03');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.03') });
    await advance(1);
    expect((await payment(p.payment_id)).status).toBe('confirming');

    await sim.reorg(1); // the block with the deposit is replaced by an empty one: a double spend
    const result = await advance(1);
    expect(result.reorgs).toBe(1);
    let view = await payment(p.payment_id);
    expect(view.status).toBe('pending');
    expect(view.tx_hash).toBeNull();
    expect(view.deposits).toMatchObject([{ state: 'reverted', confirmations: 0 }]);

    // Paid again; this time a reorg keeps the transaction (it is mined again in the new branch).
    const again = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.03') });
    await advance(1);
    await sim.reorg(1, { keepDeposits: true });
    await advance(CONFIRMATIONS);
    view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.received_amount_native).toBe('0.03');
    expect(view.tx_hash).toBe(again.txHash);
    expect(view.deposits.map((d: { state: string }) => d.state).sort()).toEqual(['final', 'reverted']);
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.confirmed']);
  });

  it('credits a deposit only once its transaction is re-checked where it was seen', async () => {
    const p = await createPayment('0.035');
    const sent = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.035') });
    let stands = false;
    const asked: string[] = [];
    const rechecking = createWatcher({
      db: t.database.db,
      clock,
      adapter: {
        ...sim,
        async recheck(deposits) {
          asked.push(...deposits.map((deposit) => deposit.txHash));
          return new Set(stands ? deposits.map((deposit) => deposit.txHash) : []);
        },
      },
      payments: t.services.payments,
      lateWatchDays: 7,
    });
    await advance(CONFIRMATIONS + 1, rechecking);
    let view = await payment(p.payment_id);
    expect(asked).toContain(sent.txHash);
    expect(view.status).toBe('confirming');
    expect(view.received_amount_native).toBe('0');
    expect(view.deposits).toMatchObject([{ state: 'seen' }]);
    expect(await eventsOf(p.payment_id)).toEqual([]);

    stands = true;
    await advance(1, rechecking);
    view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.received_amount_native).toBe('0.035');
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.confirmed']);
  });

  it('expires a payment with nothing seen precisely, also after a restart, and keeps late funds', async () => {
    const p = await createPayment('0.04', { expires_in: 60 });
    const expiresAt = Date.parse((await payment(p.payment_id)).expires_at);
    clock.set(new Date(expiresAt - 1));
    await t.services.payments.expireDue(clock.now());
    expect((await payment(p.payment_id)).status).toBe('pending');

    // A "restarted" process: new services over the same database find it by query, not by a timer.
    const restarted = await createTestApp({
      database: t.database,
      clock,
      env: { SVC_SIM_CONFIRMATIONS: String(CONFIRMATIONS) },
    });
    clock.set(new Date(expiresAt));
    await restarted.services.payments.expireDue(clock.now());
    await restarted.app.close();
    expect((await payment(p.payment_id)).status).toBe('expired');
    expect((await eventsOf(p.payment_id)).map((event) => `${event.type}:${event.body.status}`)).toEqual([
      'payment.expired:expired',
    ]);

    // Late funds: recorded, counted, the status stays expired.
    const late = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.04') });
    await advance(CONFIRMATIONS);
    const view = await payment(p.payment_id);
    expect(view.status).toBe('expired');
    expect(view.received_amount_native).toBe('0.04');
    expect(view.tx_hash).toBe(late.txHash);
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.expired']);

    // …and forwarded: payment.completed carries the status at that moment, expired.
    const forwarder = newForwarder();
    await forwarder.run(); // intent + broadcast
    await advance(CONFIRMATIONS);
    await forwarder.run();
    const forwarded = await payment(p.payment_id);
    expect(forwarded.status).toBe('expired');
    expect(forwarded.forwarded_at).not.toBeNull();
    expect(forwarded.forward_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Batched with the other settled payments of this chain: its share of the 21,000-gwei fee.
    const share = toBaseUnits(forwarded.forward_fee_native, 18);
    expect(share > 0n && share <= 21_000_000_000_000n).toBe(true);
    const events = await eventsOf(p.payment_id);
    expect(events.map((event) => `${event.type}:${event.body.status}`)).toEqual([
      'payment.expired:expired',
      'payment.completed:expired',
    ]);
    expect(events[1]?.body.received_amount_native).toBe('0.04');
  });

  it('a crash between the forwarding intent and its broadcast re-sends the same transaction, once', async () => {
    const wallets = await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=true',
      headers: bearer(m.token),
      payload: { ethereum: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    expect(wallets.statusCode, wallets.body).toBe(200);
    const a = await createPayment('0.05');
    const b = await createPayment('0.07');
    await sim.sendDeposit({ to: a.address, asset: 'ETH', amount: wei('0.05') });
    await sim.sendDeposit({ to: b.address, asset: 'ETH', amount: wei('0.07') });
    await advance(CONFIRMATIONS);
    expect((await payment(a.payment_id)).status).toBe('completed');

    const crashing = newForwarder(() => {
      throw new Error('crash after the intent commit');
    });
    await expect(crashing.run()).rejects.toThrow('crash after the intent commit');
    const intents = await queryRows<{ id: string; state: string; tx_hash: string; payment_ids: string[] }>(
      t.database.db,
      sql`select id, state, tx_hash, payment_ids from forwards where payment_ids @> ${JSON.stringify([a.payment_id])}::jsonb`,
    );
    expect(intents).toHaveLength(1);
    expect(intents[0]?.state).toBe('intent');
    expect(intents[0]?.payment_ids.sort()).toEqual([a.payment_id, b.payment_id].sort()); // batched
    const txHash = intents[0]?.tx_hash ?? '';
    const onChain = () =>
      queryRows<{ count: string | number }>(
        t.database.db,
        sql`select count(*) as count from sim_transfers where kind = 'forward' and tx_hash = ${txHash}`,
      ).then((rows) => Number(rows[0]?.count));
    expect(await onChain()).toBe(0);

    const forwarder = newForwarder();
    await forwarder.run();
    await forwarder.run();
    expect(await onChain()).toBe(1);
    const allForwards = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from sim_transfers where kind = 'forward' and to_address = '0x52908400098527886E0F7030069857D2E4169EE7'`,
    );
    expect(Number(allForwards[0]?.count)).toBe(1);

    await advance(CONFIRMATIONS);
    await forwarder.run();
    for (const p of [a, b]) {
      const view = await payment(p.payment_id);
      expect(view.forward_tx_hash).toBe(txHash);
      expect(view.forwarded_at).not.toBeNull();
      expect((await eventsOf(p.payment_id)).map((event) => `${event.type}:${event.body.status}`)).toEqual([
        'payment.confirmed:completed',
        'payment.completed:completed',
      ]);
    }
    // The fee is shared in proportion (5 : 7) and adds up to the whole fee.
    const fees = [await payment(a.payment_id), await payment(b.payment_id)].map((view) =>
      toBaseUnits(view.forward_fee_native, 18),
    );
    expect(fees[0]! + fees[1]!).toBe(21_000_000_000_000n);
    expect(fees[1]! > fees[0]!).toBe(true);
    // Running again changes nothing.
    await forwarder.run();
    expect((await eventsOf(a.payment_id)).filter((event) => event.type === 'payment.completed')).toHaveLength(
      1,
    );
  });

  it('a deposit worth less than its fee is left out of the batch: never reported as forwarded', async () => {
    const a = await createPayment('0.051');
    const tiny = await createPayment('0.000001');
    await sim.sendDeposit({ to: a.address, asset: 'ETH', amount: wei('0.051') });
    await sim.sendDeposit({ to: tiny.address, asset: 'ETH', amount: wei('0.000001') });
    await advance(CONFIRMATIONS);
    expect((await payment(tiny.payment_id)).status).toBe('completed');
    // The chain prices the tiny input above its worth (a real node's adapter leaves such inputs and says so).
    const built: string[][] = [];
    const forwarder = createForwarder({
      db: t.database.db,
      clock,
      adapter: {
        ...sim,
        async buildForward(intent) {
          built.push(intent.inputs.map((input) => input.address));
          const kept = intent.inputs.filter((input) => input.address !== tiny.address);
          const left = intent.inputs.filter((input) => input.address === tiny.address).map((i) => i.address);
          if (kept.length === 0) return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left };
          return { ...(await sim.buildForward({ ...intent, inputs: kept })), left };
        },
      },
      payments: t.services.payments,
      settings: t.services.settings,
    });
    await forwarder.run();
    await advance(CONFIRMATIONS);
    await forwarder.run();
    const swept = await payment(a.payment_id);
    expect(swept.forwarded_at).not.toBeNull();
    expect(toBaseUnits(swept.forward_fee_native, 18)).toBe(21_000_000_000_000n); // the whole fee: it moved alone
    const left = await payment(tiny.payment_id);
    expect(left.forwarded_at).toBeNull();
    expect(left.forward_tx_hash).toBeNull();
    expect((await eventsOf(tiny.payment_id)).map((event) => event.type)).toEqual(['payment.confirmed']);
    const [deposit] = await queryRows<{ forward_id: string | null }>(
      t.database.db,
      sql`select forward_id from deposits where payment_id = ${tiny.payment_id}`,
    );
    expect(deposit?.forward_id).toBeNull();
    // Left alone for a while: not priced again on the next rounds.
    const rounds = built.length;
    await forwarder.run();
    expect(built.length).toBe(rounds);
  });

  it('a sweep that reverts on chain fails its forward: the payment is not reported forwarded, nothing is resent', async () => {
    const p = await createPayment('0.052');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.052') });
    await advance(CONFIRMATIONS);
    let broadcasts = 0;
    const forwarder = createForwarder({
      db: t.database.db,
      clock,
      adapter: {
        ...sim,
        async broadcast(raw) {
          broadcasts += 1;
          return sim.broadcast(raw);
        },
        async forwardStatus(txHash) {
          const status = await sim.forwardStatus(txHash);
          return status.state === 'included'
            ? { ...status, reverted: `transaction ${txHash} reverted` }
            : status;
        },
      },
      payments: t.services.payments,
      settings: t.services.settings,
    });
    await forwarder.run();
    await advance(CONFIRMATIONS);
    const result = await forwarder.run();
    expect(result.failed).toBe(1);
    const view = await payment(p.payment_id);
    expect(view.forwarded_at).toBeNull();
    expect((await eventsOf(p.payment_id)).map((event) => event.type)).toEqual(['payment.confirmed']);
    const rows = await queryRows<{ state: string; last_error: string }>(
      t.database.db,
      sql`select state, last_error from forwards where payment_ids @> ${JSON.stringify([p.payment_id])}::jsonb`,
    );
    expect(rows).toEqual([{ state: 'failed', last_error: expect.stringContaining('reverted') }]);
    const sent = broadcasts;
    expect(await forwarder.run()).toMatchObject({ planned: 0, broadcast: 0, failed: 0 });
    expect(broadcasts).toBe(sent);
  });

  it('a sweep that expired unseen (Solana) is signed again once; the expired version is never switched back to', async () => {
    const a = await createPayment('0.061');
    const b = await createPayment('0.062');
    await sim.sendDeposit({ to: a.address, asset: 'ETH', amount: wei('0.061') });
    await sim.sendDeposit({ to: b.address, asset: 'ETH', amount: wei('0.062') });
    await advance(CONFIRMATIONS);
    const dropped = new Set<string>();
    const expired = new Set<string>();
    const resigned: string[] = [];
    let version = 0;
    const forwarder = createForwarder({
      db: t.database.db,
      clock,
      adapter: {
        ...sim,
        // One deposit address per transaction: the two payments make two forwards.
        maxForwardInputs: 1,
        async buildForward(intent) {
          const built = await sim.buildForward(intent);
          dropped.add(built.txHash); // every first version is lost on its way
          return built;
        },
        async broadcast(raw) {
          const { txHash } = JSON.parse(raw) as { txHash: string };
          if (!dropped.has(txHash)) await sim.broadcast(raw);
        },
        async forwardStatus(txHash) {
          return expired.has(txHash) ? { state: 'expired' } : sim.forwardStatus(txHash);
        },
        async bumpForward(intent, previous) {
          if (previous.txHash === undefined || !expired.has(previous.txHash)) return null;
          version += 1;
          const built = await sim.buildForward({ ...intent, id: `${intent.id}-v${version}` });
          resigned.push(built.txHash);
          return built;
        },
      },
      payments: t.services.payments,
      settings: t.services.settings,
    });
    expect(await forwarder.run()).toMatchObject({ planned: 2, broadcast: 2 });
    const forwards = () =>
      queryRows<{ id: string; tx_hash: string; state: string }>(
        t.database.db,
        sql`select id, tx_hash, state from forwards where payment_ids @> ${JSON.stringify([a.payment_id])}::jsonb or payment_ids @> ${JSON.stringify([b.payment_id])}::jsonb order by id`,
      );
    const first = await forwards();
    expect(first).toHaveLength(2);
    // Unseen and not yet expired: re-sent as is, nothing signed.
    await forwarder.run();
    expect(resigned).toEqual([]);
    for (const row of first) expired.add(row.tx_hash);
    await forwarder.run();
    expect(resigned).toHaveLength(2);
    // The new versions are current; the expired ones are kept as versions and never switched back to.
    const second = await forwards();
    expect(second.map((row) => row.tx_hash).sort()).toEqual([...resigned].sort());
    await forwarder.run();
    expect(resigned).toHaveLength(2);
    await advance(CONFIRMATIONS);
    await forwarder.run();
    for (const p of [a, b]) {
      const view = await payment(p.payment_id);
      expect(view.forwarded_at).not.toBeNull();
      expect(resigned).toContain(view.forward_tx_hash);
    }
    expect((await forwards()).map((row) => row.state)).toEqual(['final', 'final']);
    const versions = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from forward_versions where forward_id in (${sql.join(
        first.map((row) => sql`${row.id}`),
        sql`, `,
      )})`,
    );
    expect(Number(versions[0]?.count)).toBe(2);
  });

  it('a deposit key that does not sign for its address fails the forward before any signature: nothing is broadcast', async () => {
    const p = await createPayment('0.053');
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.053') });
    await advance(CONFIRMATIONS);
    // The payment's derivation index no longer matches its deposit address (as a derivation bug would leave it).
    await t.database.db.execute(
      sql`update payments set derivation_index = derivation_index + 1000 where id = ${p.payment_id}`,
    );
    let broadcasts = 0;
    const forwarder = createForwarder({
      db: t.database.db,
      clock,
      adapter: {
        ...sim,
        async broadcast(raw) {
          broadcasts += 1;
          return sim.broadcast(raw);
        },
      },
      payments: t.services.payments,
      settings: t.services.settings,
    });
    expect(await forwarder.run()).toMatchObject({ planned: 0, broadcast: 0 });
    expect(broadcasts).toBe(0);
    const rows = await queryRows<{ state: string; last_error: string; raw_tx: string }>(
      t.database.db,
      sql`select state, last_error, raw_tx from forwards where payment_ids @> ${JSON.stringify([p.payment_id])}::jsonb`,
    );
    expect(rows).toEqual([
      {
        state: 'failed',
        last_error: expect.stringMatching(/^signer_mismatch: .*not to the deposit address/),
        raw_tx: '',
      },
    ]);
    const view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.forwarded_at).toBeNull();
    // Never built again on its own.
    await advance(CONFIRMATIONS);
    expect(await forwarder.run()).toMatchObject({ planned: 0, broadcast: 0 });
    expect(broadcasts).toBe(0);
  });

  it('does not forward an open (underpaid) payment until its window ends', async () => {
    const p = await createPayment('1', { expires_in: 60 });
    await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.5') });
    await advance(CONFIRMATIONS);
    expect((await payment(p.payment_id)).status).toBe('underpaid');
    const forwarder = newForwarder();
    await forwarder.run();
    const planned = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from forwards where payment_ids @> ${JSON.stringify([p.payment_id])}::jsonb`,
    );
    expect(Number(planned[0]?.count)).toBe(0);
    clock.advance(61_000);
    await t.services.payments.expireDue(clock.now());
    const view = await payment(p.payment_id);
    expect(view.status).toBe('expired');
    await forwarder.run();
    await advance(CONFIRMATIONS);
    await forwarder.run();
    expect((await payment(p.payment_id)).forwarded_at).not.toBeNull();
    expect((await eventsOf(p.payment_id)).map((event) => `${event.type}:${event.body.status}`)).toEqual([
      'payment.underpaid:underpaid',
      'payment.expired:expired',
      'payment.completed:expired',
    ]);
  });

  it('expiry goes past payments that must stay open (an in-time top-up still confirming)', async () => {
    const stuck = [
      await createPayment('1', { expires_in: 60 }),
      await createPayment('1', { expires_in: 60 }),
    ];
    clock.advance(1000); // its window ends last, so the two that must wait come first in the expiry order
    const idle = await createPayment('1', { expires_in: 60 });
    for (const p of stuck) await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.5') });
    await advance(CONFIRMATIONS);
    for (const p of stuck) await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.5') });
    await advance(1); // the top-ups are seen in time, not final
    clock.advance(62_000);
    // One payment per batch: the two that must wait come first and are passed over, not retried for ever.
    await t.services.payments.expireDue(clock.now(), 1);
    expect((await payment(idle.payment_id)).status).toBe('expired');
    for (const p of stuck) expect((await payment(p.payment_id)).status).toBe('underpaid');
    await advance(CONFIRMATIONS);
    for (const p of stuck) expect((await payment(p.payment_id)).status).toBe('completed');
  });

  it("finds a deposit sent before the chain's first block (it lands in block 1, after the watcher's start)", async () => {
    const base = t.services.chainAdapters.simulated('base');
    if (base === undefined) throw new Error('no simulated base');
    expect(await base.head()).toBeNull();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.testKey),
      payload: { amount: '0.01', currency: 'ETH', chain: 'base' },
    });
    const p = response.json();
    await base.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.01') });
    const w = createWatcher({
      db: t.database.db,
      clock,
      adapter: base,
      payments: t.services.payments,
      lateWatchDays: 7,
    });
    // What the settlement loop does first on a chain without blocks: a first block, then the watcher's start.
    await base.produceBlock();
    await w.poll();
    await base.produceBlock();
    expect((await w.poll()).deposits).toBe(1);
    expect((await payment(p.payment_id)).status).toBe('confirming');
  });

  it('survives a reorganisation that replaces the whole chain, genesis included', async () => {
    const polygon = t.services.chainAdapters.simulated('polygon');
    if (polygon === undefined) throw new Error('no simulated polygon');
    const w = createWatcher({
      db: t.database.db,
      clock,
      adapter: polygon,
      payments: t.services.payments,
      lateWatchDays: 7,
    });
    await polygon.produceBlock();
    await w.poll();
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.testKey),
      payload: { amount: '2', currency: 'POL', chain: 'polygon' },
    });
    const p = response.json();
    await polygon.sendDeposit({ to: p.address, asset: 'POL', amount: toBaseUnits('2', 18) });
    await polygon.produceBlock();
    await w.poll();
    expect((await payment(p.payment_id)).status).toBe('confirming');
    const head = await polygon.head();
    await polygon.reorg((head?.number ?? 0) + 1, { keepDeposits: true });
    for (let i = 0; i < CONFIRMATIONS; i++) await polygon.produceBlock();
    const result = await w.poll();
    expect(result.reorgs).toBe(1);
    const view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.deposits).toHaveLength(1);
    expect(view.received_amount_native).toBe('2');
  });
});

describe('watcher with a mempool (UTXO chains)', () => {
  /** The simulated chain plus a mempool the test fills: what a Bitcoin-family adapter reports between blocks. */
  function withMempool(recheck?: ChainAdapter['recheck']) {
    let pending: Transfer[] = [];
    let gone: Array<{ txHash: string; outputIndex: number }> = [];
    const adapter: ChainAdapter = {
      ...sim,
      ...(recheck === undefined ? {} : { recheck }),
      async mempool(_watched, recorded) {
        const out = {
          transfers: pending,
          gone: gone.filter((g) => recorded.some((r) => r.txHash === g.txHash)),
        };
        pending = [];
        gone = [];
        return out;
      },
    };
    const w = createWatcher({
      db: t.database.db,
      clock,
      adapter,
      payments: t.services.payments,
      lateWatchDays: 7,
    });
    return {
      w,
      seen: (transfer: Transfer) => {
        pending.push(transfer);
      },
      drop: (txHash: string) => {
        gone.push({ txHash, outputIndex: 0 });
      },
    };
  }

  it('a mempool payment is confirming at once and honoured when its block comes after the window', async () => {
    const { w, seen } = withMempool();
    const p = await createPayment('0.02', { expires_in: 60 });
    const sent = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.02') });
    seen({
      txHash: sent.txHash,
      outputIndex: sent.outputIndex,
      to: p.address,
      asset: 'ETH',
      amount: wei('0.02'),
    });
    await w.poll();
    let view = await payment(p.payment_id);
    expect(view.status).toBe('confirming');
    expect(view.deposits).toMatchObject([{ state: 'mempool', block_number: null, confirmations: 0 }]);
    // The window ends before the block: still confirming (first seen in time).
    clock.advance(61_000);
    await t.services.payments.expireDue(clock.now());
    expect((await payment(p.payment_id)).status).toBe('confirming');
    await advance(CONFIRMATIONS, w);
    view = await payment(p.payment_id);
    expect(view.status).toBe('completed');
    expect(view.deposits).toMatchObject([{ tx_hash: sent.txHash, state: 'final' }]);
    expect((await eventsOf(p.payment_id)).map((e) => e.type)).toEqual(['payment.confirmed']);
  });

  it('a mempool deposit found already deep, in a block where it does not stand, is not credited until it does', async () => {
    let stands = false;
    const { w, seen } = withMempool(async (deposits) =>
      stands ? new Set(deposits.map((deposit) => deposit.txHash)) : new Set(),
    );
    const p = await createPayment('0.025');
    const sent = await sim.sendDeposit({ to: p.address, asset: 'ETH', amount: wei('0.025') });
    seen({
      txHash: sent.txHash,
      outputIndex: sent.outputIndex,
      to: p.address,
      asset: 'ETH',
      amount: wei('0.025'),
    });
    await w.poll();
    expect((await payment(p.payment_id)).deposits).toMatchObject([{ state: 'mempool' }]);
    // Mined, and deep enough by the time the watcher looks; the recorded row (its id is the mempool sighting's) is
    // withheld like the fresh one.
    await advance(CONFIRMATIONS + 1, w);
    let view = await payment(p.payment_id);
    expect(view.deposits).toMatchObject([{ tx_hash: sent.txHash, state: 'seen' }]);
    expect(view.status).toBe('confirming');
    expect(await eventsOf(p.payment_id)).toEqual([]);
    stands = true;
    await advance(1, w);
    view = await payment(p.payment_id);
    expect(view.deposits).toMatchObject([{ tx_hash: sent.txHash, state: 'final' }]);
    expect(view.status).toBe('completed');
    expect((await eventsOf(p.payment_id)).map((e) => e.type)).toEqual(['payment.confirmed']);
  });

  it('a mempool payment replaced or double-spent stops counting at once: back to pending, expired after the window', async () => {
    const { w, seen, drop } = withMempool();
    const p = await createPayment('0.03', { expires_in: 60 });
    const txHash = `0x${'ab'.repeat(32)}`;
    seen({ txHash, outputIndex: 0, to: p.address, asset: 'ETH', amount: wei('0.03') });
    await w.poll();
    expect((await payment(p.payment_id)).status).toBe('confirming');
    drop(txHash);
    await w.poll();
    const view = await payment(p.payment_id);
    expect(view.status).toBe('pending');
    expect(view.deposits).toMatchObject([{ tx_hash: txHash, state: 'reverted' }]);
    clock.advance(61_000);
    await t.services.payments.expireDue(clock.now());
    expect((await payment(p.payment_id)).status).toBe('expired');
    expect((await eventsOf(p.payment_id)).map((e) => e.type)).toEqual(['payment.expired']);
  });
});
