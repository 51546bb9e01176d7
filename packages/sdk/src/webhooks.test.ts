import { describe, expect, it } from 'vitest';
import { deliveryHeaders } from '../../../src/modules/webhooks/delivery/signing.ts';
import { paymentEventBody } from '../../../src/modules/webhooks/events/payload.ts';
import { generateSecret, sign, verify, WebhookVerificationError } from './webhooks.ts';

const secret = generateSecret();
const at = new Date('2026-11-26T10:00:00.123Z');
const body = paymentEventBody(
  'payment.confirmed',
  {
    payment_id: '0190b0a4-0000-7000-8000-000000000001',
    status: 'completed',
    amount: '19.99',
    currency: 'USD',
    chain: 'ethereum',
    tx_hash: `0x${'a'.repeat(64)}`,
    received_amount_native: '0.0063',
    expected_amount_native: '0.0063',
    is_test: true,
  },
  at,
);
/** Exactly what the service's delivery worker sends (its own signing code, not the SDK's). */
const served = (secrets: string[] = [secret], when = at) =>
  deliveryHeaders({ eventId: 'evt_1', body, secrets, at: when });
const now = at.getTime() + 2000;

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return 'accepted';
}

describe('webhooks.verify', () => {
  it("accepts the service's deliveries as bytes or text, with fetch or Node headers, and returns the typed event", async () => {
    const event = await verify(new TextEncoder().encode(body), new Headers(served()), secret, { now });
    expect(event).toEqual(JSON.parse(body));
    if (event.event !== 'payment.confirmed') throw new Error('typed by its event');
    expect(event.payment_id).toBe('0190b0a4-0000-7000-8000-000000000001');
    const nodeHeaders = Object.fromEntries(
      Object.entries(served()).map(([name, value]) => [name.toUpperCase(), value]),
    );
    await expect(verify(body, nodeHeaders, secret, { now })).resolves.toMatchObject({
      event: 'payment.confirmed',
    });
  });

  it('rejects a tampered body, a wrong secret and a stale timestamp, under either scheme', async () => {
    const headers = served();
    const seedOnly = {
      'x-service-signature': headers['x-service-signature'],
      'x-service-timestamp': headers['x-service-timestamp'],
    };
    for (const sent of [headers, seedOnly]) {
      expect(await reason(verify(body.replace('19.99', '1999'), sent, secret, { now }))).toBe(
        'invalid_signature',
      );
      expect(await reason(verify(body, sent, generateSecret(), { now }))).toBe('invalid_signature');
      expect(await reason(verify(body, sent, secret, { now: now + 301_000 }))).toBe('stale_timestamp');
      expect(await reason(verify(body, sent, secret, { now: now - 400_000 }))).toBe('stale_timestamp');
      expect(await reason(verify(body, sent, secret, { now: now + 3_600_000, tolerance: 4000 }))).toBe(
        'accepted',
      );
    }
    // A replay with a fresh unsigned timestamp does not pass the Standard Webhooks check: its timestamp is signed.
    const replayed = { ...headers, 'webhook-timestamp': String(Math.floor(now / 1000) + 600) };
    expect(await reason(verify(body, replayed, secret, { now: now + 600_000 }))).toBe('invalid_signature');
    expect(await reason(verify(body, {}, secret, { now }))).toBe('missing_headers');
    expect(
      await reason(verify(body, { ...seedOnly, 'x-service-timestamp': 'yesterday' }, secret, { now })),
    ).toBe('invalid_timestamp');
    expect(
      await reason(verify(body, { ...seedOnly, 'x-service-signature': 'sha256=zz' }, secret, { now })),
    ).toBe('invalid_signature');
  });

  it('takes either secret during a rotation, as the service signs with both', async () => {
    const previous = generateSecret();
    const headers = served([secret, previous]);
    expect(await reason(verify(body, headers, previous, { now }))).toBe('accepted');
    expect(await reason(verify(body, headers, [generateSecret(), secret], { now }))).toBe('accepted');
  });

  it('refuses a signed body that is not an event', async () => {
    const headers = deliveryHeaders({ eventId: 'evt_2', body: '[1,2]', secrets: [secret], at });
    expect(await reason(verify('[1,2]', headers, secret, { now }))).toBe('invalid_body');
  });
});

describe('webhooks.sign', () => {
  it("makes exactly the service's headers", async () => {
    expect(
      await sign({ id: 'evt_1', body, secrets: [secret, generateSecret()].slice(0, 1), timestamp: at }),
    ).toEqual(served());
    const previous = generateSecret();
    expect(await sign({ id: 'evt_1', body, secrets: [secret, previous], timestamp: at })).toEqual(
      served([secret, previous]),
    );
  });

  it('matches the published Standard Webhooks test vector', async () => {
    const headers = await sign({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      body: '{"test": 2432232314}',
      secrets: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      timestamp: new Date(1614265330 * 1000),
    });
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});
