import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, createMerchant, createTestApp, type TestApp } from '../../../../test/support/harness.ts';
import { confirmedPaymentEvent, createIsolatedDatabase } from '../../../../test/support/webhooks.ts';
import { type Db, queryRows } from '../../../db/client.ts';
import { streamRepo } from '../events/stream-repo.ts';
import { MAX_ATTEMPTS, retryDelayMs } from './outcome.ts';
import { deliveriesRepo } from './repo.ts';

let t: TestApp;
let drop: () => Promise<void>;
beforeAll(async () => {
  // Claims take every due delivery of the database: this file keeps its own.
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({ database: isolated.database });
});
afterAll(async () => {
  await t?.close();
  await drop?.();
});

async function endpointWithEvents(count: number) {
  const m = await createMerchant(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: apiKey(m.testKey),
    payload: { url: 'http://127.0.0.1:9/hooks' },
  });
  const endpointId = created.json().id as string;
  for (let index = 0; index < count; index += 1) {
    await t.services.events.recordPaymentEvent(t.database.db, confirmedPaymentEvent(m.merchantId, index));
  }
  return { m, endpointId };
}

const claim = (
  token: string,
  overrides: Partial<Parameters<typeof deliveriesRepo.claim>[1]> = {},
  db: Db = t.database.db,
) => {
  const now = new Date();
  return deliveriesRepo.claim(db, {
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    token,
    limit: 100,
    perEndpoint: 100,
    skipEndpoints: [],
    perMerchant: 100,
    merchantLoad: new Map(),
    maxAttempts: MAX_ATTEMPTS,
    ...overrides,
  });
};

/** The outcome of an attempt that succeeded, sent under `leaseToken`. */
const succeeded = (id: string, leaseToken: string) => ({
  id,
  leaseToken,
  status: 'succeeded' as const,
  nextAttemptAt: null,
  attemptedAt: new Date(),
  statusCode: 200,
  error: null,
});

const row = async (id: string) =>
  (
    await queryRows<{ status: string; attempt_count: number; lease_token: string | null }>(
      t.database.db,
      sql`select status, attempt_count, lease_token from webhook_deliveries where id = ${id}`,
    )
  )[0];

describe('delivery claims', () => {
  it('leases a claim, hands it back when the lease runs out, and ignores a stale outcome', async () => {
    const { endpointId } = await endpointWithEvents(1);
    const now = new Date();
    const [first, ...others] = await claim('one', { leaseUntil: new Date(now.getTime() + 1000) });
    expect(others).toEqual([]);
    expect(first).toMatchObject({ endpointId, status: 'pending', attempt: 1, lostToken: null });
    expect(first?.body).toMatch(/^\{"event":"payment.confirmed"/);
    expect(await claim('two')).toEqual([]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, now.getTime() + 1050 - Date.now())));
    const [again] = await claim('three');
    expect(again).toMatchObject({ id: first?.id, attempt: 2, lostToken: 'one' });

    await deliveriesRepo.record(t.database.db, [], [succeeded(first!.id, 'one')]);
    expect(await row(first!.id)).toMatchObject({ status: 'pending', lease_token: 'three' });
    await deliveriesRepo.record(t.database.db, [], [succeeded(first!.id, 'three')]);
    expect(await row(first!.id)).toMatchObject({ status: 'succeeded', attempt_count: 2, lease_token: null });
  });

  it('writes events, sequences them, claims and records through statements a server parses once per connection', async () => {
    const { m } = await endpointWithEvents(1);
    await t.database.db.transaction(async (tx) => {
      await t.services.events.recordPaymentEvent(tx, confirmedPaymentEvent(m.merchantId, 1));
      expect((await streamRepo.sequence(tx, 100)).length).toBeGreaterThanOrEqual(1);
      // One connection: the second run of each statement reuses what the first prepared there.
      const first = await claim('first', { limit: 1 }, tx);
      const second = await claim('second', { limit: 1 }, tx);
      expect([first.length, second.length]).toEqual([1, 1]);
      expect(second[0]?.id).not.toBe(first[0]?.id);
      for (const [claimed, token] of [
        [first, 'first'],
        [second, 'second'],
      ] as const) {
        await deliveriesRepo.record(
          tx,
          [],
          claimed.map((delivery) => succeeded(delivery.id, token)),
        );
      }
      if (t.database.kind === 'postgres') {
        const prepared = await queryRows<{ name: string }>(
          tx,
          sql`select name from pg_prepared_statements order by name`,
        );
        expect(prepared.map((statement) => statement.name)).toEqual(
          expect.arrayContaining([
            'event_stream_lock_head',
            'event_stream_sequence',
            'events_insert_with_deliveries',
            'webhook_deliveries_claim',
            'webhook_deliveries_record',
          ]),
        );
      }
    });
  });

  it('caps claims per endpoint, skips busy endpoints and gives back unstarted claims', async () => {
    const { endpointId } = await endpointWithEvents(5);
    expect(await claim('busy', { skipEndpoints: [endpointId] })).toEqual([]);
    const capped = await claim('capped', { perEndpoint: 2 });
    expect(capped).toHaveLength(2);
    await deliveriesRepo.release(
      t.database.db,
      capped.map((c) => ({ id: c.id, leaseToken: 'capped' })),
      new Date(),
    );
    for (const c of capped) expect(await row(c.id)).toMatchObject({ attempt_count: 0, lease_token: null });
    expect(await claim('rest')).toHaveLength(5);
  });

  it("takes turns across merchants and leaves out a merchant's share beyond its cap", async () => {
    const backlog = await endpointWithEvents(10);
    const fresh = await endpointWithEvents(2);
    // Turns: A's oldest, B's oldest, A's second; B is not left behind A's ten older deliveries.
    const turns = await claim('turns', { limit: 3 });
    expect(turns.filter((c) => c.endpointId === backlog.endpointId)).toHaveLength(2);
    expect(turns.filter((c) => c.endpointId === fresh.endpointId)).toHaveLength(1);
    expect(
      turns.every(
        (c) =>
          c.merchantId === (c.endpointId === backlog.endpointId ? backlog.m.merchantId : fresh.m.merchantId),
      ),
    ).toBe(true);
    // A already holds 2 of its 3 in this worker: one more of A at most; B's full cap is 3.
    const capped = await claim('capped-merchant', {
      perMerchant: 3,
      merchantLoad: new Map([[backlog.m.merchantId, 2]]),
    });
    expect(capped.filter((c) => c.endpointId === backlog.endpointId)).toHaveLength(1);
    expect(capped.filter((c) => c.endpointId === fresh.endpointId)).toHaveLength(1);
    // A merchant at its cap is not scanned at all.
    const none = await claim('full', { perMerchant: 3, merchantLoad: new Map([[backlog.m.merchantId, 3]]) });
    expect(none).toEqual([]);
    await deliveriesRepo.release(
      t.database.db,
      [
        ...turns.map((c) => ({ id: c.id, leaseToken: 'turns' })),
        ...capped.map((c) => ({ id: c.id, leaseToken: 'capped-merchant' })),
      ],
      new Date(),
    );
    await t.database.db.execute(
      sql`update webhook_deliveries set status = 'canceled'
          where endpoint_id in (${backlog.endpointId}, ${fresh.endpointId})`,
    );
  });

  it('closes deliveries of disabled endpoints and of ones whose last attempt was lost', async () => {
    const disabled = await endpointWithEvents(1);
    await t.database.db.execute(
      sql`update webhook_endpoints set enabled = false where id = ${disabled.endpointId}`,
    );
    const exhausted = await endpointWithEvents(1);
    await t.database.db.execute(
      sql`update webhook_deliveries set attempt_count = ${MAX_ATTEMPTS}, lease_token = 'gone'
          where endpoint_id = ${exhausted.endpointId}`,
    );
    const claimed = await claim('closer');
    expect(claimed.find((c) => c.endpointId === disabled.endpointId)).toMatchObject({ status: 'canceled' });
    expect(claimed.find((c) => c.endpointId === exhausted.endpointId)).toMatchObject({
      status: 'failed',
      attempt: MAX_ATTEMPTS,
      lostToken: 'gone',
    });
    for (const c of claimed) expect((await row(c.id))?.lease_token).toBeNull();
    expect(await claim('after')).toEqual([]);
  });
});

describe('retry schedule', () => {
  it('waits the configured delay before each attempt, within ±10% jitter', () => {
    const schedule = [60_000, 600_000, 6_000_000, 60_000_000];
    expect(retryDelayMs(schedule, 1, () => 0)).toBe(54_000);
    expect(retryDelayMs(schedule, 1, () => 1)).toBe(66_000);
    expect(retryDelayMs(schedule, 2, () => 0.5)).toBe(600_000);
    expect(retryDelayMs(schedule, 4, () => 0.5)).toBe(60_000_000);
    const total = schedule.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeGreaterThan(18);
  });
});
