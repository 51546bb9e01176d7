import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../src/lib/clock.ts';
import { BREAKER_FIRST_PROBE_MS } from '../src/modules/webhooks/delivery/repo.ts';
import {
  createConfiguredDeliveryWorker,
  type DeliveryWorker,
} from '../src/modules/webhooks/delivery/worker.ts';
import { apiKey, createMerchant, createTestApp, type Merchant, type TestApp } from './support/harness.ts';
import {
  confirmedPaymentEvent,
  createIsolatedDatabase,
  type Receiver,
  startReceiver,
  waitFor,
} from './support/webhooks.ts';

/**
 * One merchant's hanging endpoints must not delay another merchant's deliveries: real HTTP receivers, the real
 * worker, a small worker (12 slots) so that without the per-merchant cap the hanging merchant would hold all of them.
 */
let t: TestApp;
let worker: DeliveryWorker;
let drop: () => Promise<void>;
const receivers: Receiver[] = [];
const TIMEOUT_MS = 5000;

beforeAll(async () => {
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({
    database: isolated.database,
    env: {
      SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      SVC_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
      SVC_WEBHOOK_CONCURRENCY: '12',
      SVC_WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      SVC_WEBHOOK_MERCHANT_CONCURRENCY: '4',
      SVC_WEBHOOK_BREAKER_FAILURES: '3',
    },
  });
  worker = createConfiguredDeliveryWorker({
    config: t.config,
    database: t.database,
    clock: systemClock,
    signingSecrets: t.services.webhookEndpoints.signingSecrets,
    guard: t.services.ssrfGuard,
    operatorIds: t.services.operators.ids,
    events: t.services.events,
    pollIntervalMs: 50,
  });
  await worker.start();
});

afterAll(async () => {
  await worker?.stop();
  for (const receiver of receivers) await receiver.close();
  await t?.close();
  await drop?.();
});

async function endpoint(m: Merchant, url: string): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: apiKey(m.testKey),
    payload: { url },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id as string;
}

let serial = 0;
async function emit(merchantId: string): Promise<string> {
  serial += 1;
  const { eventId } = await t.database.db.transaction((tx) =>
    t.services.events.recordPaymentEvent(tx, confirmedPaymentEvent(merchantId, serial)),
  );
  return eventId;
}

describe('fair delivery across merchants', () => {
  it("delivers B's events in milliseconds while A's endpoints hang with a backlog", async () => {
    const a = await createMerchant(t.app);
    const b = await createMerchant(t.app);
    const hanging: Receiver[] = [];
    for (let index = 0; index < 4; index += 1) {
      const receiver = await startReceiver(() => ({ hang: true }));
      receivers.push(receiver);
      hanging.push(receiver);
      await endpoint(a, receiver.url);
    }
    const healthy = await startReceiver();
    receivers.push(healthy);
    await endpoint(b, healthy.url);

    // 10 events of A: 40 deliveries, more than the worker's 12 slots, every one of them hanging.
    for (let index = 0; index < 10; index += 1) await emit(a.merchantId);
    const hangingRequests = () => hanging.reduce((sum, receiver) => sum + receiver.requests.length, 0);
    await waitFor('A to hold its share', () => hangingRequests() >= 4, 5000);

    const latencies: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      const committed = Date.now();
      await emit(b.merchantId);
      await waitFor('B to receive its event', () => healthy.requests.length > index, TIMEOUT_MS);
      latencies.push((healthy.requests[index]?.at ?? Number.NaN) - committed);
    }
    // Well inside A's timeout: B never waited for one of A's slots to free up. (Typically milliseconds; the bound is
    // the proof, half of what waiting for a slot would take, so a loaded machine's pause does not fail it.)
    expect(Math.max(...latencies), JSON.stringify(latencies)).toBeLessThan(TIMEOUT_MS / 2);
    // A never had more than its cap in flight, although 4 endpoints x 4 each would have allowed 16.
    expect(hangingRequests()).toBe(4);
  });
});

describe('circuit breaker', () => {
  it('trips after 3 failures in a row, then sends one probe at a time until one succeeds', async () => {
    const m = await createMerchant(t.app);
    let failing = true;
    const flaky = await startReceiver(() => (failing ? { status: 503, body: 'down' } : { status: 200 }));
    receivers.push(flaky);
    const id = await endpoint(m, flaky.url);
    // The merchant's second endpoint hears about the first one's breaker.
    const watcher = await startReceiver();
    receivers.push(watcher);
    await endpoint(m, watcher.url);
    const healthEvents = async (type: string) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/events?type=${type}`,
          headers: apiKey(m.testKey),
        })
      ).json().data as Array<{ payment_id: string | null; payload: Record<string, unknown> }>;
    const view = async () =>
      (await t.app.inject({ method: 'GET', url: `/v1/webhooks/${id}`, headers: apiKey(m.testKey) })).json();

    for (let index = 0; index < 6; index += 1) await emit(m.merchantId);
    const tripped = await waitFor(
      'the breaker to trip',
      async () => {
        const current = await view();
        return current.tripped_at === null ? undefined : current;
      },
      5000,
    );
    expect(tripped.consecutive_failures).toBeGreaterThanOrEqual(3);
    // Opening it wrote one event in the same transaction, delivered to the merchant's healthy endpoint.
    const [failingEvent, ...moreFailing] = await healthEvents('webhook_endpoint.failing');
    expect(moreFailing).toEqual([]);
    expect(failingEvent).toMatchObject({
      payment_id: null,
      payload: {
        event: 'webhook_endpoint.failing',
        is_test: true,
        endpoint_id: id,
        url: flaky.url,
        failing_since: tripped.tripped_at,
      },
    });
    expect(failingEvent?.payload.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(Date.parse(String(failingEvent?.payload.next_probe_at))).toBeGreaterThan(
      Date.parse(tripped.tripped_at),
    );
    const bodies = () => watcher.requests.map((request) => JSON.parse(request.body.toString()).event);
    await waitFor('the failing event to reach the other endpoint', () =>
      bodies().includes('webhook_endpoint.failing'),
    );
    expect(await healthEvents('webhook_endpoint.recovered')).toEqual([]);
    // Open: the retries (100 ms apart) wait for the probe instead of hammering the endpoint.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const whileOpen = flaky.requests.length;
    await new Promise((resolve) => setTimeout(resolve, BREAKER_FIRST_PROBE_MS / 2));
    expect(flaky.requests.length).toBe(whileOpen);

    failing = false;
    // The probe succeeds, the breaker closes, and every delivery arrives.
    await waitFor(
      'the breaker to close',
      async () => (await view()).tripped_at === null,
      BREAKER_FIRST_PROBE_MS * 3,
    );
    const deliveries = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/webhooks/${id}/deliveries`,
          headers: apiKey(m.testKey),
        })
      ).json().data as Array<{ status: string }>;
    await waitFor(
      'every delivery to succeed',
      async () => (await deliveries()).every((d) => d.status === 'succeeded'),
      // At once, or a probe's wait later when a claim on another connection raced the probe's success.
      BREAKER_FIRST_PROBE_MS + 3000,
    );
    expect(await view()).toMatchObject({ consecutive_failures: 0, tripped_at: null });
    // Closing it wrote one `recovered` event, and opening it never wrote a second `failing` one.
    const recovered = await healthEvents('webhook_endpoint.recovered');
    expect(recovered).toHaveLength(1);
    expect(recovered[0]?.payload).toMatchObject({
      event: 'webhook_endpoint.recovered',
      endpoint_id: id,
      consecutive_failures: 0,
      failing_since: tripped.tripped_at,
      next_probe_at: null,
    });
    expect(await healthEvents('webhook_endpoint.failing')).toHaveLength(1);
    await waitFor('the recovered event to reach the other endpoint', () =>
      bodies().includes('webhook_endpoint.recovered'),
    );
    // The endpoint they are about gets neither.
    expect(
      flaky.requests.map((request) => JSON.parse(request.body.toString()).event as string),
    ).not.toContainEqual(expect.stringMatching(/^webhook_endpoint\./));
    // At most the 3 attempts that tripped it plus the ones already in flight, then probes one at a time.
    expect(flaky.maxOpen).toBeLessThanOrEqual(6);
  });
});
