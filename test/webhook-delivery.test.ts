import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../src/db/client.ts';
import { systemClock } from '../src/lib/clock.ts';
import {
  createConfiguredDeliveryWorker,
  type DeliveryWorker,
} from '../src/modules/webhooks/delivery/worker.ts';
import type { PaymentEventSnapshot, PaymentEventType } from '../src/modules/webhooks/events/payload.ts';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from './support/harness.ts';
import { freePort } from './support/net.ts';
import {
  createIsolatedDatabase,
  type ReceivedRequest,
  type Receiver,
  type ReceiverAction,
  seedPayloadFields,
  sleep,
  startReceiver,
  waitFor,
} from './support/webhooks.ts';

let t: TestApp;
let worker: DeliveryWorker;
let drop: () => Promise<void>;
const receivers: Receiver[] = [];

const TIMEOUT_MS = 1000;

beforeAll(async () => {
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({
    database: isolated.database,
    env: {
      SVC_WEBHOOK_RETRY_SCHEDULE: '30ms,30ms,30ms,30ms',
      SVC_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      SVC_WEBHOOK_ENDPOINT_CONCURRENCY: '4',
    },
  });
  worker = newWorker();
  await worker.start();
});

function newWorker(config = t.config, pollIntervalMs = 50): DeliveryWorker {
  return createConfiguredDeliveryWorker({
    config,
    database: t.database,
    clock: systemClock,
    signingSecrets: t.services.webhookEndpoints.signingSecrets,
    // The receivers here stand in for public endpoints, whose response bodies are kept; bodies of real private
    // targets never are (ssrf.test.ts).
    guard: { ...t.services.ssrfGuard, isPrivateHost: () => false },
    operatorIds: t.services.operators.ids,
    events: t.services.events,
    pollIntervalMs,
  });
}

afterAll(async () => {
  await worker?.stop();
  for (const receiver of receivers) await receiver.close();
  await t?.close();
  await drop?.();
});

async function receiver(respond?: (request: ReceivedRequest, index: number) => ReceiverAction) {
  const started = await startReceiver(respond);
  receivers.push(started);
  return started;
}

async function endpoint(m: Merchant, url: string, key = m.testKey): Promise<{ id: string; secret: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: apiKey(key),
    payload: { url },
  });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json();
  return { id: body.id, secret: body.signing_secret };
}

function snapshot(overrides: Partial<PaymentEventSnapshot> = {}): PaymentEventSnapshot {
  return {
    payment_id: '0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47',
    status: 'completed',
    amount: '19.99',
    currency: 'USD',
    chain: 'ethereum',
    tx_hash: '0xabc123',
    received_amount_native: '0.006301',
    expected_amount_native: '0.006301',
    is_test: true,
    ...overrides,
  };
}

async function emit(
  merchantId: string,
  payment: PaymentEventSnapshot = snapshot(),
  type: PaymentEventType = 'payment.confirmed',
  occurredAt = new Date('2026-03-04T05:06:07.089Z'),
): Promise<string> {
  const { eventId } = await t.database.db.transaction((tx) =>
    t.services.events.recordPaymentEvent(tx, { merchantId, type, payment, occurredAt }),
  );
  return eventId;
}

async function deliveriesOf(m: Merchant, endpointId: string) {
  const response = await t.app.inject({
    method: 'GET',
    url: `/v1/webhooks/${endpointId}/deliveries`,
    headers: bearer(m.token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data as Array<{
    id: string;
    event_id: string;
    status: string;
    attempt_count: number;
    last_status_code: number | null;
    redelivery_of: string | null;
    attempts: Array<{
      attempt: number;
      status_code: number | null;
      success: boolean;
      response_body: string | null;
      error: string | null;
      duration_ms: number;
      started_at: string;
    }>;
  }>;
}

async function settled(m: Merchant, endpointId: string, count = 1) {
  return waitFor(`${count} settled deliveries`, async () => {
    const list = await deliveriesOf(m, endpointId);
    return list.length >= count && list.every((d) => d.status !== 'pending') ? list : undefined;
  });
}

const hmacHex = (key: string | Buffer, data: string | Buffer) =>
  createHmac('sha256', key).update(data).digest('hex');
const standardSig = (secret: string, id: string, ts: string, body: Buffer | string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${ts}.`)
    .update(body)
    .digest('base64')}`;

describe('webhook delivery', () => {
  it('sends the exact payload bytes and headers of the contract', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver();
    const { id, secret } = await endpoint(m, r.url);
    const before = Date.now();
    const eventId = await emit(m.merchantId);
    await waitFor('the delivery', () => r.requests.length === 1);
    const [received] = r.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hooks');
    const body = received!.body.toString('utf8');
    expect(body).toBe(
      '{"event":"payment.confirmed","payment_id":"0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47","status":"completed",' +
        '"amount":19.99,"amount_decimal":"19.99","currency":"USD","chain":"ethereum","tx_hash":"0xabc123",' +
        '"received_amount_native":"0.006301","expected_amount_native":"0.006301","is_test":true,' +
        '"timestamp":"2026-03-04T05:06:07.089Z"}',
    );
    expect(Object.keys(JSON.parse(body))).toEqual(seedPayloadFields);
    const h = received!.headers;
    expect(h['content-type']).toBe('application/json');
    expect(h['x-service-event-id']).toBe(eventId);
    expect(eventId).toMatch(/^evt_[0-9a-z]{20}$/);
    expect(h['x-service-signature']).toBe(`sha256=${hmacHex(secret, received!.body)}`);
    const timestamp = String(h['x-service-timestamp']);
    expect(timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(timestamp)).toBeLessThanOrEqual(Date.now());
    expect(h['webhook-id']).toBe(eventId);
    expect(h['webhook-timestamp']).toBe(String(Math.floor(Date.parse(timestamp) / 1000)));
    expect(h['webhook-signature']).toBe(
      standardSig(secret, eventId, String(h['webhook-timestamp']), received!.body),
    );
    expect(Object.keys(h).sort()).toEqual(
      [
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'webhook-id',
        'webhook-signature',
        'webhook-timestamp',
        'x-service-event-id',
        'x-service-signature',
        'x-service-timestamp',
      ].sort(),
    );

    const [delivery] = await settled(m, id);
    expect(delivery).toMatchObject({
      event_id: eventId,
      status: 'succeeded',
      attempt_count: 1,
      last_status_code: 200,
    });
    expect(delivery?.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status_code: 200,
        success: true,
        response_body: 'ok',
        error: null,
      }),
    ]);
  });

  it('writes amount as the exact number literal it was given, amount_decimal exactly, and no tx_hash as ""', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver();
    await endpoint(m, r.url);
    await emit(
      m.merchantId,
      snapshot({ amount: '123456789012345678.123456789', tx_hash: null, status: 'expired' }),
      'payment.expired',
    );
    await waitFor('the delivery', () => r.requests.length === 1);
    const body = r.requests[0]!.body.toString();
    expect(body).toContain('"amount":123456789012345678.123456789,');
    expect(body).toContain('"amount_decimal":"123456789012345678.123456789",');
    expect(body).toContain('"tx_hash":"",');
    expect(body).toContain('"event":"payment.expired"');
  });

  it('is verified by the README receiver with both schemes', async () => {
    const m = await createMerchant(t.app);
    const port = await freePort();
    const { id, secret } = await endpoint(m, `http://127.0.0.1:${port}/hooks`);
    const child = spawn(process.execPath, ['examples/webhook-receiver.mjs'], {
      env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
      stdio: 'ignore',
    });
    try {
      await waitFor('the receiver to listen', async () => {
        const probe = await request(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch(
          () => null,
        );
        await probe?.body.dump();
        return probe?.statusCode === 401;
      });
      await emit(m.merchantId);
      const [delivery] = await settled(m, id);
      expect(delivery).toMatchObject({ status: 'succeeded', last_status_code: 200 });

      // A body changed in transit fails both checks.
      const forged = await request(`http://127.0.0.1:${port}/hooks`, {
        method: 'POST',
        headers: {
          'x-service-signature': `sha256=${hmacHex(secret, '{"a":1}')}`,
          'webhook-id': 'evt_x',
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': standardSig(secret, 'evt_x', String(Math.floor(Date.now() / 1000)), '{"a":1}'),
        },
        body: '{"a":2}',
      });
      await forged.body.dump();
      expect(forged.statusCode).toBe(401);
    } finally {
      child.kill();
    }
    // The README shows this very file.
    const readme = readFileSync('README.md', 'utf8');
    const example = readFileSync('examples/webhook-receiver.mjs', 'utf8')
      .split('\n')
      .slice(1)
      .join('\n')
      .trim();
    expect(readme).toContain(example);
  });

  it('stops after 5 failed attempts, keeping the first 2 KB of each answer', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver(() => ({ status: 500, body: 'x'.repeat(5000) }));
    const { id } = await endpoint(m, r.url);
    await emit(m.merchantId);
    const [delivery] = await settled(m, id);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.attempt_count).toBe(5);
    expect(delivery?.attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    for (const attempt of delivery?.attempts ?? []) {
      expect(attempt).toMatchObject({ status_code: 500, success: false });
      expect(attempt.response_body).toBe('x'.repeat(2048));
    }
    await sleep(400);
    expect(r.requests).toHaveLength(5);
    // Every attempt carried the same bytes and the same webhook-id.
    expect(new Set(r.requests.map((q) => q.body.toString())).size).toBe(1);
    expect(new Set(r.requests.map((q) => q.headers['webhook-id'])).size).toBe(1);
  });

  it('ends the retries with a success on the 3rd attempt', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver((_request, index) => (index < 2 ? { status: 503 } : { status: 204 }));
    const { id } = await endpoint(m, r.url);
    await emit(m.merchantId);
    const [delivery] = await settled(m, id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 3, last_status_code: 204 });
    expect(delivery?.attempts.map((a) => [a.attempt, a.status_code, a.success])).toEqual([
      [1, 503, false],
      [2, 503, false],
      [3, 204, true],
    ]);
    await sleep(300);
    expect(r.requests).toHaveLength(3);
  });

  it('counts a timeout, a reset, a redirect and a 410 as failures', async () => {
    const m = await createMerchant(t.app);
    const target = await receiver();
    const cases = {
      timeout: await receiver(() => ({ hang: true })),
      reset: await receiver(() => ({ reset: true })),
      redirect: await receiver(() => ({ status: 302, headers: { location: target.url } })),
      gone: await receiver(() => ({ status: 410, body: 'gone' })),
    };
    const ids: Record<string, string> = {};
    for (const [name, r] of Object.entries(cases)) ids[name] = (await endpoint(m, r.url)).id;
    await emit(m.merchantId);
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(ids).map(async ([name, id]) => [name, (await settled(m, id))[0]] as const),
      ),
    );
    for (const [name, delivery] of Object.entries(results)) {
      expect(delivery?.status, name).toBe('failed');
      expect(delivery?.attempts, name).toHaveLength(5);
      expect(cases[name as keyof typeof cases].requests, name).toHaveLength(5);
    }
    for (const attempt of results.timeout?.attempts ?? []) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toMatch(/timeout/i);
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
      expect(attempt.duration_ms).toBeLessThan(TIMEOUT_MS + 1000);
    }
    for (const attempt of results.reset?.attempts ?? []) {
      expect(attempt.status_code).toBeNull();
      expect(attempt.error).toBeTruthy();
    }
    for (const attempt of results.redirect?.attempts ?? []) {
      expect(attempt).toMatchObject({ status_code: 302, success: false });
      expect(attempt.error).toMatch(/redirect/);
    }
    expect(target.requests).toHaveLength(0);
    for (const attempt of results.gone?.attempts ?? []) {
      expect(attempt).toMatchObject({ status_code: 410, success: false, response_body: 'gone' });
    }
  });

  it('does not let a hanging endpoint hold up the others', async () => {
    const slow = await createMerchant(t.app);
    const fast = await createMerchant(t.app);
    const hanging = await receiver(() => ({ hang: true }));
    const healthy = await receiver();
    await endpoint(slow, hanging.url);
    await endpoint(fast, healthy.url);
    for (let i = 0; i < 30; i += 1) await emit(slow.merchantId);
    await waitFor('the hanging endpoint to be busy', () => hanging.requests.length >= 4);
    const sent = Date.now();
    await emit(fast.merchantId);
    await waitFor('the healthy delivery', () => healthy.requests.length === 1, 2000);
    expect(Date.now() - sent).toBeLessThan(TIMEOUT_MS);
    // The per-endpoint cap (4 here) bounds what the hanging endpoint holds at once.
    expect(hanging.maxOpen).toBe(4);
  });

  it('sends one merchant’s backlog past its per-merchant cap at once, not one capful per poll', async () => {
    // The program's worker polls every second; this one never polls, so only its own wake-ups can move the backlog.
    await worker.stop();
    const capped = newWorker({ ...t.config, webhookMerchantConcurrency: 3 }, 600_000);
    try {
      const busy = await createMerchant(t.app);
      const target = await receiver();
      await endpoint(busy, target.url);
      for (let i = 0; i < 30; i += 1) await emit(busy.merchantId);
      await capped.start();
      await waitFor('all 30 deliveries', () => target.requests.length >= 30, 20_000);
      expect(target.maxOpen).toBeLessThanOrEqual(3);
    } finally {
      await capped.stop();
      // A stopped worker has closed its sender: the tests after this one get a new one.
      worker = newWorker();
      await worker.start();
    }
  });

  it('signs with both secrets during a rotation overlap, and with the new one only after it', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver();
    const { id, secret: oldSecret } = await endpoint(m, r.url);
    // A delivery before the rotation, so the worker has opened (and remembers) the old secret.
    const before = await emit(m.merchantId);
    await waitFor('the delivery before the rotation', () => r.requests.length === 1);
    const earlier = r.requests.shift()!;
    expect(earlier.headers['webhook-signature']).toBe(
      standardSig(oldSecret, before, String(earlier.headers['webhook-timestamp']), earlier.body),
    );
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      headers: apiKey(m.testKey),
    });
    const newSecret = rotated.json().signing_secret as string;
    const eventId = await emit(m.merchantId);
    await waitFor('the delivery', () => r.requests.length === 1);
    const first = r.requests[0]!;
    const ts = String(first.headers['webhook-timestamp']);
    expect(first.headers['webhook-signature']).toBe(
      `${standardSig(newSecret, eventId, ts, first.body)} ${standardSig(oldSecret, eventId, ts, first.body)}`,
    );
    expect(first.headers['x-service-signature']).toBe(`sha256=${hmacHex(newSecret, first.body)}`);

    // Once the overlap is over only the new secret signs.
    await t.database.db.execute(
      sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${id}`,
    );
    const second = await emit(m.merchantId);
    await waitFor('the second delivery', () => r.requests.length === 2);
    const later = r.requests[1]!;
    expect(later.headers['webhook-signature']).toBe(
      standardSig(newSecret, second, String(later.headers['webhook-timestamp']), later.body),
    );
  });

  it('sends nothing more to a disabled or deleted endpoint', async () => {
    const m = await createMerchant(t.app);
    const disabledReceiver = await receiver();
    const deletedReceiver = await receiver();
    const disabled = await endpoint(m, disabledReceiver.url);
    const deleted = await endpoint(m, deletedReceiver.url);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${disabled.id}`,
      headers: apiKey(m.testKey),
      payload: { enabled: false },
    });
    expect(patch.statusCode).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/v1/webhooks/${deleted.id}`, headers: apiKey(m.testKey) });
    await emit(m.merchantId);

    // Deliveries that were already queued when the endpoint was switched off are canceled, not sent.
    const live = await receiver();
    const late = await endpoint(m, live.url);
    await t.database.db.transaction(async (tx) => {
      await t.services.events.recordPaymentEvent(tx, {
        merchantId: m.merchantId,
        type: 'payment.confirmed',
        payment: snapshot(),
        occurredAt: new Date(),
      });
      await tx.execute(sql`update webhook_endpoints set enabled = false where id = ${late.id}`);
    });
    const [canceled] = await settled(m, late.id);
    expect(canceled).toMatchObject({ status: 'canceled', attempt_count: 0 });
    await sleep(200);
    expect(disabledReceiver.connections + deletedReceiver.connections + live.connections).toBe(0);
    const rows = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from webhook_deliveries where endpoint_id in (${disabled.id}, ${deleted.id})`,
    );
    expect(Number(rows[0]?.count)).toBe(0);
  });

  it('keeps modes and merchants apart', async () => {
    const a = await createMerchant(t.app);
    const b = await createMerchant(t.app);
    const aTest = await receiver();
    const bTest = await receiver();
    const aTestEndpoint = await endpoint(a, aTest.url);
    await endpoint(b, bTest.url);
    // A live endpoint cannot be on loopback; registration is skipped past the guard here to see where rows go.
    const liveApp = await createTestApp({ database: t.database, checkWebhookUrl: async () => {} });
    const aLive = await liveApp.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: apiKey(a.liveKey),
      payload: { url: 'https://hooks.example.com/live' },
    });
    await liveApp.close();
    const aLiveId = aLive.json().id as string;

    const testEvent = await emit(a.merchantId);
    const liveEvent = await emit(a.merchantId, snapshot({ is_test: false }));
    await waitFor('the test delivery', () => aTest.requests.length === 1);
    await sleep(200);
    expect(aTest.requests).toHaveLength(1);
    expect(aTest.requests[0]?.headers['webhook-id']).toBe(testEvent);
    expect(bTest.requests).toHaveLength(0);
    const rows = await queryRows<{ event_id: string; endpoint_id: string }>(
      t.database.db,
      sql`select event_id, endpoint_id from webhook_deliveries where event_id in (${testEvent}, ${liveEvent}) order by endpoint_id`,
    );
    expect(rows.map((row) => [row.event_id, row.endpoint_id]).sort()).toEqual(
      [
        [testEvent, aTestEndpoint.id],
        [liveEvent, aLiveId],
      ].sort(),
    );

    // The API shows each key only its own mode, and nothing of other merchants.
    const testList = (
      await t.app.inject({ method: 'GET', url: '/v1/events', headers: apiKey(a.testKey) })
    ).json();
    expect(testList.data.map((e: { id: string }) => e.id)).toEqual([testEvent]);
    const liveList = (
      await t.app.inject({ method: 'GET', url: '/v1/events', headers: apiKey(a.liveKey) })
    ).json();
    expect(liveList.data.map((e: { id: string }) => e.id)).toEqual([liveEvent]);
    const both = (await t.app.inject({ method: 'GET', url: '/v1/events', headers: bearer(a.token) })).json();
    expect(both.data).toHaveLength(2);
    for (const [headers, id] of [
      [apiKey(a.liveKey), testEvent],
      [apiKey(a.testKey), liveEvent],
      [apiKey(b.testKey), testEvent],
      [bearer(b.token), liveEvent],
    ] as const) {
      const response = await t.app.inject({ method: 'GET', url: `/v1/events/${id}`, headers });
      expect(response.statusCode).toBe(404);
    }
    for (const [headers, id] of [
      [apiKey(a.liveKey), aTestEndpoint.id],
      [apiKey(b.testKey), aTestEndpoint.id],
    ] as const) {
      for (const [method, url] of [
        ['GET', `/v1/webhooks/${id}/deliveries`],
        ['POST', `/v1/webhooks/${id}/test`],
        ['POST', `/v1/webhooks/${id}/redeliver-failed`],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers,
          ...(url.endsWith('failed') ? { payload: { since: '2020-01-01T00:00:00Z' } } : {}),
        });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    const [aDelivery] = await deliveriesOf(a, aTestEndpoint.id);
    const stolen = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/deliveries/${aDelivery?.id}/redeliver`,
      headers: apiKey(b.testKey),
    });
    expect(stolen.statusCode).toBe(404);
  });

  it('reads events, redelivers one delivery and every failed one, and sends a test event', async () => {
    const m = await createMerchant(t.app);
    let healthy = false;
    const r = await receiver(() => (healthy ? { status: 200 } : { status: 500 }));
    const { id } = await endpoint(m, r.url);
    const first = await emit(m.merchantId);
    // Events list newest first by creation time; two in the same millisecond would tie (then order by id).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await emit(m.merchantId, snapshot(), 'payment.overpaid');
    await settled(m, id, 2);
    expect(r.requests).toHaveLength(10);

    const event = await t.app.inject({
      method: 'GET',
      url: `/v1/events/${first}`,
      headers: apiKey(m.testKey),
    });
    expect(event.statusCode).toBe(200);
    expect(event.json()).toEqual({
      id: first,
      type: 'payment.confirmed',
      is_test: true,
      payment_id: '0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47',
      sample: false,
      created_at: expect.any(String),
      payload: JSON.parse(r.requests.find((q) => q.headers['webhook-id'] === first)!.body.toString()),
    });
    // Ten failed attempts in a row tripped the endpoint's breaker (SVC_WEBHOOK_BREAKER_FAILURES, 10): that is the
    // newest event, and no endpoint receives it (the merchant has no other).
    const page = await t.app.inject({ method: 'GET', url: '/v1/events?limit=1', headers: apiKey(m.testKey) });
    expect(page.json()).toMatchObject({
      has_more: true,
      data: [{ type: 'webhook_endpoint.failing', payment_id: null, payload: { endpoint_id: id } }],
    });
    const tripped = page.json().data[0].id as string;
    expect(r.requests.filter((q) => q.headers['webhook-id'] === tripped)).toEqual([]);
    const middle = await t.app.inject({
      method: 'GET',
      url: `/v1/events?limit=1&starting_after=${tripped}`,
      headers: apiKey(m.testKey),
    });
    expect(middle.json()).toMatchObject({ has_more: true, data: [{ id: second }] });
    const next = await t.app.inject({
      method: 'GET',
      url: `/v1/events?limit=1&starting_after=${second}`,
      headers: apiKey(m.testKey),
    });
    expect(next.json()).toMatchObject({ has_more: false, data: [{ id: first }] });
    const byType = await t.app.inject({
      method: 'GET',
      url: '/v1/events?type=payment.overpaid',
      headers: apiKey(m.testKey),
    });
    expect(byType.json().data.map((e: { id: string }) => e.id)).toEqual([second]);

    healthy = true;
    const deliveries = await deliveriesOf(m, id);
    const firstDelivery = deliveries.find((d) => d.event_id === first)!;
    const again = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/deliveries/${firstDelivery.id}/redeliver`,
      headers: apiKey(m.testKey),
    });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ event_id: first, redelivery_of: firstDelivery.id, attempts: [] });
    await waitFor('the redelivery', () => r.requests.length === 11);
    expect(r.requests[10]?.headers['webhook-id']).toBe(first);

    const bulk = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/redeliver-failed`,
      headers: apiKey(m.testKey),
      payload: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(bulk.statusCode, bulk.body).toBe(200);
    // The first failed delivery was redelivered already; the second one was not.
    expect(bulk.json().redelivered).toBe(1);
    await waitFor('the bulk redelivery', () => r.requests.length === 12);
    expect(r.requests[11]?.headers['webhook-id']).toBe(second);
    const repeat = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/redeliver-failed`,
      headers: apiKey(m.testKey),
      payload: { since: new Date(Date.now() - 60_000).toISOString() },
    });
    expect(repeat.json().redelivered).toBe(0);

    const sample = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/test`,
      headers: { ...apiKey(m.testKey), 'content-type': 'application/json' },
      payload: { event: 'payment.underpaid' },
    });
    expect(sample.statusCode, sample.body).toBe(201);
    expect(sample.json().event).toMatchObject({ type: 'payment.underpaid', sample: true });
    await waitFor('the test event', () => r.requests.length === 13);
    const sent = JSON.parse(r.requests[12]!.body.toString());
    expect(sent).toMatchObject({
      event: 'payment.underpaid',
      payment_id: '00000000-0000-0000-0000-000000000000',
      is_test: true,
    });
    // Samples are not among the merchant's events; the successful redelivery closed the breaker (`recovered`).
    const list = (
      await t.app.inject({ method: 'GET', url: '/v1/events', headers: apiKey(m.testKey) })
    ).json();
    expect(
      list.data.map((e: { id: string; type: string }) =>
        e.id === tripped ? 'tripped' : e.id === second || e.id === first ? e.id : e.type,
      ),
    ).toEqual(['webhook_endpoint.recovered', 'tripped', second, first]);

    const noBody = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/test`,
      headers: bearer(m.token),
    });
    expect(noBody.statusCode, noBody.body).toBe(201);
    expect(noBody.json().event.type).toBe('payment.confirmed');
  });

  it('refuses to redeliver to a disabled endpoint and validates input', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver();
    const { id } = await endpoint(m, r.url);
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      headers: apiKey(m.testKey),
      payload: { enabled: false },
    });
    const test = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/test`,
      headers: apiKey(m.testKey),
    });
    expect(test.statusCode).toBe(409);
    expect(test.json().error.code).toBe('invalid_state');
    const bad = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/redeliver-failed`,
      headers: apiKey(m.testKey),
      payload: { since: 'yesterday' },
    });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'since' });
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/v1/events?colour=red',
      headers: apiKey(m.testKey),
    });
    expect(unknown.json().error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
    const missing = await t.app.inject({
      method: 'GET',
      url: '/v1/events/evt_nope',
      headers: apiKey(m.testKey),
    });
    expect(missing.statusCode).toBe(404);
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/events',
        '/events/{id}',
        '/webhooks/{id}/deliveries',
        '/webhooks/deliveries/{id}/redeliver',
        '/webhooks/{id}/redeliver-failed',
        '/webhooks/{id}/test',
      ]),
    );
  });

  it('writes nothing when the caller’s transaction rolls back', async () => {
    const m = await createMerchant(t.app);
    const r = await receiver();
    await endpoint(m, r.url);
    let eventId = '';
    await expect(
      t.database.db.transaction(async (tx) => {
        eventId = (
          await t.services.events.recordPaymentEvent(tx, {
            merchantId: m.merchantId,
            type: 'payment.confirmed',
            payment: snapshot(),
            occurredAt: new Date(),
          })
        ).eventId;
        throw new Error('the payment change failed');
      }),
    ).rejects.toThrow('the payment change failed');
    const rows = await queryRows<{ id: string }>(
      t.database.db,
      sql`select id from events where id = ${eventId}`,
    );
    expect(rows).toEqual([]);
    await sleep(200);
    expect(r.requests).toHaveLength(0);
  });
});
