import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  manualClock,
  strongPassword,
  type TestApp,
  testMnemonic,
} from '../../../test/support/harness.ts';

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  // A live seed, so that live payments get as far as the payout-wallet check.
  // A node URL makes ethereum a connected live chain; nothing here talks to it (no watcher runs in these tests).
  t = await createTestApp({
    env: { SVC_MNEMONIC: testMnemonic, SVC_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:9' },
  });
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const evm = '0x52908400098527886E0F7030069857D2E4169EE7';
const btcMain = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';
const btcTest = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

const put = (headers: Record<string, string>, payload: unknown, query = '') =>
  t.app.inject({
    method: 'PUT',
    url: `/v1/settings/payout-wallets${query}`,
    headers,
    payload: payload as object,
  });
/** Payout wallets are set with a dashboard session whose password is fresh: the token of sign-up is. */
const putLive = (who: Merchant, payload: unknown) => put(bearer(who.token), payload, '?is_test=false');
const putTest = (who: Merchant, payload: unknown) => put(bearer(who.token), payload, '?is_test=true');
const get = (headers: Record<string, string>, query = '') =>
  t.app.inject({ method: 'GET', url: `/v1/settings/payout-wallets${query}`, headers });

describe('payout wallets', () => {
  it('sets and reads the wallets of the key mode, each mode apart', async () => {
    const live = await putLive(m, { ethereum: evm, bitcoin: btcMain });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toEqual({ bitcoin: btcMain, ethereum: evm });
    const test = await putTest(m, { bitcoin: btcTest });
    expect(test.statusCode, test.body).toBe(200);
    expect((await get(apiKey(m.liveKey))).json()).toEqual({ bitcoin: btcMain, ethereum: evm });
    expect((await get(apiKey(m.testKey))).json()).toEqual({ bitcoin: btcTest });
    // A dashboard token says which mode.
    expect((await get(bearer(m.token), '?is_test=false')).json()).toEqual({
      bitcoin: btcMain,
      ethereum: evm,
    });
    expect((await get(bearer(m.token), '?is_test=true')).json()).toEqual({ bitcoin: btcTest });
    const missing = await get(bearer(m.token));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'parameter_missing', param: 'is_test' });
    // A key cannot act on the other mode.
    const mismatch = await get(apiKey(m.testKey), '?is_test=false');
    expect(mismatch.json().error.code).toBe('mode_mismatch');
  });

  it('replaces the whole set: a chain left out loses its wallet', async () => {
    const other = await createMerchant(t.app);
    await putTest(other, { ethereum: evm, base: evm });
    const replaced = await put(bearer(other.token), { base: evm }, '?is_test=true');
    expect(replaced.json()).toEqual({ base: evm });
    expect((await get(apiKey(other.testKey))).json()).toEqual({ base: evm });
    // Another merchant sees none of it.
    expect((await get(apiKey(m.testKey))).json()).not.toHaveProperty('base');
  });

  it("checks each address against its chain's format for the mode, naming the chain", async () => {
    for (const [payload, isTest, param] of [
      [{ bitcoin: btcTest }, false, 'bitcoin'], // a testnet address is not a mainnet one
      [{ bitcoin: btcMain }, true, 'bitcoin'],
      [{ ethereum: '0x1234' }, false, 'ethereum'],
      [{ ethereum: '0x0000000000000000000000000000000000000000' }, false, 'ethereum'],
      [{ solana: evm }, false, 'solana'],
      [{ tron: 'not an address' }, true, 'tron'],
    ] as const) {
      const response = await (isTest ? putTest : putLive)(m, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'parameter_invalid', param });
    }
    const unknown = await putTest(m, { dogecoin: 'D8vFz4p1L37jdg9xpr2vMu2qJuAN2t5N6x' });
    expect(unknown.json().error).toMatchObject({ code: 'unsupported_chain', param: 'dogecoin' });
    // Nothing of a refused request is kept.
    expect((await get(apiKey(m.testKey))).json()).toEqual({ bitcoin: btcTest });
  });

  it('refuses a live payment on a chain without a live payout wallet, not a test one', async () => {
    const other = await createMerchant(t.app);
    const create = (key: string, chain: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: apiKey(key),
        payload: { amount: '0.01', currency: 'ETH', chain },
      });
    const refused = await create(other.liveKey, 'ethereum');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatchObject({ code: 'payout_wallet_missing', param: 'chain' });
    expect((await create(other.testKey, 'ethereum')).statusCode).toBe(201);
    // A test wallet does not count for live.
    await putTest(other, { ethereum: evm });
    expect((await create(other.liveKey, 'ethereum')).json().error.code).toBe('payout_wallet_missing');
    await putLive(other, { ethereum: evm });
    const live = await create(other.liveKey, 'ethereum');
    expect(live.statusCode, live.body).toBe(201);
    expect(live.json().is_test).toBe(false);
    // Only on that chain.
    expect((await create(other.liveKey, 'base')).json().error.code).toBe('payout_wallet_missing');
    // A chain with a live payout wallet but no node connected is refused too: nobody would see the payment.
    await putLive(other, {
      ethereum: evm,
      bitcoin: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    });
    const unwatched = await create(other.liveKey, 'bitcoin');
    expect(unwatched.statusCode).toBe(400);
    expect(unwatched.json().error).toMatchObject({ code: 'chain_unavailable', param: 'chain' });
  });
});

describe('who may change payout wallets', () => {
  it('refuses API keys with 403 forbidden, whatever their mode, and changes nothing', async () => {
    const other = await createMerchant(t.app);
    for (const key of [other.liveKey, other.testKey]) {
      const refused = await put(apiKey(key), { ethereum: evm });
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().error.code).toBe('forbidden');
    }
    expect((await get(apiKey(other.testKey))).json()).toEqual({});
    expect((await get(apiKey(other.liveKey))).json()).toEqual({});
  });

  it('refuses a session whose password is older than 10 minutes until it re-authenticates', async () => {
    const clock = manualClock(new Date());
    const later = await createTestApp({ database: t.database, clock });
    try {
      const other = await createMerchant(later.app);
      const putAt = (token: string) =>
        later.app.inject({
          method: 'PUT',
          url: '/v1/settings/payout-wallets?is_test=true',
          headers: bearer(token),
          payload: { ethereum: evm },
        });
      clock.advance(10 * 60_000 + 1000);
      const stale = await putAt(other.token);
      expect(stale.statusCode, stale.body).toBe(403);
      expect(stale.json().error.code).toBe('reauthentication_required');
      const reauth = (password: string, token = other.token) =>
        later.app.inject({
          method: 'POST',
          url: '/v1/auth/reauthenticate',
          headers: bearer(token),
          payload: { password },
        });
      const wrong = await reauth('not the right password');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json().error.code).toBe('invalid_credentials');
      const fresh = await reauth(strongPassword);
      expect(fresh.statusCode, fresh.body).toBe(200);
      const changed = await putAt(fresh.json().token);
      expect(changed.statusCode, changed.body).toBe(200);
      expect(changed.json()).toEqual({ ethereum: evm });
      // The fresh token is itself only fresh for 10 minutes.
      clock.advance(10 * 60_000 + 1000);
      expect((await putAt(fresh.json().token)).json().error.code).toBe('reauthentication_required');
      // Re-authentication needs a session: an API key cannot get one.
      const byKey = await later.app.inject({
        method: 'POST',
        url: '/v1/auth/reauthenticate',
        headers: apiKey(other.testKey),
        payload: { password: strongPassword },
      });
      expect(byKey.statusCode).toBe(401);
    } finally {
      await later.close();
    }
  });

  it('records every change (who, when, old → new, from where) and announces it as payout_wallet.updated', async () => {
    const other = await createMerchant(t.app);
    const endpoint = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: apiKey(other.testKey),
      payload: { url: 'https://example.com/hooks' },
    });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const evm2 = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';
    expect((await putTest(other, { ethereum: evm, base: evm })).statusCode).toBe(200);
    expect((await putTest(other, { ethereum: evm2, base: evm })).statusCode).toBe(200);
    expect((await putTest(other, { ethereum: evm2 })).statusCode).toBe(200);
    // The same set again changes nothing, so it records and announces nothing.
    expect((await putTest(other, { ethereum: evm2 })).statusCode).toBe(200);

    const changes = await t.app.inject({
      method: 'GET',
      url: '/v1/settings/payout-wallets/changes',
      headers: bearer(other.token),
    });
    expect(changes.statusCode, changes.body).toBe(200);
    const rows = changes.json().data as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.chain, row.old_address, row.new_address])).toEqual([
      ['base', evm, null],
      ['ethereum', evm, evm2],
      ['base', null, evm],
      ['ethereum', null, evm],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({ is_test: true, actor: other.email, ip: '127.0.0.1' });
      expect(row.id).toMatch(/^pwc_/);
      expect(Date.parse(row.created_at as string)).toBeGreaterThan(Date.now() - 60_000);
    }
    // API keys never read the trail.
    const byKey = await t.app.inject({
      method: 'GET',
      url: '/v1/settings/payout-wallets/changes',
      headers: apiKey(other.testKey),
    });
    expect(byKey.statusCode).toBe(401);

    const events = await t.app.inject({
      method: 'GET',
      url: '/v1/events?type=payout_wallet.updated',
      headers: apiKey(other.testKey),
    });
    expect(events.statusCode, events.body).toBe(200);
    const list = events.json().data as Array<{ id: string; payment_id: string | null; payload: unknown }>;
    expect(list).toHaveLength(3);
    expect(list[0]?.payment_id).toBeNull();
    expect(list[0]?.payload).toEqual({
      event: 'payout_wallet.updated',
      is_test: true,
      changes: [{ chain: 'base', old_address: evm, new_address: null }],
      changed_by: other.email,
      timestamp: expect.any(String),
    });
    // One delivery of each to the merchant's test endpoint, written with the event.
    const deliveries = await t.app.inject({
      method: 'GET',
      url: `/v1/webhooks/${endpoint.json().id}/deliveries`,
      headers: apiKey(other.testKey),
    });
    const delivered = deliveries.json().data as Array<{ event_id: string; event_type: string }>;
    expect(
      delivered
        .filter((d) => d.event_type === 'payout_wallet.updated')
        .map((d) => d.event_id)
        .sort(),
    ).toEqual(list.map((e) => e.id).sort());
  });
});

describe('merchant settings', () => {
  it('defaults to a 0.1 % underpayment tolerance (what wallets round off), exact overpayment and 30 minutes', async () => {
    const other = await createMerchant(t.app);
    const response = await t.app.inject({
      method: 'GET',
      url: '/v1/settings',
      headers: apiKey(other.testKey),
    });
    expect(response.json()).toEqual({
      underpayment_tolerance_percent: '0.1',
      underpayment_tolerance_amount: '0',
      overpayment_tolerance_percent: '0',
      overpayment_tolerance_amount: '0',
      default_expires_in: 1800,
      auto_refund_overpaid: false,
      updated_at: null,
      brand_name: null,
      accent_color: null,
      support_email: null,
      support_url: null,
      logo_url: null,
      checkout_options: null,
    });
  });

  it('changes with a dashboard token only, keeps what is not sent, and validates', async () => {
    const other = await createMerchant(t.app);
    const patch = (headers: Record<string, string>, payload: object) =>
      t.app.inject({ method: 'PATCH', url: '/v1/settings', headers, payload });
    expect((await patch(apiKey(other.testKey), { default_expires_in: 600 })).statusCode).toBe(401);
    const first = await patch(bearer(other.token), {
      underpayment_tolerance_percent: '0.50',
      default_expires_in: 600,
    });
    expect(first.statusCode, first.body).toBe(200);
    const second = await patch(bearer(other.token), { overpayment_tolerance_amount: '1.25' });
    expect(second.json()).toMatchObject({
      underpayment_tolerance_percent: '0.5',
      overpayment_tolerance_amount: '1.25',
      default_expires_in: 600,
      updated_at: expect.any(String),
    });
    for (const [payload, param] of [
      [{ underpayment_tolerance_percent: '51' }, 'underpayment_tolerance_percent'],
      [{ overpayment_tolerance_percent: '-1' }, 'overpayment_tolerance_percent'],
      [{ underpayment_tolerance_amount: '1e3' }, 'underpayment_tolerance_amount'],
      [{ default_expires_in: 59 }, 'default_expires_in'],
      [{ default_expires_in: 604_801 }, 'default_expires_in'],
    ] as const) {
      const response = await patch(bearer(other.token), payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'parameter_invalid', param });
    }
    const unknown = await patch(bearer(other.token), { tolerance: '1' });
    expect(unknown.statusCode).toBe(400);

    // New payments without expires_in take the default window.
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(other.testKey),
      payload: { amount: '1', currency: 'USD', chain: 'ethereum' },
    });
    const p = created.json();
    expect(Date.parse(p.expires_at) - Date.parse(p.created_at)).toBe(600_000);
  });
});

describe('simulate', () => {
  it('is for test payments only and checks its input', async () => {
    const wallet = await putLive(m, { ethereum: evm, bitcoin: btcMain });
    expect(wallet.statusCode).toBe(200);
    const live = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.liveKey),
      payload: { amount: '0.01', currency: 'ETH', chain: 'ethereum' },
    });
    expect(live.statusCode, live.body).toBe(201);
    const simulate = (id: string, headers: Record<string, string>, payload: object) =>
      t.app.inject({ method: 'POST', url: `/v1/payments/${id}/simulate`, headers, payload });
    for (const headers of [apiKey(m.liveKey), bearer(m.token)]) {
      const refused = await simulate(live.json().payment_id, headers, { outcome: 'paid' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error).toMatchObject({ code: 'not_test_mode', param: 'id' });
    }
    // The test key does not even see the live payment.
    expect((await simulate(live.json().payment_id, apiKey(m.testKey), { outcome: 'paid' })).statusCode).toBe(
      404,
    );

    const test = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(m.testKey),
      payload: { amount: '0.01', currency: 'ETH', chain: 'ethereum' },
    });
    const id = test.json().payment_id;
    const bad = await simulate(id, apiKey(m.testKey), {
      outcome: 'paid',
      amount_native: '0.0000000000000000001',
    });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'amount_native' });
    expect((await simulate(id, apiKey(m.testKey), { outcome: 'lost' })).statusCode).toBe(400);
    const sent = await simulate(id, bearer(m.token), { outcome: 'underpaid' });
    expect(sent.statusCode, sent.body).toBe(202);
    expect(sent.json()).toMatchObject({
      outcome: 'underpaid',
      // Half of what counts as paid: 0.01 ETH less the default 0.1 % tolerance, halved.
      deposit: { address: test.json().address, asset: 'ETH', amount_native: '0.004995' },
      payment: { payment_id: id },
    });
    expect(sent.json().deposit.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    const exact = await simulate(id, apiKey(m.testKey), { outcome: 'overpaid', amount_native: '0.02' });
    expect(exact.json().deposit.amount_native).toBe('0.02');
    const ended = await simulate(id, apiKey(m.testKey), { outcome: 'expired' });
    expect(ended.statusCode).toBe(202);
    expect(ended.json()).toMatchObject({ outcome: 'expired', deposit: null, payment: { status: 'expired' } });
    const again = await simulate(id, apiKey(m.testKey), { outcome: 'expired' });
    expect(again.json().error.code).toBe('invalid_state');
  });
});

describe('OpenAPI', () => {
  it('documents settings, payout wallets, simulate and the payment detail with deposits and events', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/settings',
        '/settings/payout-wallets',
        '/payments/{id}/simulate',
        '/payments/{id}',
      ]),
    );
    expect(Object.keys(doc.paths['/settings'])).toEqual(expect.arrayContaining(['get', 'patch']));
    expect(Object.keys(doc.paths['/settings/payout-wallets'])).toEqual(
      expect.arrayContaining(['get', 'put']),
    );
    const detail = JSON.stringify(doc.paths['/payments/{id}'].get.responses['200']);
    expect(detail).toContain('PaymentDetail');
    expect(Object.keys(doc.components.schemas.PaymentDetail.properties)).toEqual(
      expect.arrayContaining(['deposits', 'events', 'forwarded_at', 'forward_tx_hash', 'forward_fee_native']),
    );
  });
});
