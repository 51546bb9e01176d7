import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  schemaChecked,
  type TestApp,
} from '../../../test/support/harness.ts';
import { queryRows } from '../../db/client.ts';
import { compiledSerializer } from '../../http/serializers.ts';
import { convertToBaseUnits, fromBaseUnits } from '../../lib/money.ts';
import { eventListSchema } from '../webhooks/delivery/schemas.ts';
import {
  paymentEventBody,
  payoutWalletEventBody,
  refundEventBody,
  samplePayment,
  webhookEndpointEventBody,
} from '../webhooks/events/payload.ts';
import { createPaymentsRepo } from './repo.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const create = (key: string, payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/payments', headers: { ...apiKey(key), ...headers }, payload });

describe('creating payments', () => {
  it('creates a test payment in USD paid in ETH at a locked rate, exactly', async () => {
    const response = await create(m.testKey, {
      amount: '100',
      currency: 'USD',
      chain: 'ethereum',
      order_id: 'A-1',
      metadata: { cart: '42' },
    });
    expect(response.statusCode).toBe(201);
    const p = response.json();
    expect(p).toMatchObject({
      payment_id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      status: 'pending',
      amount: '100',
      currency: 'USD',
      chain: 'ethereum',
      asset: 'ETH',
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      received_amount_native: '0',
      tx_hash: null,
      is_test: true,
      order_id: 'A-1',
      metadata: { cart: '42' },
      redirect_url: null,
      checkout_url: `${t.config.publicUrl}/pay/${p.payment_id}`,
    });
    // 100 USD at 3000 USD/ETH is 0.0333… ETH: rounded up to the six decimals wallets show.
    const exact = convertToBaseUnits('100', p.rate.value, 18);
    expect(fromBaseUnits(exact, 18)).toBe('0.033333333333333334');
    expect(p.expected_amount_native).toBe('0.033334');
    expect(p.remaining_amount_native).toBe(p.expected_amount_native);
    expect(Date.parse(p.expires_at) - Date.parse(p.created_at)).toBe(30 * 60 * 1000);
    expect(p.payment_uri).toMatch(/^ethereum:0x/);
  });

  it('prices a payment given in the asset itself without a rate, and tokens with their decimals', async () => {
    const native = (await create(m.testKey, { amount: '0.015', currency: 'BTC', chain: 'bitcoin' })).json();
    expect(native).toMatchObject({
      asset: 'BTC',
      expected_amount_native: '0.015',
      address: expect.stringMatching(/^tb1q/),
    });
    const token = (
      await create(m.testKey, { amount: '25.5', currency: 'USD', chain: 'ethereum', asset: 'usdc' })
    ).json();
    expect(token).toMatchObject({ asset: 'USDC', expected_amount_native: '25.5' });
    const number = await create(m.testKey, {
      amount: 19.99,
      currency: 'usd',
      chain: 'solana',
      asset: 'USDT',
    });
    expect(number.statusCode).toBe(201);
    expect(number.json()).toMatchObject({
      amount: '19.99',
      currency: 'USD',
      expected_amount_native: '19.99',
    });
  });

  it('gives every payment its own address', async () => {
    const addresses = new Set<string>();
    for (let i = 0; i < 5; i++)
      addresses.add(
        (await create(m.testKey, { amount: '1', currency: 'USD', chain: 'tron' })).json().address,
      );
    expect(addresses.size).toBe(5);
    for (const address of addresses) expect(address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  });

  it.each([
    [{ amount: '0', currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: '-5', currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: 'ten', currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: '1.001', currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: '0.000000001', currency: 'BTC', chain: 'bitcoin' }, 'parameter_invalid', 'amount'],
    [{ amount: '99999999999999999999', currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: 1e300, currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ amount: true, currency: 'USD', chain: 'ethereum' }, 'parameter_invalid', 'amount'],
    [{ currency: 'USD', chain: 'ethereum' }, 'parameter_missing', 'amount'],
    [{ amount: '1', currency: 'USD', chain: 'dogechain' }, 'unsupported_chain', 'chain'],
    [{ amount: '1', currency: 'USD', chain: 'base', asset: 'USDT' }, 'unsupported_asset', 'asset'],
    [{ amount: '1', currency: 'USD', chain: 'bitcoin', asset: 'USDC' }, 'unsupported_asset', 'asset'],
    [{ amount: '1', currency: 'ZZZ', chain: 'ethereum' }, 'parameter_invalid', 'currency'],
    [
      { amount: '1', currency: 'USD', chain: 'ethereum', metadata: { a: 1 } },
      'parameter_invalid',
      'metadata.a',
    ],
    [{ amount: '1', currency: 'USD', chain: 'ethereum', metadata: 'x' }, 'parameter_invalid', 'metadata'],
    [
      { amount: '1', currency: 'USD', chain: 'ethereum', metadata: { ['k'.repeat(41)]: 'v' } },
      'parameter_invalid',
      `metadata.${'k'.repeat(41)}`,
    ],
    [
      {
        amount: '1',
        currency: 'USD',
        chain: 'ethereum',
        metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
      },
      'parameter_invalid',
      'metadata',
    ],
    [{ amount: '1', currency: 'USD', chain: 'ethereum', expires_in: 10 }, 'parameter_invalid', 'expires_in'],
    [
      { amount: '1', currency: 'USD', chain: 'ethereum', expires_in: 10_000_000 },
      'parameter_invalid',
      'expires_in',
    ],
    [
      { amount: '1', currency: 'USD', chain: 'ethereum', redirect_url: 'javascript:alert(1)' },
      'parameter_invalid',
      'redirect_url',
    ],
    [{ amount: '1', currency: 'USD', chain: 'ethereum', fee: '1' }, 'parameter_unknown', 'fee'],
  ])('refuses %j with %s on %s', async (payload, code, param) => {
    const response = await create(m.testKey, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code, param });
  });

  it('refuses live payments while no live seed is configured', async () => {
    const response = await create(m.liveKey, { amount: '1', currency: 'USD', chain: 'ethereum' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('live_seed_missing');
  });

  it('takes an API key, or a dashboard token that names the mode; nothing else', async () => {
    const jwt = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: bearer(m.token),
      payload: { amount: '1', currency: 'USD', chain: 'ethereum' },
    });
    expect(jwt.statusCode).toBe(400);
    expect(jwt.json().error).toMatchObject({ code: 'parameter_missing', param: 'is_test' });
    const session = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: bearer(m.token),
      payload: { amount: '1', currency: 'USD', chain: 'ethereum', is_test: true },
    });
    expect(session.statusCode, session.body).toBe(201);
    expect(session.json()).toMatchObject({ is_test: true, chain: 'ethereum', chosen_by: 'merchant' });
    const mismatch = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.testKey),
      payload: { amount: '1', currency: 'USD', chain: 'ethereum', is_test: false },
    });
    expect(mismatch.json().error).toMatchObject({ code: 'mode_mismatch', param: 'is_test' });
    const none = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      payload: { amount: '1', currency: 'USD', chain: 'ethereum' },
    });
    expect(none.statusCode).toBe(401);
  });
});

describe('idempotency', () => {
  it('creates the first payment of a fresh process with a key (no index query inside its transaction)', async () => {
    // A new app has an empty index reservoir; on the embedded engine a refill inside the open transaction would hang.
    const fresh = await createTestApp({ database: t.database });
    try {
      const response = await fresh.app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: { ...apiKey(m.testKey), 'idempotency-key': `fresh-${Date.now()}` },
        payload: { amount: '2', currency: 'USD', chain: 'tron' },
      });
      expect(response.statusCode).toBe(201);
    } finally {
      await fresh.close();
    }
  });

  it('replays the first response for the same key and body, and refuses another body', async () => {
    const key = `order-${Date.now()}`;
    const body = { amount: '10', currency: 'USD', chain: 'ethereum', order_id: key };
    const first = await create(m.testKey, body, { 'idempotency-key': key });
    const second = await create(
      m.testKey,
      { chain: 'ethereum', currency: 'USD', order_id: key, amount: '10' },
      { 'idempotency-key': key },
    );
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    // The same bytes, not just the same fields: the stored body comes back in the database's key order.
    expect(second.body).toBe(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const other = await create(m.testKey, { ...body, amount: '11' }, { 'idempotency-key': key });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('idempotency_conflict');
    // Keys are per mode: the same key with the live key is a different request space.
    const list = await t.app.inject({
      method: 'GET',
      url: `/v1/payments?order_id=${key}`,
      headers: apiKey(m.testKey),
    });
    expect(list.json().data).toHaveLength(1);
  });

  it('creates exactly one payment for 50 simultaneous requests with one key', async () => {
    const key = `burst-${Date.now()}`;
    const body = { amount: '5', currency: 'USD', chain: 'polygon', order_id: key };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => create(m.testKey, body, { 'idempotency-key': key })),
    );
    const ids = new Set(
      responses.map((r) => (r.statusCode === 201 ? r.json().payment_id : `status ${r.statusCode}`)),
    );
    expect([...ids]).toHaveLength(1);
    const rows = await queryRows<{ n: string }>(
      t.database.db,
      sql`select count(*)::text as n from payments where order_id = ${key}`,
    );
    expect(rows[0]!.n).toBe('1');
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const response = await create(
      m.testKey,
      { amount: '1', currency: 'USD', chain: 'ethereum' },
      { 'idempotency-key': 'x'.repeat(300) },
    );
    expect(response.json().error).toMatchObject({ code: 'parameter_invalid', param: 'Idempotency-Key' });
  });
});

describe('reading payments', () => {
  it('reads and lists within the key mode and merchant only', async () => {
    const other = await createMerchant(t.app);
    const mine = (await create(m.testKey, { amount: '3', currency: 'USD', chain: 'base' })).json();
    const ok = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${mine.payment_id}`,
      headers: apiKey(m.testKey),
    });
    // The single read adds the deposits and events (none yet) to the payment as created.
    expect(ok.json()).toEqual({ ...mine, deposits: [], events: [] });
    for (const headers of [apiKey(m.liveKey), apiKey(other.testKey), bearer(other.token)]) {
      const response = await t.app.inject({ method: 'GET', url: `/v1/payments/${mine.payment_id}`, headers });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain(mine.address);
    }
    const dashboard = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${mine.payment_id}`,
      headers: bearer(m.token),
    });
    expect(dashboard.statusCode).toBe(200);
    const otherList = await t.app.inject({
      method: 'GET',
      url: '/v1/payments',
      headers: apiKey(other.testKey),
    });
    expect(otherList.json().data).toEqual([]);
    const liveList = await t.app.inject({ method: 'GET', url: '/v1/payments', headers: apiKey(m.liveKey) });
    expect(liveList.json().data).toEqual([]);
    const malformed = await t.app.inject({
      method: 'GET',
      url: '/v1/payments/not-a-uuid',
      headers: apiKey(m.testKey),
    });
    expect(malformed.json().error).toMatchObject({ code: 'parameter_invalid', param: 'id' });
  });

  it('paginates with a cursor and filters by status, order id and creation time', async () => {
    const merchant = await createMerchant(t.app);
    const created = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        (
          await create(merchant.testKey, {
            amount: `${i + 1}`,
            currency: 'USD',
            chain: 'ethereum',
            order_id: `o-${i}`,
          })
        ).json(),
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&starting_after=${cursor}`;
      const page = (
        await t.app.inject({
          method: 'GET',
          url: `/v1/payments?limit=2${query}`,
          headers: apiKey(merchant.testKey),
        })
      ).json();
      seen.push(...page.data.map((p: { payment_id: string }) => p.payment_id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor !== null);
    expect(seen).toEqual(created.map((p) => p.payment_id).reverse());

    const byOrder = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/payments?order_id=o-3',
        headers: apiKey(merchant.testKey),
      })
    ).json();
    expect(byOrder.data.map((p: { amount: string }) => p.amount)).toEqual(['4']);
    const byStatus = (
      await t.app.inject({
        method: 'GET',
        url: '/v1/payments?status=completed',
        headers: apiKey(merchant.testKey),
      })
    ).json();
    expect(byStatus.data).toEqual([]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const byTime = (
      await t.app.inject({
        method: 'GET',
        url: `/v1/payments?created_gte=${encodeURIComponent(future)}`,
        headers: apiKey(merchant.testKey),
      })
    ).json();
    expect(byTime.data).toEqual([]);
    const badStatus = await t.app.inject({
      method: 'GET',
      url: '/v1/payments?status=paid',
      headers: apiKey(merchant.testKey),
    });
    expect(badStatus.json().error).toMatchObject({ code: 'parameter_invalid', param: 'status' });
    const badLimit = await t.app.inject({
      method: 'GET',
      url: '/v1/payments?limit=1000',
      headers: apiKey(merchant.testKey),
    });
    expect(badLimit.json().error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('inserts simultaneous creations without a key together, each answered with its own stored payment', async () => {
    const merchant = await createMerchant(t.app);
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        create(merchant.testKey, {
          amount: `${i + 1}`,
          currency: 'USD',
          chain: 'ethereum',
          order_id: `co-${i + 1}`,
        }),
      ),
    );
    const created = responses.map((response) => {
      expect(response.statusCode).toBe(201);
      return response.json();
    });
    for (const payment of created.slice(0, 5)) {
      const stored = await t.app.inject({
        method: 'GET',
        url: `/v1/payments/${payment.payment_id}`,
        headers: apiKey(merchant.testKey),
      });
      expect(stored.json()).toMatchObject(payment);
    }
    // Rows written by one statement share its transaction id: fewer transactions than payments means shared INSERTs.
    // (Only a server's round trips leave time for creations to gather: a PGlite on the test's own thread has run each
    // insert before the next creation reaches it. The program's embedded engine, on its own thread, does gather.)
    const rows = await queryRows<{ order_id: string; amount: string; tx: string }>(
      t.database.db,
      sql`select order_id, amount, xmin::text as tx from payments where merchant_id = ${merchant.merchantId}`,
    );
    expect(rows).toHaveLength(40);
    expect(rows.every((row) => row.order_id === `co-${row.amount}`)).toBe(true);
    if (t.database.kind === 'postgres') expect(new Set(rows.map((row) => row.tx)).size).toBeLessThan(40);
  });

  it('gives 1,000 payments 1,000 distinct addresses', async () => {
    const merchant = await createMerchant(t.app);
    const chainsToUse = ['ethereum', 'bitcoin', 'solana', 'litecoin'];
    const addresses = new Set<string>();
    for (let batch = 0; batch < 20; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          create(merchant.testKey, {
            amount: '1',
            currency: 'USD',
            chain: chainsToUse[(batch * 50 + i) % chainsToUse.length]!,
          }),
        ),
      );
      for (const response of responses) {
        expect(response.statusCode).toBe(201);
        addresses.add(`${response.json().chain}:${response.json().address}`);
      }
    }
    expect(addresses.size).toBe(1000);
  }, 120_000);
});

describe('public checkout view', () => {
  it('shows a payment without a key and without merchant data', async () => {
    const p = (
      await create(m.testKey, {
        amount: '12.5',
        currency: 'USD',
        chain: 'ethereum',
        asset: 'USDC',
        order_id: 'secret-order',
        metadata: { customer: 'secret-customer' },
        redirect_url: 'https://shop.example/thanks',
      })
    ).json();
    const response = await t.app.inject({ method: 'GET', url: `/v1/payments/checkout/${p.payment_id}` });
    expect(response.statusCode).toBe(200);
    const view = response.json();
    expect(view).toMatchObject({
      payment_id: p.payment_id,
      status: 'pending',
      amount: '12.5',
      currency: 'USD',
      chain: 'ethereum',
      asset: 'USDC',
      address: p.address,
      expected_amount_native: '12.5',
      received_amount_native: '0',
      is_test: true,
      redirect_url: 'https://shop.example/thanks',
      confirmations: { seen: 0, required: expect.any(Number) },
      expires_at: p.expires_at,
    });
    expect(view.payment_uri).toContain('/transfer?address=');
    expect(response.body).not.toContain('secret-order');
    expect(response.body).not.toContain('secret-customer');
    expect(response.body).not.toContain(m.merchantId);
    expect(response.headers['cache-control']).toBe('no-store');
    // The read behind it does not even load them.
    const read = await createPaymentsRepo(t.database.db).findCheckout(p.payment_id);
    expect(read).toMatchObject({ id: p.payment_id, address: p.address });
    for (const field of ['metadata', 'orderId', 'customerEmail', 'forwardTxHash'])
      expect(read).not.toHaveProperty(field);
  });

  it('answers a malformed id with 400 and an unknown one with 404', async () => {
    const malformed = await t.app.inject({ method: 'GET', url: '/v1/payments/checkout/123' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatchObject({ code: 'parameter_invalid', param: 'payment_id' });
    const unknown = await t.app.inject({
      method: 'GET',
      url: '/v1/payments/checkout/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });
});

describe("the detail's compiled serializer", () => {
  it('writes events of every kind exactly as the schema-checked path writes them', () => {
    const at = new Date(Date.UTC(2026, 10, 27, 4, 5, 6, 7));
    const payloads = [
      paymentEventBody(
        'payment.overpaid',
        { ...samplePayment('payment.overpaid', true), amount: '0.10' },
        at,
      ),
      paymentEventBody('payment.expired', samplePayment('payment.expired', false), at),
      refundEventBody(
        'refund.sent',
        {
          refund_id: 'rf_1',
          payment_id: '0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47',
          status: 'sent',
          chain: 'litecoin',
          asset: 'LTC',
          amount_native: '0.5',
          sent_amount_native: '0.4999',
          fee_native: '0.0001',
          source: 'deposit',
          to_address: 'ltc1q…',
          tx_hash: 'ab',
          reason: 'duplicate "order"',
          error: null,
          is_test: true,
        },
        at,
      ),
      payoutWalletEventBody(
        {
          isTest: false,
          changes: [{ chain: 'tron', old_address: null, new_address: 'T9y' }],
          changedBy: 'a@b.c',
        },
        at,
      ),
      webhookEndpointEventBody(
        {
          type: 'webhook_endpoint.failing',
          isTest: true,
          endpointId: 'we_1',
          url: 'https://example.com/hook',
          consecutiveFailures: 3,
          failingSince: at,
          nextProbeAt: null,
        },
        at,
      ),
    ];
    const events = payloads.map((body, index) => ({
      id: `evt_${index}`,
      type: JSON.parse(body).event,
      is_test: true,
      payment_id: null,
      sample: false,
      created_at: at.toISOString(),
      payload: JSON.parse(body),
    }));
    const body = { data: events, has_more: false };
    const compiled = compiledSerializer({ schema: eventListSchema })(body);
    expect(compiled).toBe(schemaChecked(eventListSchema)(body));
    expect(JSON.parse(compiled)).toEqual(body);
  });
});
