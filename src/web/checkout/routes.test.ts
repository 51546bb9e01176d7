import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
  testMnemonic,
} from '../../../test/support/harness.ts';
import { checkoutCsp } from './routes.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  // A live seed, so that a live payment can be created for the not_test_mode check.
  // A node URL makes ethereum a connected live chain; no watcher runs here, so nothing dials it.
  t = await createTestApp({
    env: { SVC_MNEMONIC: testMnemonic, SVC_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:9' },
  });
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const orderId = 'ORDER-secret-7f3a';
const metadataValue = 'customer-email@merchant.example';

async function createPayment(key: string, extra: object = {}) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/payments',
    headers: apiKey(key),
    payload: {
      amount: '25.00',
      currency: 'USD',
      chain: 'ethereum',
      order_id: orderId,
      metadata: { email: metadataValue },
      redirect_url: 'https://shop.example/thanks?order=1&x=<y>',
      ...extra,
    },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as {
    payment_id: string;
    address: string;
    asset: string;
    expected_amount_native: string;
    payment_uri: string;
  };
}

const page = (id: string) => t.app.inject({ method: 'GET', url: `/pay/${id}` });

function assetPaths(html: string): string[] {
  return [...html.matchAll(/(?:href|src)="(\/pay\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
}

describe('GET /pay/{payment_id}', () => {
  it('renders the checkout as HTML with a strict CSP, the amount, the address and no merchant data', async () => {
    const p = await createPayment(m.testKey);
    const response = await page(p.payment_id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(checkoutCsp);
    expect(checkoutCsp).toContain("default-src 'none'");
    expect(checkoutCsp).toContain("script-src 'self'");
    expect(checkoutCsp).not.toContain('unsafe-inline');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    const html = response.body;
    expect(html).toContain(p.address);
    expect(html).toContain(p.expected_amount_native);
    expect(html).toContain(
      'Send only <strong>ETH</strong> on <strong>Ethereum Sepolia test network</strong>',
    );
    expect(html).toContain('<svg class="qr-code" role="img"');
    expect(html).toContain('Test mode');
    // No merchant data: not the order id, not the metadata, not the merchant.
    expect(html).not.toContain(orderId);
    expect(html).not.toContain(metadataValue);
    expect(html).not.toContain(m.merchantId);
    expect(html).not.toContain(m.email);
    // The redirect is not offered before completion.
    expect(html).not.toContain('shop.example');
    // No inline script or style (the CSP would block them): only our own files.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(html).not.toMatch(/<style|\sstyle="|\son[a-z]+="/);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it('serves its own CSS and JS, content-hashed and cached, and stays under 50 KB with them', async () => {
    const p = await createPayment(m.testKey);
    const response = await page(p.payment_id);
    const paths = assetPaths(response.body);
    expect(paths).toHaveLength(2);
    let total = Buffer.byteLength(response.body);
    for (const path of paths) {
      const asset = await t.app.inject({ method: 'GET', url: path });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toContain('immutable');
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      total += asset.rawPayload.length;
    }
    expect(total).toBeLessThan(50 * 1024);
    expect(
      (await t.app.inject({ method: 'GET', url: '/pay/assets/checkout.000000000000.js' })).statusCode,
    ).toBe(404);
  });

  it('answers a friendly 404 page for an unknown id and a 400 page for a malformed one', async () => {
    const unknown = await page('01940000-0000-7000-8000-00000000dead');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(unknown.headers['content-security-policy']).toBe(checkoutCsp);
    expect(unknown.body).toContain('Payment not found');
    for (const bad of ['not-a-uuid', '%3Cscript%3Ealert(1)%3C%2Fscript%3E', '12345']) {
      const malformed = await page(bad);
      expect(malformed.statusCode).toBe(400);
      expect(malformed.body).toContain('This payment link is not valid');
      expect(malformed.body).not.toContain('<script>alert');
    }
  });

  it('accepts the id in upper case', async () => {
    const p = await createPayment(m.testKey);
    const response = await page(p.payment_id.toUpperCase());
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(p.address);
  });

  it('shows the expired page after the window ends, with no QR and no address to pay', async () => {
    const p = await createPayment(m.testKey);
    const simulated = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/checkout/${p.payment_id}/simulate`,
      payload: { outcome: 'expired' },
    });
    expect(simulated.statusCode, simulated.body).toBe(202);
    const html = (await page(p.payment_id)).body;
    expect(html).toContain('data-status="expired"');
    expect(html).toContain('This payment has expired');
    expect(html).not.toContain('class="qr-code"');
    expect(html).not.toContain('http-equiv="refresh"');
    expect(html).not.toContain('name="outcome"');
  });
});

describe('POST /v1/payments/checkout/{payment_id}/simulate', () => {
  it('simulates a test payment without a key and answers with the public view only', async () => {
    const p = await createPayment(m.testKey);
    const response = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/checkout/${p.payment_id}/simulate`,
      payload: { outcome: 'paid' },
    });
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json();
    expect(body).toMatchObject({
      outcome: 'paid',
      deposit: { address: p.address, asset: p.asset, amount_native: p.expected_amount_native },
      checkout: { payment_id: p.payment_id, is_test: true },
    });
    expect(response.body).not.toContain(orderId);
    expect(response.body).not.toContain(metadataValue);
    expect(body.checkout).not.toHaveProperty('order_id');
    expect(body.checkout).not.toHaveProperty('metadata');
  });

  it('refuses a live payment with not_test_mode, an unknown one with 404, and bad input with 400', async () => {
    const wallet = await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=false',
      headers: bearer(m.token),
      payload: { ethereum: '0x52908400098527886E0F7030069857D2E4169EE7' },
    });
    expect(wallet.statusCode, wallet.body).toBe(200);
    const live = await createPayment(m.liveKey, { amount: '0.01', currency: 'ETH' });
    const simulate = (id: string, payload: object) =>
      t.app.inject({ method: 'POST', url: `/v1/payments/checkout/${id}/simulate`, payload });
    const refused = await simulate(live.payment_id, { outcome: 'paid' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'not_test_mode', param: 'payment_id' });
    // The live page has no test banner.
    const livePage = (await page(live.payment_id)).body;
    expect(livePage).not.toContain('Test mode');
    expect(livePage).not.toContain('name="outcome"');
    expect(livePage).toContain('on <strong>Ethereum Mainnet</strong>');

    expect((await simulate('01940000-0000-7000-8000-00000000dead', { outcome: 'paid' })).statusCode).toBe(
      404,
    );
    expect((await simulate('nope', { outcome: 'paid' })).statusCode).toBe(400);
    const test = await createPayment(m.testKey);
    expect((await simulate(test.payment_id, { outcome: 'refund' })).statusCode).toBe(400);
    // The keyed variant's amount_native is not offered here.
    const extra = await simulate(test.payment_id, { outcome: 'paid', amount_native: '1' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error.param).toBe('amount_native');
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const operation = doc.paths?.['/payments/checkout/{payment_id}/simulate']?.post;
    expect(operation?.tags).toEqual(['Checkout']);
    expect(operation?.security).toEqual([]);
  });
});

describe('POST /pay/{payment_id}/simulate (the test banner without JavaScript)', () => {
  it('simulates from a form and redirects back to the page', async () => {
    const p = await createPayment(m.testKey);
    const response = await t.app.inject({
      method: 'POST',
      url: `/pay/${p.payment_id}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=expired',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/pay/${p.payment_id}`);
    expect((await page(p.payment_id)).body).toContain('data-status="expired"');
    // Expiring it again is refused in words on the page.
    const again = await t.app.inject({
      method: 'POST',
      url: `/pay/${p.payment_id}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=expired',
    });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('only an open payment');
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/pay/${p.payment_id}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=<b>',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).not.toContain('<b>');
  });
});

describe('the public simulate: one simulated payer per checkout, rate limited', () => {
  let limited: TestApp;
  let merchant: Merchant;
  beforeAll(async () => {
    limited = await createTestApp({ env: { SVC_CHECKOUT_SIMULATE_RATE_LIMIT: '3' } });
    merchant = await createMerchant(limited.app);
  });
  afterAll(() => limited.close());

  async function testPayment(): Promise<string> {
    const created = await limited.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(merchant.testKey),
      payload: { amount: '25.00', currency: 'USD', chain: 'ethereum' },
    });
    expect(created.statusCode, created.body).toBe(201);
    return (created.json() as { payment_id: string }).payment_id;
  }
  const simulate = (id: string, outcome: string, remoteAddress: string) =>
    limited.app.inject({
      method: 'POST',
      url: `/v1/payments/checkout/${id}/simulate`,
      payload: { outcome },
      remoteAddress,
    });

  it('simulates a payment once; a second attempt, concurrent or later, is refused with 409', async () => {
    const id = await testPayment();
    const answers = await Promise.all([
      simulate(id, 'paid', '10.0.0.1'),
      simulate(id, 'overpaid', '10.0.0.2'),
    ]);
    // Exactly one simulated payer (one deposit sent); the other is refused.
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 409]);
    const refused = answers.find((answer) => answer.statusCode === 409);
    expect(refused?.json().error).toMatchObject({ code: 'checkout_already_simulated', param: 'payment_id' });
    // The form behind the banner is refused in words on the page, with the same status.
    const form = await limited.app.inject({
      method: 'POST',
      url: `/pay/${id}/simulate`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'outcome=paid',
      remoteAddress: '10.0.0.4',
    });
    expect(form.statusCode).toBe(409);
    expect(form.body).toContain('already simulated');
    // The merchant's keyed simulate keeps its behaviour: as many as it likes.
    for (const outcome of ['underpaid', 'underpaid']) {
      const keyed = await limited.app.inject({
        method: 'POST',
        url: `/v1/payments/${id}/simulate`,
        headers: apiKey(merchant.testKey),
        payload: { outcome },
      });
      expect(keyed.statusCode, keyed.body).toBe(202);
    }
  });

  it('a refused request (live, bad state) does not use the one simulation up', async () => {
    const id = await testPayment();
    const keyedExpire = await limited.app.inject({
      method: 'POST',
      url: `/v1/payments/${id}/simulate`,
      headers: apiKey(merchant.testKey),
      payload: { outcome: 'expired' },
    });
    expect(keyedExpire.statusCode, keyedExpire.body).toBe(202);
    const refused = await simulate(id, 'expired', '10.0.1.1');
    expect(refused.json().error.code).toBe('invalid_state');
  });

  it('limits simulations per IP and per payment, with 429 and Retry-After', async () => {
    // Per IP: three a minute from one address, whatever the payment.
    const ids = await Promise.all([1, 2, 3, 4].map(() => testPayment()));
    const fromOne = [];
    for (const id of ids) fromOne.push(await simulate(id, 'paid', '10.0.2.1'));
    expect(fromOne.map((answer) => answer.statusCode)).toEqual([202, 202, 202, 429]);
    expect(fromOne[3]?.json().error.code).toBe('rate_limited');
    expect(fromOne[3]?.headers['retry-after']).toBeDefined();

    // Per payment: three a minute at one payment, from however many addresses (the later ones 409 first, then 429).
    const target = await testPayment();
    const statuses = [];
    for (const ip of ['10.0.3.1', '10.0.3.2', '10.0.3.3', '10.0.3.4'])
      statuses.push((await simulate(target, 'paid', ip)).statusCode);
    expect(statuses).toEqual([202, 409, 409, 429]);
  });
});
