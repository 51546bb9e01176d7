import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKey, createMerchant, createTestApp, type TestApp } from '../../../../test/support/harness.ts';
import { createIsolatedDatabase } from '../../../../test/support/webhooks.ts';

let t: TestApp;
let drop: () => Promise<void>;
const listed = `ops-${randomBytes(4).toString('hex')}@shop.test`;
beforeAll(async () => {
  // A database of its own: "the first account" must be this file's first merchant.
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({
    database: isolated.database,
    env: {
      SVC_WEBHOOK_MAX_ENDPOINTS: '2',
      SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      SVC_OPERATOR_EMAILS: `${listed.toUpperCase()}, @ops.shop.test`,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await drop?.();
});

const create = (key: string, url: string) =>
  t.app.inject({ method: 'POST', url: '/v1/webhooks', headers: apiKey(key), payload: { url } });

describe('who may point a test endpoint at this host', () => {
  it('the first account, listed emails and listed domains may; anyone else gets private_target_not_allowed', async () => {
    const first = await createMerchant(t.app, `first-${randomBytes(4).toString('hex')}@elsewhere.test`);
    const byEmail = await createMerchant(t.app, listed);
    const byDomain = await createMerchant(t.app, `dev-${randomBytes(4).toString('hex')}@ops.shop.test`);
    const stranger = await createMerchant(t.app);
    for (const operator of [first, byEmail, byDomain]) {
      const created = await create(operator.testKey, 'http://127.0.0.1:4000/hooks');
      expect(created.statusCode, created.body).toBe(201);
    }
    expect((await t.services.operators.ids()).has(stranger.merchantId)).toBe(false);

    for (const url of ['http://127.0.0.1:4000/hooks', 'http://localhost:8080/', 'http://[::1]/']) {
      const refused = await create(stranger.testKey, url);
      expect(refused.statusCode, url).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'private_target_not_allowed', param: 'url' });
    }
    // Nor by changing a public endpoint's URL afterwards.
    const open = await create(stranger.testKey, 'http://93.184.216.34/hooks');
    expect(open.statusCode, open.body).toBe(201);
    const moved = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${open.json().id}`,
      headers: apiKey(stranger.testKey),
      payload: { url: 'http://127.0.0.1:4000/hooks' },
    });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().error.code).toBe('private_target_not_allowed');
    // Live endpoints stay public for everyone, operators included.
    const live = await create(first.liveKey, 'https://127.0.0.1/hooks');
    expect(live.json().error.code).toBe('parameter_invalid');
  });
});

describe('endpoints per merchant', () => {
  it('allows SVC_WEBHOOK_MAX_ENDPOINTS per mode, counting only endpoints not deleted', async () => {
    const m = await createMerchant(t.app);
    const ids: string[] = [];
    for (let index = 0; index < 2; index += 1) {
      const created = await create(m.testKey, `https://93.184.216.34/hooks/${index}`);
      expect(created.statusCode, created.body).toBe(201);
      ids.push(created.json().id);
    }
    const over = await create(m.testKey, 'https://93.184.216.34/hooks/2');
    expect(over.statusCode).toBe(400);
    expect(over.json().error).toMatchObject({ code: 'endpoint_limit_reached' });
    expect(over.json().error.message).toMatch(/at most 2 test webhook endpoints/);
    // The other mode has its own allowance.
    expect((await create(m.liveKey, 'https://93.184.216.34/live')).statusCode).toBe(201);
    const removed = await t.app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/${ids[0]}`,
      headers: apiKey(m.testKey),
    });
    expect(removed.statusCode).toBe(200);
    expect((await create(m.testKey, 'https://93.184.216.34/hooks/3')).statusCode).toBe(201);
  });
});
