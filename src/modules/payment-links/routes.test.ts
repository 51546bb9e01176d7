import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';

let t: TestApp;
let m: Merchant;
let other: Merchant;
beforeAll(async () => {
  t = await createTestApp({ env: { SVC_PAYMENT_LINK_RATE_LIMIT: '5' } });
  m = await createMerchant(t.app);
  other = await createMerchant(t.app);
});
afterAll(() => t.close());

const createLink = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/v1/payment-links', headers, payload });

const form = (id: string, body: string, ip = '203.0.113.1') =>
  t.app.inject({
    method: 'POST',
    url: `/l/${id}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body,
    remoteAddress: ip,
  });

describe('payment links', () => {
  it('are made with a key or a dashboard session that names the mode, with their terms checked', async () => {
    const fixed = await createLink(apiKey(m.testKey), {
      title: 'Coffee beans',
      amount: '12.50',
      currency: 'eur',
    });
    expect(fixed.statusCode, fixed.body).toBe(201);
    expect(fixed.json()).toMatchObject({
      id: expect.stringMatching(/^plink_/),
      url: `${t.config.publicUrl}/l/${fixed.json().id}`,
      is_test: true,
      amount: '12.5',
      currency: 'EUR',
      chain: null,
      active: true,
      totals: { payments: 0, paid: 0, paid_amount: '0' },
    });
    expect((await createLink(bearer(m.token), { title: 'x', currency: 'USD' })).json().error).toMatchObject({
      code: 'parameter_missing',
      param: 'is_test',
    });
    const session = await createLink(bearer(m.token), { title: 'Tip jar', currency: 'USD', is_test: true });
    expect(session.statusCode).toBe(201);
    expect((await createLink(apiKey(m.testKey), { title: 'x', currency: 'XYZW' })).json().error.param).toBe(
      'currency',
    );
    expect(
      (await createLink(apiKey(m.testKey), { title: 'x', currency: 'USD', chain: 'nope' })).json().error.code,
    ).toBe('unsupported_chain');
    // Another merchant, or the other mode's key, does not see it.
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/payment-links/${fixed.json().id}`,
          headers: apiKey(other.testKey),
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/payment-links/${fixed.json().id}`,
          headers: apiKey(m.liveKey),
        })
      ).statusCode,
    ).toBe(404);
  });

  it('show a public page; each visit that pays creates a payment with the link’s terms, and the link adds them up', async () => {
    const link = (
      await createLink(apiKey(m.testKey), {
        title: 'Workshop ticket',
        description: 'One seat, Saturday',
        amount: '40',
        currency: 'USD',
        chain: 'ethereum',
        locale: 'de',
        cancel_url: 'https://shop.example/tickets',
      })
    ).json();
    const page = await t.app.inject({ method: 'GET', url: `/l/${link.id}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<h1 id="status-title">Workshop ticket</h1>');
    expect(page.body).toContain('Weiter zur Zahlung');
    const paid = await form(link.id, '');
    expect(paid.statusCode).toBe(303);
    const paymentId = String(paid.headers.location).replace('/pay/', '');
    const payment = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${paymentId}`,
      headers: apiKey(m.testKey),
    });
    expect(payment.json()).toMatchObject({
      amount: '40',
      currency: 'USD',
      chain: 'ethereum',
      locale: 'de',
      cancel_url: 'https://shop.example/tickets',
      payment_link_id: link.id,
      is_test: true,
    });
    const json = await t.app.inject({
      method: 'POST',
      url: `/v1/payment-links/${link.id}/payments`,
      payload: {},
      remoteAddress: '203.0.113.2',
    });
    expect(json.statusCode, json.body).toBe(201);
    expect(json.json().checkout_url).toBe(`${t.config.publicUrl}/pay/${json.json().payment_id}`);
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/payments?payment_link_id=${link.id}`,
      headers: apiKey(m.testKey),
    });
    expect(listed.json().data).toHaveLength(2);
    const totals = await t.app.inject({
      method: 'GET',
      url: `/v1/payment-links/${link.id}`,
      headers: apiKey(m.testKey),
    });
    expect(totals.json().totals).toEqual({ payments: 2, paid: 0, paid_amount: '0' });
  });

  it('let the payer enter the amount when the link has none, and say so when it is missing or wrong', async () => {
    const link = (await createLink(apiKey(m.testKey), { title: 'Donation', currency: 'EUR' })).json();
    const page = await t.app.inject({
      method: 'GET',
      url: `/l/${link.id}`,
      headers: { 'accept-language': 'fr' },
    });
    expect(page.body).toContain('<label for="link-amount">Montant (EUR)</label>');
    const missing = await form(link.id, 'amount=', '203.0.113.3');
    expect(missing.statusCode).toBe(400);
    expect(missing.body).toContain('aria-invalid="true"');
    const wrong = await form(link.id, 'amount=12.345', '203.0.113.3');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('value="12.345"');
    const ok = await form(link.id, 'amount=7.50', '203.0.113.3');
    expect(ok.statusCode).toBe(303);
    const payment = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${String(ok.headers.location).replace('/pay/', '')}`,
      headers: apiKey(m.testKey),
    });
    expect(payment.json()).toMatchObject({ amount: '7.5', currency: 'EUR', chosen_by: 'payer' });
  });

  it("take the payer's email for their receipt, on the page and over the API, and refuse one that is not", async () => {
    const link = (await createLink(apiKey(m.testKey), { title: 'Tip', amount: '3', currency: 'EUR' })).json();
    const page = await t.app.inject({
      method: 'GET',
      url: `/l/${link.id}`,
      headers: { 'accept-language': 'de' },
    });
    expect(page.body).toContain('<label for="link-email">E-Mail für Ihre Quittung (optional)</label>');
    expect(page.body).toContain('name="customer_email" type="email" autocomplete="email"');
    const wrong = await form(link.id, 'customer_email=nobody', '203.0.113.4');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('aria-describedby="link-email-error"');
    expect(wrong.body).toContain('value="nobody"');
    const ok = await form(link.id, 'customer_email=payer%40example.com', '203.0.113.4');
    expect(ok.statusCode).toBe(303);
    const viaPage = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${String(ok.headers.location).replace('/pay/', '')}`,
      headers: apiKey(m.testKey),
    });
    expect(viaPage.json()).toMatchObject({ customer_email: 'payer@example.com', amount: '3' });
    const api = await t.app.inject({
      method: 'POST',
      url: `/v1/payment-links/${link.id}/payments`,
      payload: { customer_email: 'other@example.com' },
      remoteAddress: '203.0.113.5',
    });
    expect(api.statusCode, api.body).toBe(201);
    const viaApi = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${api.json().payment_id}`,
      headers: apiKey(m.testKey),
    });
    expect(viaApi.json()).toMatchObject({ customer_email: 'other@example.com' });
    const refused = await t.app.inject({
      method: 'POST',
      url: `/v1/payment-links/${link.id}/payments`,
      payload: { customer_email: 'not-an-email' },
      remoteAddress: '203.0.113.5',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.param).toBe('customer_email');
  });

  it('close when turned off, and limit the payments one client IP makes', async () => {
    const link = (
      await createLink(apiKey(m.testKey), { title: 'Old offer', amount: '1', currency: 'USD' })
    ).json();
    const off = await t.app.inject({
      method: 'PATCH',
      url: `/v1/payment-links/${link.id}`,
      headers: bearer(m.token),
      payload: { active: false },
    });
    expect(off.json().active).toBe(false);
    const page = await t.app.inject({ method: 'GET', url: `/l/${link.id}` });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('data-testid="link-closed"');
    expect((await form(link.id, '', '203.0.113.4')).statusCode).toBe(409);
    expect((await t.app.inject({ method: 'GET', url: '/l/plink_unknown' })).statusCode).toBe(404);
    const open = (
      await createLink(apiKey(m.testKey), { title: 'Busy', amount: '1', currency: 'USD' })
    ).json();
    const codes: number[] = [];
    for (let i = 0; i < 6; i += 1) codes.push((await form(open.id, '', '203.0.113.9')).statusCode);
    expect(codes.slice(0, 5)).toEqual([303, 303, 303, 303, 303]);
    expect(codes[5]).toBe(429);
  });
});
