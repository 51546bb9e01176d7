import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type TestApp,
} from '../../../test/support/harness.ts';
import { queryRows } from '../../db/client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('keypairs', () => {
  it('generates a pair with the seed shape, each key shown once', async () => {
    const m = await createMerchant(t.app);
    const created = await t.app.inject({ method: 'POST', url: '/v1/keypairs', headers: bearer(m.token) });
    expect(created.statusCode).toBe(201);
    const pair = created.json();
    expect(pair).toEqual({
      keypair_id: expect.stringMatching(/^kp_/),
      test: { full_key: expect.stringMatching(/^svc_test_[0-9a-z]{50}$/), is_test: true },
      live: { full_key: expect.stringMatching(/^svc_live_[0-9a-z]{50}$/), is_test: false },
      created_at: expect.any(String),
    });

    const list = await t.app.inject({ method: 'GET', url: '/v1/keypairs', headers: bearer(m.token) });
    const body = list.body;
    expect(body).not.toContain(pair.test.full_key);
    expect(body).not.toContain(pair.live.full_key);
    const listed = list.json().data.find((p: { keypair_id: string }) => p.keypair_id === pair.keypair_id);
    expect(listed).toMatchObject({
      revoked: false,
      revoked_at: null,
      test: {
        display_prefix: pair.test.full_key.slice(0, 13),
        last4: pair.test.full_key.slice(-4),
        is_test: true,
      },
      live: {
        display_prefix: pair.live.full_key.slice(0, 13),
        last4: pair.live.full_key.slice(-4),
        is_test: false,
      },
    });
  });

  it('keeps no full key in the database, only SHA-256 hashes', async () => {
    const m = await createMerchant(t.app);
    const rows = await queryRows<{ keypair_id: string; key_hash: string }>(
      t.database.db,
      sql`select * from api_keys`,
    );
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(m.testKey);
    expect(dump).not.toContain(m.liveKey);
    expect(dump).not.toContain(m.testKey.slice(9));
    const mine = rows.filter((r: { keypair_id: string }) => r.keypair_id === m.keypairId);
    expect(mine).toHaveLength(2);
    for (const row of mine) expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('revokes both keys at once, and the answer for a revoked key equals that for an unknown one', async () => {
    const m = await createMerchant(t.app);
    for (const key of [m.testKey, m.liveKey]) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(key) })).statusCode,
      ).toBe(200);
    }
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/v1/keypairs/${m.keypairId}/revoke`,
      headers: bearer(m.token),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ revoked: true, revoked_at: expect.any(String) });

    const answers = [];
    for (const key of [m.testKey, m.liveKey, `svc_test_${'0'.repeat(50)}`, 'svc_test_short', 'garbage']) {
      const response = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(key) });
      expect(response.statusCode).toBe(401);
      const { request_id: _ignored, ...error } = response.json().error;
      answers.push(error);
    }
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]).toMatchObject({ code: 'invalid_api_key' });

    const again = await t.app.inject({
      method: 'POST',
      url: `/v1/keypairs/${m.keypairId}/revoke`,
      headers: bearer(m.token),
    });
    expect(again.json().revoked_at).toBe(revoked.json().revoked_at);
  });

  it('is dashboard-only and merchant-scoped', async () => {
    const a = await createMerchant(t.app);
    const b = await createMerchant(t.app);
    const withKey = await t.app.inject({ method: 'POST', url: '/v1/keypairs', headers: apiKey(a.testKey) });
    expect(withKey.statusCode).toBe(401);
    expect(withKey.json().error.code).toBe('authentication_required');
    const noAuth = await t.app.inject({ method: 'GET', url: '/v1/keypairs' });
    expect(noAuth.statusCode).toBe(401);
    const otherMerchant = await t.app.inject({
      method: 'POST',
      url: `/v1/keypairs/${a.keypairId}/revoke`,
      headers: bearer(b.token),
    });
    expect(otherMerchant.statusCode).toBe(404);
    const stillWorks = await t.app.inject({ method: 'GET', url: '/v1/webhooks', headers: apiKey(a.testKey) });
    expect(stillWorks.statusCode).toBe(200);
    const listB = await t.app.inject({ method: 'GET', url: '/v1/keypairs', headers: bearer(b.token) });
    expect(listB.json().data.map((p: { keypair_id: string }) => p.keypair_id)).toEqual([b.keypairId]);
  });
});
