import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStream } from '../../../../test/support/event-stream.ts';
import {
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../../test/support/harness.ts';
import { waitFor } from '../../../../test/support/webhooks.ts';
import type { PaymentEventType } from './payload.ts';
import { type SequencedEvent, streamRepo } from './stream-repo.ts';
import { createStreamSequencer, type StreamSequencer } from './stream-sequencer.ts';

let t: TestApp;
let base: string;
let sequencer: StreamSequencer;
const sequenced: SequencedEvent[] = [];
let a: Merchant;
let b: Merchant;

beforeAll(async () => {
  t = await createTestApp({
    env: { SVC_EVENT_STREAM_HEARTBEAT_MS: '300', SVC_EVENT_STREAM_MAX_PER_MERCHANT: '3' },
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  sequencer = createStreamSequencer({
    database: t.database,
    repo: streamRepo,
    onSequenced: (events) => sequenced.push(...events),
  });
  await sequencer.start();
  a = await createMerchant(t.app);
  b = await createMerchant(t.app);
});

afterAll(async () => {
  await sequencer.stop();
  await t.close();
});

/** Commits one payment event of `merchant` in a mode, as the payments service does; returns the event id. */
async function record(
  merchant: Merchant,
  isTest: boolean,
  type: PaymentEventType = 'payment.confirmed',
): Promise<string> {
  const { eventId } = await t.database.db.transaction((tx) =>
    t.services.events.recordPaymentEvent(tx, {
      merchantId: merchant.merchantId,
      type,
      occurredAt: new Date(),
      payment: {
        payment_id: randomUUID(),
        status: 'completed',
        amount: '19.99',
        currency: 'USD',
        chain: 'ethereum',
        tx_hash: `0x${'1'.repeat(64)}`,
        received_amount_native: '0.0063',
        expected_amount_native: '0.0063',
        is_test: isTest,
      },
    }),
  );
  return eventId;
}

describe('GET /v1/events/stream', () => {
  it("sends each new event of the key's merchant and mode once, with its id, type and exact webhook body", async () => {
    const stream = await openEventStream(base, a.testKey);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(stream.headers.get('x-request-id')).toMatch(/^req_/);
      // Another merchant's events and this merchant's live events never reach this stream.
      await record(b, true);
      await record(a, false);
      const id = await record(a, true, 'payment.underpaid');
      const [event] = await stream.waitForEvents(1);
      const stored = await t.app.inject({
        method: 'GET',
        url: `/v1/events/${id}`,
        headers: { 'x-api-key': a.testKey },
      });
      expect(event).toEqual({
        id,
        event: 'payment.underpaid',
        data: JSON.stringify(stored.json().payload),
      });
      // The rest of what was recorded has a position by now; nothing more came.
      await waitFor('all sequenced', () => sequenced.some((s) => s.merchantId === b.merchantId));
      await record(a, true);
      await stream.waitForEvents(2);
      expect(stream.events.map((e) => e.event)).toEqual(['payment.underpaid', 'payment.confirmed']);
      expect(new Set(stream.events.map((e) => e.id)).size).toBe(2);
    } finally {
      stream.close();
    }
  });

  it('resumes after Last-Event-ID without losing or repeating an event, and filters by type', async () => {
    const first = await openEventStream(base, a.liveKey);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) ids.push(await record(a, false));
    await first.waitForEvents(3);
    first.close();
    // Written while no stream was open.
    for (let n = 0; n < 2; n++)
      ids.push(await record(a, false, n === 0 ? 'payment.expired' : 'payment.overpaid'));
    const resumed = await openEventStream(base, a.liveKey, { lastEventId: ids[0] as string });
    try {
      await resumed.waitForEvents(4);
      expect(resumed.events.map((e) => e.id)).toEqual(ids.slice(1));
    } finally {
      resumed.close();
    }
    const filtered = await openEventStream(base, a.liveKey, {
      lastEventId: ids[0] as string,
      types: 'payment.expired',
    });
    try {
      await filtered.waitForEvents(1);
      expect(filtered.events.map((e) => e.id)).toEqual([ids[3]]);
    } finally {
      filtered.close();
    }
  });

  it("refuses another merchant's or mode's event as Last-Event-ID, unknown types, and dashboard tokens", async () => {
    const theirs = await record(b, true);
    const refused = await openEventStream(base, a.testKey, { lastEventId: theirs });
    expect(refused.status).toBe(404);
    expect(refused.refusal).toMatchObject({ error: { code: 'not_found', param: 'Last-Event-ID' } });
    const otherMode = await openEventStream(base, b.liveKey, { lastEventId: theirs });
    expect(otherMode.status).toBe(404);
    const badType = await openEventStream(base, a.testKey, { types: 'payment.confirmed,nope' });
    expect(badType.status).toBe(400);
    expect(badType.refusal).toMatchObject({ error: { code: 'parameter_invalid', param: 'types' } });
    const token = await fetch(`${base}/v1/events/stream`, {
      headers: { authorization: `Bearer ${a.token}` },
    });
    expect(token.status).toBe(401);
  });

  it('caps the streams a merchant holds open, without touching another merchant, and frees a slot on close', async () => {
    const held = [
      await openEventStream(base, a.testKey),
      await openEventStream(base, a.liveKey),
      await openEventStream(base, a.testKey),
    ];
    try {
      const fourth = await openEventStream(base, a.testKey);
      expect(fourth.status).toBe(429);
      expect(fourth.refusal).toMatchObject({ error: { code: 'stream_limit_reached' } });
      const other = await openEventStream(base, b.testKey);
      expect(other.status).toBe(200);
      const id = await record(b, true);
      await other.waitForEvents(1);
      expect(other.events[0]?.id).toBe(id);
      other.close();
      held.pop()?.close();
      await waitFor('a free slot', async () => {
        const again = await openEventStream(base, a.testKey);
        again.close();
        return again.status === 200;
      });
    } finally {
      for (const stream of held) stream.close();
    }
  });

  it('sends heartbeats while idle', async () => {
    const stream = await openEventStream(base, b.liveKey);
    try {
      await waitFor(
        'two heartbeats',
        () => stream.comments.filter((c) => c === 'heartbeat').length >= 2,
        5000,
      );
      expect(stream.events).toEqual([]);
    } finally {
      stream.close();
    }
  });
});

describe('shutdown', () => {
  it('ends open streams when the app closes, so a stream never holds the server open', async () => {
    const other = await createTestApp({ database: t.database });
    await other.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (other.app.server.address() as AddressInfo).port;
    const stream = await openEventStream(`http://127.0.0.1:${port}`, a.testKey);
    expect(stream.status).toBe(200);
    expect(other.services.eventStreams.openCount()).toBe(1);
    await other.close();
    expect(other.services.eventStreams.openCount()).toBe(0);
    // A new stream after the close is refused by the closing service, not held.
    await expect(
      other.services.eventStreams.open(
        { via: 'api_key', merchantId: a.merchantId, isTest: true, keypairId: 'kp', keyId: 'k' },
        {},
        { send: () => true, drained: async () => {}, end: () => {} },
      ),
    ).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});

describe.skipIf(process.env.DATABASE_URL === undefined)('positions on PostgreSQL', () => {
  it('a transaction that commits late is streamed after what committed before it, never skipped', async () => {
    const stream = await openEventStream(base, a.testKey);
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      // A transaction writes an event and stays open while a later one commits and is streamed.
      await client.query('begin');
      const late = `evt_late${Date.now()}`;
      await client.query(
        `insert into events (id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, created_at)
         values ($1, $2, true, 'payment.expired', null, '{"event":"payment.expired"}', false, now(), now())`,
        [late, a.merchantId],
      );
      await client.query(`select pg_notify('svc_events_committed', '')`);
      const early = await record(a, true);
      await stream.waitForEvents(1);
      expect(stream.events.map((e) => e.id)).toEqual([early]);
      await client.query('commit');
      await stream.waitForEvents(2);
      expect(stream.events.map((e) => e.id)).toEqual([early, late]);
      // And a stream resuming after the early one gets the late one.
      const resumed = await openEventStream(base, a.testKey, { lastEventId: early });
      await resumed.waitForEvents(1);
      expect(resumed.events.map((e) => e.id)).toEqual([late]);
      resumed.close();
    } finally {
      stream.close();
      await client.end();
    }
  });
});
