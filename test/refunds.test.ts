import { createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMnemonic } from './support/harness.ts';
import { freePort } from './support/net.ts';
import { type ServedProgram, startServe, stopProgram } from './support/program.ts';
import { startSmtpServer } from './support/smtp.ts';
import { createIsolatedDatabase, type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

/**
 * Refunds through the running program on the simulated chains (test mode): underpaid, overpaid and completed (swept)
 * payments refunded, from the deposit address while the funds are there and from the simulated refund wallet after the
 * sweep; the payer's refund link; an invalid address refused; two concurrent requests for the whole amount (one
 * refund); idempotency; and the refund.* events delivered, signed, to the merchant's endpoint.
 */

interface Refund {
  id: string;
  payment_id: string;
  status: string;
  source: string | null;
  amount_native: string;
  sent_amount_native: string | null;
  fee_native: string | null;
  fee_estimate_native: string | null;
  tx_hash: string | null;
  to_address: string | null;
  refund_url: string;
  currency: string | null;
  currency_amount: string | null;
}

interface Payment {
  payment_id: string;
  status: string;
  received_amount_native: string;
  forwarded_at: string | null;
}

const payerAddress = () => `0x${randomBytes(20).toString('hex')}`;

describe('refunds through the running program (simulated chains)', { timeout: 120_000 }, () => {
  let program: ServedProgram;
  let base = '';
  let receiver: Receiver;
  let drop: () => Promise<void> = async () => {};
  let key = '';
  let secret = '';
  let dashboardToken = '';
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: T }> {
    const response = await fetch(`${base}/v1${path}`, {
      method,
      headers: {
        'x-api-key': key,
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as T };
  }

  async function ok<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const answer = await call<T>(method, path, body, headers);
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return answer.json;
  }

  async function paymentIn(status: string, simulate: Record<string, unknown>): Promise<Payment> {
    const created = await ok<Payment>('POST', '/payments', {
      amount: '1',
      currency: 'ETH',
      chain: 'ethereum',
    });
    await ok('POST', `/payments/${created.payment_id}/simulate`, simulate);
    return waitFor(
      `payment ${status}`,
      async () => {
        const payment = await ok<Payment>('GET', `/payments/${created.payment_id}`);
        return payment.status === status ? payment : undefined;
      },
      30_000,
    );
  }

  const refundSent = (id: string) =>
    waitFor(
      `refund ${id} sent`,
      async () => {
        const refund = await ok<Refund>('GET', `/refunds/${id}`);
        if (refund.status === 'failed') throw new Error(`refund failed: ${JSON.stringify(refund)}`);
        return refund.status === 'sent' ? refund : undefined;
      },
      30_000,
    );

  beforeAll(async () => {
    receiver = await startReceiver();
    smtp = await startSmtpServer();
    const isolated = await createIsolatedDatabase();
    drop = isolated.drop;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    program = await startServe({
      port,
      dataDirPrefix: 'svc-refunds-',
      env: {
        ...(isolated.url === undefined ? {} : { DATABASE_URL: isolated.url, SVC_SIGNUP: 'open' }),
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_SMTP_URL: smtp.url,
        SVC_SMTP_FROM: 'shop <shop@example.com>',
        SVC_SIM_BLOCK_MS: '100',
        SVC_SIM_CONFIRMATIONS: '2',
        SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
        SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        SVC_OPERATOR_EMAILS: '@example.com',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `refunds-${randomBytes(6).toString('hex')}@example.com`,
        password: 'correct horse battery staple',
      }),
    });
    const session = (await signup.json()) as { token: string };
    dashboardToken = session.token;
    const keypair = await fetch(`${base}/v1/keypairs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}` },
    });
    key = ((await keypair.json()) as { test: { full_key: string } }).test.full_key;
    const endpoint = await ok<{ signing_secret: string }>('POST', '/webhooks', {
      url: receiver.url,
      is_test: true,
    });
    secret = endpoint.signing_secret;
  }, 90_000);

  afterAll(async () => {
    await stopProgram(program?.process, 2000);
    await receiver?.close();
    await smtp?.close();
    await drop();
  });

  it('refunds an underpaid payment from its deposit address, the fee out of the refund', async () => {
    const payment = await paymentIn('underpaid', { outcome: 'underpaid', amount_native: '0.4' });
    const to = payerAddress();
    const created = await call<Refund>('POST', `/payments/${payment.payment_id}/refunds`, { address: to });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject({ status: 'queued', amount_native: '0.4', to_address: to });
    // The simulated chain's fee: 21,000 gas at 1 gwei.
    expect(created.json.fee_estimate_native).toBe('0.000021');
    const sent = await refundSent(created.json.id);
    expect(sent).toMatchObject({ source: 'deposit', fee_native: '0.000021', sent_amount_native: '0.399979' });
    expect(sent.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // Nothing more to refund: it received 0.4 and 0.4 went back.
    const more = await call<{ error: { code: string } }>('POST', `/payments/${payment.payment_id}/refunds`, {
      amount: '0.000001',
      address: to,
    });
    expect(more.status).toBe(409);
    expect(more.json.error.code).toBe('refund_exceeds_received');
  });

  it('refunds overpaid excess through the payer link, and refuses an invalid address with a clear error', async () => {
    const payment = await paymentIn('overpaid', { outcome: 'overpaid', amount_native: '1.25' });
    const created = await ok<Refund>('POST', `/payments/${payment.payment_id}/refunds`, {
      amount: '0.25',
      reason: 'overpaid',
      email: 'payer@example.com',
    });
    expect(created.status).toBe('awaiting_address');
    // The payer gets the link by email.
    const mail = await waitFor('the refund link mail', () =>
      smtp.mails.find((m) => m.to.includes('payer@example.com')),
    );
    expect(mail.raw).toContain(created.refund_url);
    expect(mail.raw).toContain('Subject: Your refund of 0.25 ETH');
    const token = created.refund_url.split('/refund/')[1] ?? '';
    const link = await fetch(`${base}/v1/refund-links/${token}`);
    expect(link.status).toBe(200);
    expect(await link.json()).toMatchObject({
      amount_native: '0.25',
      fee_paid_from_refund: true,
      status: 'awaiting_address',
    });
    // A forged token reveals nothing.
    const forged = await fetch(`${base}/v1/refund-links/${created.id}.${'A'.repeat(22)}`);
    expect(forged.status).toBe(404);

    const submit = (address: string) =>
      fetch(`${base}/v1/refund-links/${token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address }),
      });
    // A mixed-case address whose EIP-55 checksum is wrong (one letter's case flipped), and a Bitcoin address.
    for (const bad of [
      '0x5aAeb6053f3E94C9b9A09f33669435E7Ef1BeAed',
      'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    ]) {
      const refused = await submit(bad);
      expect(refused.status).toBe(400);
      const body = (await refused.json()) as { error: { code: string; param: string; message: string } };
      expect(body.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
      expect(body.error.message).toContain('not a valid Ethereum address');
    }
    const to = payerAddress();
    expect((await submit(to)).status).toBe(200);
    expect((await submit(payerAddress())).status).toBe(409); // given once
    const sent = await refundSent(created.id);
    expect(sent.to_address).toBe(to);
    expect(['deposit', 'refund_wallet']).toContain(sent.source);
    expect(sent.sent_amount_native).toBe('0.249979');
  });

  it('refunds a swept payment from the refund wallet, asked for in the payment currency', async () => {
    const created = await ok<Payment>('POST', '/payments', {
      amount: '20',
      currency: 'USD',
      chain: 'ethereum',
    });
    await ok('POST', `/payments/${created.payment_id}/simulate`, { outcome: 'paid' });
    await waitFor(
      'the payment swept',
      async () => (await ok<Payment>('GET', `/payments/${created.payment_id}`)).forwarded_at !== null,
      30_000,
    );
    const refund = await ok<Refund>('POST', `/payments/${created.payment_id}/refunds`, {
      amount: '5',
      currency: 'USD',
      address: payerAddress(),
    });
    expect(refund).toMatchObject({ currency: 'USD', currency_amount: '5' });
    const sent = await refundSent(refund.id);
    expect(sent.source).toBe('refund_wallet');
  });

  it('two concurrent requests for the whole amount make one refund', async () => {
    const payment = await paymentIn('completed', { outcome: 'paid' });
    const both = await Promise.all(
      [0, 1].map(() =>
        call<Refund & { error?: { code: string } }>('POST', `/payments/${payment.payment_id}/refunds`, {}),
      ),
    );
    const statuses = both.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 409]);
    expect(both.find((answer) => answer.status === 409)?.json.error?.code).toBe('refund_exceeds_received');
    const list = await ok<{ data: Refund[] }>('GET', `/payments/${payment.payment_id}/refunds`);
    expect(list.data).toHaveLength(1);
    expect(list.data[0]?.amount_native).toBe(payment.received_amount_native);
  });

  it('an Idempotency-Key gives the same refund back', async () => {
    const payment = await paymentIn('completed', { outcome: 'paid' });
    const headers = { 'idempotency-key': `rf-${randomBytes(4).toString('hex')}` };
    const first = await call<Refund>(
      'POST',
      `/payments/${payment.payment_id}/refunds`,
      { amount: '0.1' },
      headers,
    );
    const again = await call<Refund>(
      'POST',
      `/payments/${payment.payment_id}/refunds`,
      { amount: '0.1' },
      headers,
    );
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.json.id).toBe(first.json.id);
    const other = await call<{ error: { code: string } }>(
      'POST',
      `/payments/${payment.payment_id}/refunds`,
      { amount: '0.2' },
      headers,
    );
    expect(other.json.error.code).toBe('idempotency_conflict');
  });

  it('refunds overpaid excess on its own when the merchant turned it on, once the payer gives an address', async () => {
    const patch = await fetch(`${base}/v1/settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${dashboardToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ auto_refund_overpaid: true }),
    });
    expect(patch.status).toBe(200);
    const payment = await paymentIn('overpaid', { outcome: 'overpaid', amount_native: '1.3' });
    const automatic = await waitFor(
      'the automatic refund',
      async () =>
        (
          await ok<{ data: Array<Refund & { automatic: boolean }> }>(
            'GET',
            `/payments/${payment.payment_id}/refunds`,
          )
        ).data[0],
      20_000,
    );
    expect(automatic).toMatchObject({ automatic: true, status: 'awaiting_address', amount_native: '0.3' });
    const token = automatic.refund_url.split('/refund/')[1] ?? '';
    const given = await fetch(`${base}/v1/refund-links/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: payerAddress() }),
    });
    expect(given.status).toBe(200);
    expect((await refundSent(automatic.id)).sent_amount_native).toBe('0.299979');
    // One automatic refund per payment, however many rounds ran.
    const list = await ok<{ data: Refund[] }>('GET', `/payments/${payment.payment_id}/refunds`);
    expect(list.data).toHaveLength(1);
  });

  it('delivers refund.created and refund.sent, signed like every event', async () => {
    const events = await waitFor(
      'refund events',
      () => {
        const bodies = receiver.requests.map((request) => ({
          request,
          body: JSON.parse(request.body.toString('utf8')) as { event: string },
        }));
        const refundEvents = bodies.filter((entry) => entry.body.event.startsWith('refund.'));
        return refundEvents.filter((entry) => entry.body.event === 'refund.sent').length >= 3
          ? refundEvents
          : undefined;
      },
      30_000,
    );
    for (const { request } of events) {
      const expected = `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`;
      expect(request.headers['x-service-signature']).toBe(expected);
    }
    const sent = events.find((entry) => entry.body.event === 'refund.sent')?.body;
    expect(Object.keys(sent ?? {})).toEqual([
      'event',
      'refund_id',
      'payment_id',
      'status',
      'chain',
      'asset',
      'amount_native',
      'sent_amount_native',
      'fee_native',
      'source',
      'to_address',
      'tx_hash',
      'reason',
      'error',
      'is_test',
      'timestamp',
    ]);
  });
});
