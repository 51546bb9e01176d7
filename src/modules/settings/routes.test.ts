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
const get = (headers: Record<string, string>, query = '') =>
  t.app.inject({ method: 'GET', url: `/v1/settings/payout-wallets${query}`, headers });

describe('payout wallets', () => {
  it('sets and reads the wallets of the key mode, each mode apart', async () => {
    const live = await put(apiKey(m.liveKey), { ethereum: evm, bitcoin: btcMain });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toEqual({ bitcoin: btcMain, ethereum: evm });
    const test = await put(apiKey(m.testKey), { bitcoin: btcTest });
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
    await put(apiKey(other.testKey), { ethereum: evm, base: evm });
    const replaced = await put(bearer(other.token), { base: evm }, '?is_test=true');
    expect(replaced.json()).toEqual({ base: evm });
    expect((await get(apiKey(other.testKey))).json()).toEqual({ base: evm });
    // Another merchant sees none of it.
    expect((await get(apiKey(m.testKey))).json()).not.toHaveProperty('base');
  });

  it("checks each address against its chain's format for the mode, naming the chain", async () => {
    for (const [payload, key, param] of [
      [{ bitcoin: btcTest }, m.liveKey, 'bitcoin'], // a testnet address is not a mainnet one
      [{ bitcoin: btcMain }, m.testKey, 'bitcoin'],
      [{ ethereum: '0x1234' }, m.liveKey, 'ethereum'],
      [{ ethereum: '0x0000000000000000000000000000000000000000' }, m.liveKey, 'ethereum'],
      [{ solana: evm }, m.liveKey, 'solana'],
      [{ tron: 'not an address' }, m.testKey, 'tron'],
    ] as const) {
      const response = await put(apiKey(key), payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'parameter_invalid', param });
    }
    const unknown = await put(apiKey(m.testKey), { dogecoin: 'D8vFz4p1L37jdg9xpr2vMu2qJuAN2t5N6x' });
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
    await put(apiKey(other.testKey), { ethereum: evm });
    expect((await create(other.liveKey, 'ethereum')).json().error.code).toBe('payout_wallet_missing');
    await put(apiKey(other.liveKey), { ethereum: evm });
    const live = await create(other.liveKey, 'ethereum');
    expect(live.statusCode, live.body).toBe(201);
    expect(live.json().is_test).toBe(false);
    // Only on that chain.
    expect((await create(other.liveKey, 'base')).json().error.code).toBe('payout_wallet_missing');
    // A chain with a live payout wallet but no node connected is refused too: nobody would see the payment.
    await put(apiKey(other.liveKey), {
      ethereum: evm,
      bitcoin: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
    });
    const unwatched = await create(other.liveKey, 'bitcoin');
    expect(unwatched.statusCode).toBe(400);
    expect(unwatched.json().error).toMatchObject({ code: 'chain_unavailable', param: 'chain' });
  });
});

describe('merchant settings', () => {
  it('defaults to exact amounts and a 30-minute window', async () => {
    const other = await createMerchant(t.app);
    const response = await t.app.inject({
      method: 'GET',
      url: '/v1/settings',
      headers: apiKey(other.testKey),
    });
    expect(response.json()).toEqual({
      underpayment_tolerance_percent: '0',
      underpayment_tolerance_amount: '0',
      overpayment_tolerance_percent: '0',
      overpayment_tolerance_amount: '0',
      default_expires_in: 1800,
      updated_at: null,
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
    const wallet = await put(apiKey(m.liveKey), { ethereum: evm, bitcoin: btcMain });
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
      deposit: { address: test.json().address, asset: 'ETH', amount_native: '0.005' },
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
