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
} from '../../../../test/support/harness.ts';
import { queryRows } from '../../../db/client.ts';
import { decryptSecret } from '../../../lib/crypto.ts';
import { webhookEndpointSchema } from './schemas.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  t = await createTestApp();
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const create = (headers: Record<string, string>, payload: object) =>
  t.app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload });

describe('webhook endpoints', () => {
  it('registers with an API key, taking the key mode, and shows the secret once', async () => {
    const created = await create(apiKey(m.testKey), {
      url: 'http://localhost:4000/hooks',
      description: 'dev',
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^we_/),
      url: 'http://localhost:4000/hooks',
      is_test: true,
      enabled: true,
      description: 'dev',
      consecutive_failures: 0,
      tripped_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(body.signing_secret.slice(6), 'base64')).toHaveLength(32);

    const read = await t.app.inject({
      method: 'GET',
      url: `/v1/webhooks/${body.id}`,
      headers: apiKey(m.testKey),
    });
    expect(read.statusCode).toBe(200);
    expect(read.body).not.toContain(body.signing_secret);
    // The route's compiled serializer writes what the schema-checked path would.
    expect(read.body).toBe(schemaChecked(webhookEndpointSchema)(read.json()));
    expect(read.json().signing_secret).toBeUndefined();
    const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(m.testKey) });
    expect(list.body).not.toContain(body.signing_secret);

    // At rest the secret is sealed with AES-256-GCM under the master key.
    const rows = await queryRows<{ secret_sealed: string }>(
      t.database.db,
      sql`select secret_sealed from webhook_endpoints where id = ${body.id}`,
    );
    const sealed = rows[0]!.secret_sealed;
    expect(sealed).not.toContain(body.signing_secret.slice(6));
    expect(decryptSecret(t.config.masterKey, sealed)).toBe(body.signing_secret);
  });

  it('accepts a Bearer JWT, which must say is_test', async () => {
    const missing = await create(bearer(m.token), { url: 'https://example.com/hooks' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'parameter_missing', param: 'is_test' });
    const live = await create(bearer(m.token), { url: 'https://example.com/hooks', is_test: false });
    expect(live.statusCode).toBe(201);
    expect(live.json().is_test).toBe(false);
  });

  it('refuses an is_test that disagrees with the key', async () => {
    const wrong = await create(apiKey(m.testKey), { url: 'https://example.com/h', is_test: false });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatchObject({ code: 'mode_mismatch', param: 'is_test' });
    const wrongLive = await create(apiKey(m.liveKey), { url: 'https://example.com/h', is_test: true });
    expect(wrongLive.json().error.code).toBe('mode_mismatch');
  });

  it.each([
    ['not a url', 'parameter_invalid'],
    ['/relative/path', 'parameter_invalid'],
    ['ftp://example.com/x', 'parameter_invalid'],
    ['https://user:pass@example.com/x', 'parameter_invalid'],
    ['javascript:alert(1)', 'parameter_invalid'],
  ])('refuses the url %s', async (url, code) => {
    const response = await create(apiKey(m.testKey), { url });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code, param: 'url' });
  });

  it('requires https for live endpoints', async () => {
    const response = await create(apiKey(m.liveKey), { url: 'http://example.com/hooks' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
  });

  it('refuses missing url, wrong types and unknown fields', async () => {
    expect((await create(apiKey(m.testKey), {})).json().error).toMatchObject({
      code: 'parameter_missing',
      param: 'url',
    });
    expect((await create(apiKey(m.testKey), { url: 5 })).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'url',
    });
    expect(
      (await create(apiKey(m.testKey), { url: 'https://e.com', is_test: 'yes' })).json().error,
    ).toMatchObject({
      param: 'is_test',
    });
    expect(
      (await create(apiKey(m.testKey), { url: 'https://e.com', secret: 'x' })).json().error,
    ).toMatchObject({
      code: 'parameter_unknown',
      param: 'secret',
    });
  });

  it('updates, disables, rotates and deletes', async () => {
    const { id, signing_secret } = (await create(apiKey(m.testKey), { url: 'https://example.com/a' })).json();
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      headers: apiKey(m.testKey),
      payload: { url: 'https://example.com/b', enabled: false, description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ url: 'https://example.com/b', enabled: false, description: null });

    const rotated = await t.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${id}/rotate-secret`,
      headers: { ...apiKey(m.testKey), 'content-type': 'application/json' },
    });
    expect(rotated.statusCode).toBe(200);
    const rotation = rotated.json();
    expect(rotation.signing_secret).toMatch(/^whsec_/);
    expect(rotation.signing_secret).not.toBe(signing_secret);
    const hoursLeft = (Date.parse(rotation.previous_secret_expires_at) - Date.now()) / 3_600_000;
    expect(hoursLeft).toBeGreaterThan(23.9);
    const [row] = await queryRows<Record<string, string>>(
      t.database.db,
      sql`select * from webhook_endpoints where id = ${id}`,
    );
    const secrets = t.services.webhookEndpoints.signingSecrets({
      secretSealed: row!.secret_sealed!,
      previousSecretSealed: row!.previous_secret_sealed!,
      previousSecretExpiresAt: new Date(row!.previous_secret_expires_at!),
    });
    expect(secrets).toEqual([rotation.signing_secret, signing_secret]);

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/${id}`,
      headers: apiKey(m.testKey),
    });
    expect(deleted.statusCode).toBe(200);
    const gone = await t.app.inject({ method: 'GET', url: `/v1/webhooks/${id}`, headers: apiKey(m.testKey) });
    expect(gone.statusCode).toBe(404);
    const list = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(m.testKey) });
    expect(list.json().data.map((e: { id: string }) => e.id)).not.toContain(id);
  });

  it('keeps modes and merchants apart', async () => {
    const other = await createMerchant(t.app);
    const testEndpoint = (await create(apiKey(m.testKey), { url: 'https://example.com/test' })).json();
    const liveEndpoint = (await create(apiKey(m.liveKey), { url: 'https://example.com/live' })).json();

    const liveList = (
      await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(m.liveKey) })
    ).json();
    expect(liveList.data.every((e: { is_test: boolean }) => !e.is_test)).toBe(true);
    expect(liveList.data.map((e: { id: string }) => e.id)).toContain(liveEndpoint.id);

    for (const [key, id] of [
      [m.liveKey, testEndpoint.id],
      [m.testKey, liveEndpoint.id],
      [other.testKey, testEndpoint.id],
      [other.liveKey, liveEndpoint.id],
    ] as const) {
      for (const [method, url] of [
        ['GET', `/v1/webhooks/${id}`],
        ['PATCH', `/v1/webhooks/${id}`],
        ['DELETE', `/v1/webhooks/${id}`],
        ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ] as const) {
        const response = await t.app.inject({
          method,
          url,
          headers: apiKey(key),
          ...(method === 'PATCH' ? { payload: { enabled: false } } : {}),
        });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    const otherList = (
      await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: bearer(other.token) })
    ).json();
    expect(otherList.data).toEqual([]);

    // The dashboard sees both modes, and may filter.
    const all = (await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: bearer(m.token) })).json();
    const ids = all.data.map((e: { id: string }) => e.id);
    expect(ids).toContain(testEndpoint.id);
    expect(ids).toContain(liveEndpoint.id);
    const onlyLive = (
      await t.app.inject({ method: 'GET', url: '/v1/webhooks?is_test=false', headers: bearer(m.token) })
    ).json();
    expect(onlyLive.data.every((e: { is_test: boolean }) => !e.is_test)).toBe(true);
    const stillThere = await t.app.inject({
      method: 'GET',
      url: `/v1/webhooks/${testEndpoint.id}`,
      headers: bearer(m.token),
    });
    expect(stillThere.json().enabled).toBe(true);
  });

  it('needs authentication', async () => {
    const none = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: 'https://e.com' },
    });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('authentication_required');
  });
});
