import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testConfig } from '../../test/support/harness.ts';
import { buildApp } from '../app.ts';
import type { Database } from '../db/client.ts';
import { systemClock } from '../lib/clock.ts';
import { buildServices } from '../services.ts';

const indexHtml =
  '<!doctype html><html><body><div id="app"></div><script src="/dashboard/assets/app-1a2b.js"></script></body></html>';

describe('dashboard static files', () => {
  let database: Database;
  let built: FastifyInstance;
  let unbuilt: FastifyInstance;

  beforeAll(async () => {
    const dist = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
    mkdirSync(join(dist, 'assets'));
    writeFileSync(join(dist, 'index.html'), indexHtml);
    writeFileSync(join(dist, 'assets', 'app-1a2b.js'), 'console.info("app");');
    writeFileSync(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    // A file next to the build that must never be served.
    writeFileSync(join(dist, '..', 'secret-next-to-dist.txt'), 'CONTENT-OUTSIDE-THE-BUILD');

    database = await createTestDatabase();
    const config = testConfig();
    const services = buildServices({ config, database, clock: systemClock });
    built = await buildApp({ config, database, services, dashboardDir: dist });
    unbuilt = await buildApp({ config, database, services, dashboardDir: join(dist, 'missing') });
  });

  afterAll(async () => {
    await built.close();
    await unbuilt.close();
    await database.close();
  });

  it('serves the app at /dashboard with a strict same-origin policy', async () => {
    for (const url of ['/dashboard', '/dashboard/']) {
      const response = await built.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toBe(indexHtml);
      expect(response.headers['cache-control']).toBe('no-cache');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('answers every client-side route with the app, so a reload keeps the page', async () => {
    for (const url of [
      '/dashboard/payments',
      '/dashboard/payments/0193b1c2-0000-7000-8000-000000000000',
      '/dashboard/keys?x=1',
    ]) {
      const response = await built.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body).toBe(indexHtml);
    }
  });

  it('serves hashed assets for a year and other files without caching', async () => {
    const asset = await built.inject({ method: 'GET', url: '/dashboard/assets/app-1a2b.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.body).toBe('console.info("app");');

    const icon = await built.inject({ method: 'GET', url: '/dashboard/favicon.svg' });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing file and never serves files outside the build', async () => {
    const missing = await built.inject({ method: 'GET', url: '/dashboard/assets/nope.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      error: { code: 'route_not_found', request_id: expect.any(String) },
    });
    for (const url of [
      '/dashboard/..%2fsecret-next-to-dist.txt',
      '/dashboard/%2e%2e/secret-next-to-dist.txt',
      '/dashboard/assets/..%2f..%2fsecret-next-to-dist.txt',
      '/dashboard/%2fetc%2fpasswd.txt',
    ]) {
      const response = await built.inject({ method: 'GET', url });
      expect(response.body, url).not.toContain('CONTENT-OUTSIDE-THE-BUILD');
      expect(response.body, url).not.toContain('root:');
      expect([200, 404], url).toContain(response.statusCode);
    }
  });

  it('says plainly how to build the dashboard when the build is missing', async () => {
    const response = await unbuilt.inject({ method: 'GET', url: '/dashboard/payments' });
    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('npm run build:dashboard');
    // Its inline style is allowed by its hash, so the page is styled under a CSP without 'unsafe-inline'.
    const style = /<style>([^<]*)<\/style>/.exec(response.body)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    const policy = String(response.headers['content-security-policy']);
    expect(policy).toContain(`style-src 'sha256-${hash}'`);
    expect(policy).not.toContain('unsafe-inline');
  });

  it('leaves the API and its error shape alone', async () => {
    const response = await built.inject({ method: 'GET', url: '/v1/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ error: { code: 'route_not_found' } });
  });
});
