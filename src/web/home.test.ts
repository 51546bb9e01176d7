import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/harness.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /', () => {
  it('leads a person to the dashboard, the API reference and the first payment, under a strict CSP', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(page.headers['content-security-policy']).not.toContain('script-src');
    expect(page.body).toContain('href="/dashboard"');
    expect(page.body).toContain('href="/docs"');
    expect(page.body).toContain('A first payment');
  });

  it('answers a JSON client with the same links', async () => {
    const json = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ service: 'svc', links: { dashboard: '/dashboard', docs: '/docs' } });
  });
});
