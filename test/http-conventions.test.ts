import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/database.ts';
import type { EmbeddedClient } from '../src/db/engine-thread.ts';
import { apiKey, createMerchant, createTestApp, type Merchant, type TestApp } from './support/harness.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

function expectErrorShape(body: { error: Record<string, unknown> }, code: string) {
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.request_id).toMatch(/^req_/);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+|stack/);
}

describe('HTTP conventions', () => {
  it('answers unknown routes with the error shape', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/v1/nope' });
    expect(response.statusCode).toBe(404);
    expectErrorShape(response.json(), 'route_not_found');
    expect(response.headers['x-request-id']).toBe(response.json().error.request_id);
  });

  it('answers malformed JSON with invalid_json', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...apiKey(m.testKey), 'content-type': 'application/json' },
      payload: '{"url": ',
    });
    expect(response.statusCode).toBe(400);
    expectErrorShape(response.json(), 'invalid_json');
  });

  it('answers bodies over 64 KB with payload_too_large', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...apiKey(m.testKey), 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'https://e.com', description: 'x'.repeat(70_000) }),
    });
    expect(response.statusCode).toBe(413);
    expectErrorShape(response.json(), 'payload_too_large');
  });

  it('refuses NUL characters and lone surrogates anywhere with parameter_invalid, before any query', async () => {
    const cases = [
      {
        method: 'POST' as const,
        url: '/v1/webhooks',
        payload: { url: 'https://e.com/h', description: 'a\u0000b' },
        param: 'description',
      },
      {
        method: 'POST' as const,
        url: '/v1/webhooks',
        payload: { url: 'https://e.com/\ud800' },
        param: 'url',
      },
      {
        method: 'POST' as const,
        url: '/v1/webhooks',
        payload: { url: 'https://e.com/h', '\u0000': 1 },
        param: '\ufffd',
      },
      {
        method: 'POST' as const,
        url: '/v1/webhooks',
        payload: { url: 'https://e.com/h', nested: { deep: ['fine', 'a\udc00'] } },
        param: 'nested.deep.1',
      },
      { method: 'GET' as const, url: '/v1/webhooks/%00', param: 'id' },
      { method: 'GET' as const, url: '/v1/payments?order_id=a%00', param: 'order_id' },
      { method: 'GET' as const, url: '/v1/events?starting_after=%00', param: 'starting_after' },
    ];
    for (const { param, ...request } of cases) {
      const response = await t.app.inject({ ...request, headers: apiKey(m.testKey) });
      expect(response.statusCode, request.url).toBe(400);
      expectErrorShape(response.json(), 'parameter_invalid');
      expect(response.json().error.param).toBe(param);
    }
  });

  it('answers malformed URLs and over-long path segments in the error shape', async () => {
    const bad = await t.app.inject({
      method: 'GET',
      url: '/v1/payments/%E0%A4%A',
      headers: apiKey(m.testKey),
    });
    expect(bad.statusCode).toBe(400);
    expectErrorShape(bad.json(), 'invalid_request');
    expect(bad.headers['x-request-id']).toBe(bad.json().error.request_id);
    const long = await t.app.inject({ method: 'GET', url: `/v1/payments/${'x'.repeat(300)}` });
    expect(long.statusCode).toBe(414);
    expectErrorShape(long.json(), 'uri_too_long');
  });

  it('answers what node refuses before Fastify (oversized headers, bad HTTP) in the error shape', async () => {
    const served = await createTestApp({ database: t.database });
    await served.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = served.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = httpRequest(
        { port, host: '127.0.0.1', path: '/v1/chains', headers: { 'x-big': 'y'.repeat(20_000) } },
        (incoming) => {
          let body = '';
          incoming.on('data', (chunk) => {
            body += chunk;
          });
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
    await served.close();
    expect(answer.status).toBe(431);
    expectErrorShape(JSON.parse(answer.body), 'headers_too_large');
  });

  it('answers other content types with unsupported_media_type', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...apiKey(m.testKey), 'content-type': 'text/plain' },
      payload: 'url=https://e.com',
    });
    expect(response.statusCode).toBe(415);
    expectErrorShape(response.json(), 'unsupported_media_type');
  });

  it('answers a JSON array or scalar body with a clear 400', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: { ...apiKey(m.testKey), 'content-type': 'application/json' },
      payload: '[1,2]',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.request_id).toMatch(/^req_/);
  });

  it('puts a request id on every response, echoing a sane client one', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.headers['x-request-id']).toMatch(/^req_/);
    const echoed = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'client-id-12345' },
    });
    expect(echoed.headers['x-request-id']).toBe('client-id-12345');
    const hostile = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': '<script>' },
    });
    expect(hostile.headers['x-request-id']).toMatch(/^req_/);
  });

  it('reports health and readiness', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json().status).toBe('ready');
  });

  it("takes the embedded engine's answer of the last second as the readiness database check", async () => {
    // A database whose queries all fail, on an engine that says when it last answered.
    let answeredAt: number | undefined;
    const unreachable: Database = {
      ...t.database,
      db: new Proxy(t.database.db, {
        get: (target, property) =>
          property === 'execute'
            ? () => Promise.reject(new Error('connection lost'))
            : Reflect.get(target, property, target),
      }),
      embedded: { lastAnsweredAt: () => answeredAt } as unknown as EmbeddedClient,
    };
    const probe = await createTestApp({ database: unreachable });
    try {
      const readiness = async () => {
        const answer = await probe.app.inject({ method: 'GET', url: '/readyz' });
        return { status: answer.statusCode, problems: answer.json().problems };
      };
      expect(await readiness()).toEqual({ status: 503, problems: ['database unreachable'] });
      answeredAt = performance.now() - 5000;
      expect(await readiness()).toEqual({ status: 503, problems: ['database unreachable'] });
      answeredAt = performance.now();
      expect(await readiness()).toEqual({ status: 200, problems: [] });
    } finally {
      await probe.close();
    }
  });

  it('serves an OpenAPI 3.1 document generated from the schemas, and /docs', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/webhooks', '/webhooks/{id}', '/keypairs', '/auth/signup']),
    );
    expect(doc.servers[0].url).toMatch(/\/v1$/);
    const body = doc.paths['/webhooks'].post.requestBody.content['application/json'].schema;
    expect(body.properties.url.type).toBe('string');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ in: 'header', name: 'x-api-key' });
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toContain('text/html');
    expect(docs.body).toContain('swagger-ui-bundle.js');
  });

  it('serves Swagger UI under /docs from an app built on first use, with the same document', async () => {
    const [docsJson, spec] = await Promise.all([
      t.app.inject({ method: 'GET', url: '/docs/json' }),
      t.app.inject({ method: 'GET', url: '/v1/openapi.json' }),
    ]);
    expect(docsJson.statusCode).toBe(200);
    expect(docsJson.json()).toEqual(spec.json());
    const script = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');
    expect(Number(script.headers['content-length'])).toBe(script.rawPayload.length);
    expect(script.headers['x-request-id']).toMatch(/^req_/);
    const head = await t.app.inject({ method: 'HEAD', url: '/docs/static/swagger-ui.css' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toContain('text/css');
    const missing = await t.app.inject({ method: 'GET', url: '/docs/static/nothing-here.js' });
    expect(missing.statusCode).toBe(404);
    expectErrorShape(missing.json(), 'route_not_found');
  });

  it('sends security headers on every answer, with a CSP fit for each page', async () => {
    const urls = [
      '/healthz',
      '/v1/openapi.json',
      '/v1/nope',
      '/v1/chains',
      '/docs/',
      '/docs/static/index.css',
      '/pay/x',
    ];
    for (const url of [...urls, '/v1/payments/%E0%A4%A']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
      expect(response.headers['content-security-policy'], url).toBeTruthy();
    }
    for (const url of urls) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.headers['strict-transport-security'], url).toMatch(/max-age=\d+/);
      expect(response.headers['x-frame-options'], url).toBe('DENY');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
    const api = await t.app.inject({ method: 'GET', url: '/v1/chains' });
    expect(api.headers['content-security-policy']).toContain("default-src 'none'");
    const docs = await t.app.inject({ method: 'GET', url: '/docs/' });
    const docsPolicy = String(docs.headers['content-security-policy']);
    expect(docsPolicy).toContain("script-src 'self'");
    expect(docsPolicy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(docsPolicy).toContain("frame-ancestors 'none'");
    const page = await t.app.inject({ method: 'GET', url: '/pay/x' });
    expect(String(page.headers['content-security-policy'])).not.toContain('unsafe-inline');
  });

  it('rate-limits per client IP and per key with 429 and Retry-After', async () => {
    const limited = await createTestApp({
      database: t.database,
      env: { SVC_RATE_LIMIT_PER_IP: '3', SVC_RATE_LIMIT_PER_KEY: '2' },
    });
    const merchant = await createMerchant(t.app);
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await limited.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(merchant.testKey) }))
          .statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 429]);
    const byIp = await limited.app.inject({
      method: 'GET',
      url: '/v1/webhooks',
      headers: apiKey(merchant.liveKey),
    });
    expect(byIp.statusCode).toBe(429);
    expect(Number(byIp.headers['retry-after'])).toBeGreaterThan(0);
    expectErrorShape(byIp.json(), 'rate_limited');
    const otherIp = await limited.app.inject({
      method: 'GET',
      url: '/v1/webhooks',
      headers: apiKey(merchant.liveKey),
      remoteAddress: '10.0.0.9',
    });
    expect(otherIp.statusCode).toBe(200);
    await limited.close();
  });
});
