import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';
import { themeCss } from './routes.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const patch = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'PATCH', url: '/v1/settings', headers, payload });

describe('checkout branding', () => {
  it('takes a name, an accent colour and a support contact from a dashboard session, checked', async () => {
    const bad = await patch(bearer(m.token), { accent_color: 'red' });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'accent_color' });
    const badUrl = await patch(bearer(m.token), { support_url: 'javascript:alert(1)' });
    expect(badUrl.json().error).toMatchObject({ code: 'parameter_invalid', param: 'support_url' });
    expect((await patch(apiKey(m.testKey), { brand_name: 'x' })).statusCode).toBe(401);
    const saved = await patch(bearer(m.token), {
      brand_name: 'Café <Nord>',
      accent_color: '#0E7490',
      support_email: 'help@shop.example',
      support_url: 'https://shop.example/help',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      brand_name: 'Café <Nord>',
      accent_color: '#0e7490',
      logo_url: null,
    });
  });

  it('stores a checked logo, serves it from this origin with its type and nosniff, and refuses SVG', async () => {
    const png = await QRCode.toBuffer('logo', { type: 'png', width: 64 });
    const put = (headers: Record<string, string>, body: Buffer, type: string) =>
      t.app.inject({
        method: 'PUT',
        url: '/v1/settings/logo',
        headers: { ...headers, 'content-type': type },
        payload: body,
      });
    const svg = await put(
      bearer(m.token),
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml',
    );
    expect(svg.json().error).toMatchObject({ code: 'parameter_invalid', param: 'logo' });
    expect((await put(apiKey(m.testKey), png, 'image/png')).statusCode).toBe(401);
    expect((await put(bearer(m.token), png, 'text/html')).statusCode).toBe(415);
    const saved = await put(bearer(m.token), png, 'image/png');
    expect(saved.statusCode, saved.body).toBe(200);
    const logoUrl = saved.json().logo_url as string;
    expect(logoUrl).toMatch(/^\/pay\/logos\/[0-9a-f]{64}$/);
    const served = await t.app.inject({ method: 'GET', url: logoUrl });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toContain('sandbox');
    expect(served.rawPayload.equals(png)).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: `/pay/logos/${'0'.repeat(64)}` })).statusCode).toBe(404);
  });

  it('shows the brand, the support contact, the accent stylesheet and the way back on the checkout', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.testKey),
      payload: {
        amount: '10',
        currency: 'USD',
        chain: 'ethereum',
        success_url: 'https://shop.example/thanks',
        cancel_url: 'https://shop.example/cart',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      success_url: 'https://shop.example/thanks',
      redirect_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
    });
    const id = created.json().payment_id as string;
    const view = (await t.app.inject({ method: 'GET', url: `/v1/payments/checkout/${id}` })).json();
    expect(view.merchant).toMatchObject({ name: 'Café <Nord>', accent_color: '#0e7490' });
    const page = await t.app.inject({ method: 'GET', url: `/pay/${id}` });
    expect(page.body).toContain('<p class="brand-name">Café &#60;Nord&#62;</p>');
    expect(page.body).toMatch(/<img class="brand-logo" src="\/pay\/logos\/[0-9a-f]{64}" alt=""/);
    expect(page.body).toContain('href="mailto:help@shop.example"');
    expect(page.body).toContain('<link rel="stylesheet" href="/pay/theme/0e7490.css">');
    expect(page.body).toContain('data-testid="cancel" href="https://shop.example/cart"');
    const theme = await t.app.inject({ method: 'GET', url: '/pay/theme/0e7490.css' });
    expect(theme.headers['content-type']).toContain('text/css');
    expect(theme.body).toBe(themeCss('0e7490'));
    expect((await t.app.inject({ method: 'GET', url: '/pay/theme/zzz.css' })).statusCode).toBe(404);
    // The receipt exists once the payment is paid; before, its address leads back to the payment.
    const early = await t.app.inject({ method: 'GET', url: `/pay/${id}/receipt?locale=de` });
    expect(early.statusCode).toBe(303);
    expect(early.headers.location).toBe(`/pay/${id}?locale=de`);
  });

  it('picks the text colour on an accent that contrasts more', () => {
    expect(themeCss('0e7490')).toContain('--accent-ink:#ffffff');
    expect(themeCss('fde047')).toContain('--accent-ink:#111827');
  });
});
