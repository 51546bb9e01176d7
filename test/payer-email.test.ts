import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMnemonic } from './support/harness.ts';
import { freePort } from './support/net.ts';
import { type ServedProgram, startServe, stopProgram } from './support/program.ts';
import { startSmtpServer } from './support/smtp.ts';
import { createIsolatedDatabase, waitFor } from './support/webhooks.ts';

/**
 * The payer's email (`customer_email`) through the running program on the simulated chains, read from a real SMTP
 * server started here: the payer's receipt once the payment is paid (once, and none for a payment without an email),
 * and the link of a refund that waits for their address, sent to the email the payment was created with.
 */

interface Payment {
  payment_id: string;
  status: string;
  customer_email: string | null;
  checkout_url: string;
}

describe("the payer's email through the running program", { timeout: 120_000 }, () => {
  let program: ServedProgram;
  let base = '';
  let drop: () => Promise<void> = async () => {};
  let key = '';
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
    const response = await fetch(`${base}/v1${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as T };
  }

  async function ok<T>(method: string, path: string, body?: unknown): Promise<T> {
    const answer = await call<T>(method, path, body);
    if (answer.status >= 300)
      throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.json)}`);
    return answer.json;
  }

  const payPaid = async (id: string) => {
    await ok('POST', `/payments/${id}/simulate`, { outcome: 'paid' });
    return waitFor(
      'payment completed',
      async () => {
        const payment = await ok<Payment>('GET', `/payments/${id}`);
        return payment.status === 'completed' ? payment : undefined;
      },
      30_000,
    );
  };

  const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const isolated = await createIsolatedDatabase();
    drop = isolated.drop;
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    program = await startServe({
      port,
      dataDirPrefix: 'svc-payer-email-',
      env: {
        ...(isolated.url === undefined ? {} : { DATABASE_URL: isolated.url, SVC_SIGNUP: 'open' }),
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_SMTP_URL: smtp.url,
        SVC_SMTP_FROM: 'shop <shop@example.com>',
        SVC_SIM_BLOCK_MS: '100',
        SVC_SIM_CONFIRMATIONS: '2',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `merchant-${randomBytes(6).toString('hex')}@example.com`,
        password: 'correct horse battery staple',
      }),
    });
    const session = (await signup.json()) as { token: string };
    const keypair = await fetch(`${base}/v1/keypairs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}` },
    });
    key = ((await keypair.json()) as { test: { full_key: string } }).test.full_key;
  }, 90_000);

  afterAll(async () => {
    await stopProgram(program?.process, 2000);
    await smtp?.close();
    await drop();
  });

  it('refuses an email that is not one, naming the parameter', async () => {
    const answer = await call<{ error: { code: string; param: string } }>('POST', '/payments', {
      amount: '1',
      currency: 'ETH',
      chain: 'ethereum',
      customer_email: 'not an email',
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error.param).toBe('customer_email');
  });

  it("mails the payer's receipt once when the payment is paid, and none to a payer without an email", async () => {
    const payer = `payer-${randomBytes(6).toString('hex')}@example.com`;
    const silent = await ok<Payment>('POST', '/payments', {
      amount: '0.5',
      currency: 'ETH',
      chain: 'ethereum',
    });
    expect(silent.customer_email).toBeNull();
    const mailed = await ok<Payment>('POST', '/payments', {
      amount: '1',
      currency: 'ETH',
      chain: 'ethereum',
      order_id: 'order-77',
      customer_email: payer,
    });
    expect(mailed.customer_email).toBe(payer);
    // The payment without an email is paid first: by the time the second's receipt arrives, its turn has passed.
    await payPaid(silent.payment_id);
    await payPaid(mailed.payment_id);
    const receipt = await waitFor('the receipt', () => mailsTo(payer)[0], 20_000);
    expect(receipt.raw).toContain('Subject: Receipt: your payment of 1 ETH is confirmed');
    expect(receipt.raw).toContain('Paid: 1 ETH on Ethereum (test mode: no real funds)');
    expect(receipt.raw).toContain('Order: order-77');
    expect(receipt.raw).toContain(`Payment: ${mailed.payment_id}`);
    expect(receipt.raw).toContain(mailed.checkout_url);
    expect(receipt.raw).toMatch(/Message-ID: <mail_[0-9a-z]+@svc>/i);
    expect(smtp.mails.filter((mail) => mail.raw.includes(silent.payment_id))).toHaveLength(0);

    // A refund that needs the payer's address: its link goes to the email the payment was created with.
    const refund = await ok<{ id: string; status: string; refund_url: string }>(
      'POST',
      `/payments/${mailed.payment_id}/refunds`,
      { amount: '0.1' },
    );
    expect(refund.status).toBe('awaiting_address');
    const link = await waitFor(
      'the refund link',
      () => mailsTo(payer).find((mail) => mail.raw.includes(refund.refund_url)),
      20_000,
    );
    expect(link.raw).toContain('Subject: Your refund of 0.1 ETH');
    // Each sent once: one receipt, one refund link.
    expect(mailsTo(payer)).toHaveLength(2);
  });
});
