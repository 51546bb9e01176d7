import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';
import { createIsolatedDatabase } from '../../../test/support/webhooks.ts';
import { queryRows } from '../../db/client.ts';
import { systemClock } from '../../lib/clock.ts';
import { createRetentionJob, type RetentionKind } from './jobs.ts';

const DAY = 86_400_000;
let t: TestApp;
let m: Merchant;
let drop: () => Promise<void>;
const ids = { oldEvents: [] as string[], middleEvents: [] as string[], newEvents: [] as string[] };

beforeAll(async () => {
  // A database of its own: retention acts on every merchant's rows.
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({ database: isolated.database, checkWebhookUrl: async () => {} });
  m = await createMerchant(t.app);
  const endpoint = await t.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: apiKey(m.testKey),
    payload: { url: 'https://example.test/hook' },
  });
  expect(endpoint.statusCode, endpoint.body).toBe(201);

  // Nine payments, each made with an Idempotency-Key: six keys will be old, three new.
  for (let n = 0; n < 9; n++) {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { ...apiKey(m.testKey), 'idempotency-key': `retention-${n}` },
      payload: { amount: '1', currency: 'USD', chain: 'ethereum' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const payment = response.json() as { payment_id: string };
    // Events of three ages: 100 days (past the 90), 60 days with 40-day-old attempts (bodies past the 30), new.
    const { eventId } = await t.services.events.recordPaymentEvent(t.database.db, {
      merchantId: m.merchantId,
      type: 'payment.confirmed',
      payment: {
        payment_id: payment.payment_id,
        status: 'completed',
        amount: '1',
        currency: 'USD',
        chain: 'ethereum',
        tx_hash: null,
        received_amount_native: '0',
        expected_amount_native: '0',
        is_test: true,
      },
      occurredAt: new Date(),
    });
    const age = n < 5 ? 100 : n < 7 ? 60 : 0;
    (age === 100 ? ids.oldEvents : age === 60 ? ids.middleEvents : ids.newEvents).push(eventId);
    const at = new Date(Date.now() - age * DAY).toISOString();
    const attemptAt = new Date(Date.now() - (age === 0 ? 0 : 40) * DAY).toISOString();
    await t.database.db.execute(sql`update events set created_at = ${at}::timestamptz where id = ${eventId}`);
    await t.database.db.execute(
      sql`insert into webhook_attempts (id, delivery_id, attempt, started_at, duration_ms, status_code, success, response_body)
          select 'att_' || d.id, d.id, 1, ${attemptAt}::timestamptz, 12, 200, true, 'ok'
          from webhook_deliveries d where d.event_id = ${eventId}`,
    );
    if (n < 6) {
      await t.database.db.execute(
        sql`update idempotency_keys set created_at = ${new Date(Date.now() - 2 * DAY).toISOString()}::timestamptz
            where key = ${`retention-${n}`}`,
      );
    }
  }
});

afterAll(async () => {
  await t?.close();
  await drop?.();
});

function kinds(keep: {
  idempotency: number | null;
  bodies: number | null;
  events: number | null;
}): RetentionKind[] {
  return [
    { name: 'idempotency_keys', keepMs: keep.idempotency, purge: t.services.payments.purgeIdempotencyKeys },
    { name: 'attempt_bodies', keepMs: keep.bodies, purge: t.services.events.purgeAttemptBodies },
    { name: 'events', keepMs: keep.events, purge: t.services.events.purgeEvents },
  ];
}

const count = async (query: ReturnType<typeof sql>) =>
  Number((await queryRows<{ n: string | number }>(t.database.db, query))[0]?.n);

describe('retention', () => {
  it('a kind turned off keeps its rows', async () => {
    const job = createRetentionJob({
      clock: systemClock,
      kinds: kinds({ idempotency: null, bodies: null, events: null }),
    });
    expect(await job.runOnce()).toEqual({ deleted: {}, batches: 0 });
    expect(await count(sql`select count(*) as n from events`)).toBe(9);
  });

  it('deletes old idempotency keys, old attempt bodies and old events with their deliveries, in batches, and keeps every payment', async () => {
    const paymentsBefore = await count(sql`select count(*) as n from payments`);
    const job = createRetentionJob({
      clock: systemClock,
      batchSize: 2,
      pauseMs: 1,
      kinds: kinds({ idempotency: DAY, bodies: 30 * DAY, events: 90 * DAY }),
    });
    const run = await job.runOnce();
    // Bodies of the 100-day events' attempts are cleared first, then those events go with their deliveries.
    expect(run.deleted).toEqual({ idempotency_keys: 6, attempt_bodies: 7, events: 5 });
    // Batches of 2: 6 keys → 3 full and 1 empty; 7 bodies → 3 full and 1 of 1; 5 events → 2 full and 1 of 1.
    expect(run.batches).toBe(4 + 4 + 3);

    expect(await count(sql`select count(*) as n from payments`)).toBe(paymentsBefore);
    expect(await count(sql`select count(*) as n from idempotency_keys`)).toBe(3);
    const events = await queryRows<{ id: string }>(t.database.db, sql`select id from events order by id`);
    expect(events.map((event) => event.id).sort()).toEqual([...ids.middleEvents, ...ids.newEvents].sort());
    expect(
      await count(
        sql`select count(*) as n from webhook_deliveries d left join events e on e.id = d.event_id where e.id is null`,
      ),
    ).toBe(0);
    expect(await count(sql`select count(*) as n from webhook_deliveries`)).toBe(4);
    // The 60-day events keep their attempts, without the bodies; the new ones keep theirs whole.
    const attempts = await queryRows<{ event_id: string; response_body: string | null }>(
      t.database.db,
      sql`select d.event_id, a.response_body from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id`,
    );
    expect(attempts).toHaveLength(4);
    for (const attempt of attempts) {
      expect(attempt.response_body).toBe(ids.newEvents.includes(attempt.event_id) ? 'ok' : null);
    }
    // A replayed key inside its window still answers the same payment.
    const replay = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: { ...apiKey(m.testKey), 'idempotency-key': 'retention-8' },
      payload: { amount: '1', currency: 'USD', chain: 'ethereum' },
    });
    expect(replay.statusCode).toBe(201);
    expect(await count(sql`select count(*) as n from payments`)).toBe(paymentsBefore);

    // Nothing is left to do on the next pass.
    expect((await job.runOnce()).deleted).toEqual({ idempotency_keys: 0, attempt_bodies: 0, events: 0 });
  });

  it('runs on its own once started, and stops', async () => {
    await t.database.db.execute(
      sql`update idempotency_keys set created_at = ${new Date(Date.now() - 2 * DAY).toISOString()}::timestamptz
          where key = 'retention-7'`,
    );
    const job = createRetentionJob({
      clock: systemClock,
      firstDelayMs: 1,
      kinds: kinds({ idempotency: DAY, bodies: 30 * DAY, events: 90 * DAY }),
    });
    await job.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await job.stop();
    expect(await count(sql`select count(*) as n from idempotency_keys`)).toBe(2);
    expect(await count(sql`select count(*) as n from events`)).toBe(4);
  });
});
