import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  manualClock,
  type TestApp,
  testMnemonic,
} from '../../../test/support/harness.ts';

const clock = manualClock(new Date());
let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  // Live ethereum is connected (nobody dials the node here), so a live payout wallet makes it an option.
  t = await createTestApp({
    clock,
    env: { SVC_MNEMONIC: testMnemonic, SVC_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:9' },
  });
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const create = (payload: object, headers = apiKey(m.testKey)) =>
  t.app.inject({ method: 'POST', url: '/v1/payments', headers, payload });
const view = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/payments/checkout/${id}` })).json() as Record<
    string,
    unknown
  > & {
    options: Array<{ chain: string; asset: string; amount_native: string }>;
  };
const select = (id: string, chain: string, asset: string) =>
  t.app.inject({ method: 'POST', url: `/v1/payments/checkout/${id}/select`, payload: { chain, asset } });

describe('the payer picks the chain', () => {
  it('offers every pair of the mode, priced; only the asset asked for; only live chains with a payout wallet', async () => {
    const open = await create({ amount: '30', currency: 'USD' });
    expect(open.statusCode, open.body).toBe(201);
    expect(open.json()).toMatchObject({ chosen_by: 'payer', chain: null, rate: null, payment_uri: null });
    const offered = await view(open.json().payment_id);
    expect(offered.options).toContainEqual(
      expect.objectContaining({ chain: 'ethereum', asset: 'ETH', amount_native: '0.01' }),
    );
    expect(offered.options).toContainEqual(
      expect.objectContaining({ chain: 'tron', asset: 'USDT', amount_native: '30' }),
    );
    const usdc = await view(
      (await create({ amount: '30', currency: 'USD', asset: 'USDC' })).json().payment_id,
    );
    expect(new Set(usdc.options.map((option) => option.asset))).toEqual(new Set(['USDC']));
    // Live: nothing is ready before a payout wallet; then that chain alone (the only live node here).
    const none = await create({ amount: '0.5', currency: 'ETH' }, apiKey(m.liveKey));
    expect(none.json().error).toMatchObject({ code: 'payout_wallet_missing' });
    await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=false',
      headers: bearer(m.token),
      payload: { ethereum: '0x00000000000000000000000000000000000000a1' },
    });
    const live = await create({ amount: '0.5', currency: 'ETH' }, apiKey(m.liveKey));
    expect((await view(live.json().payment_id)).options.map((o) => `${o.chain}:${o.asset}`)).toEqual([
      'ethereum:ETH',
    ]);
  });

  it('takes the address and locks the rate at the pick; the pick is final; a lapsed quote is renewed at the same address', async () => {
    const id = (await create({ amount: '30', currency: 'USD' })).json().payment_id as string;
    expect((await select(id, 'bitcoin', 'ETH')).json().error.code).toBe('unsupported_asset');
    const picked = await select(id, 'ethereum', 'ETH');
    expect(picked.statusCode, picked.body).toBe(200);
    const first = picked.json();
    expect(first).toMatchObject({
      chain: 'ethereum',
      asset: 'ETH',
      expected_amount_native: '0.01',
      options: [],
    });
    expect(Date.parse(first.quote_expires_at) - Date.parse(first.selected_at)).toBe(15 * 60_000);
    const full = await t.app.inject({ method: 'GET', url: `/v1/payments/${id}`, headers: apiKey(m.testKey) });
    expect(full.json()).toMatchObject({ chain: 'ethereum', address: first.address, chosen_by: 'payer' });
    expect((await select(id, 'tron', 'USDT')).json().error).toMatchObject({
      code: 'invalid_state',
      param: 'chain',
    });
    // The same pick while the quote holds changes nothing.
    expect((await select(id, 'ethereum', 'ETH')).json().quote_expires_at).toBe(first.quote_expires_at);
    // Past the quote (the window of 30 minutes still open): the page asks for a new quote; the address stays.
    clock.advance(16 * 60_000);
    const renewed = (await select(id, 'ethereum', 'ETH')).json();
    expect(renewed.address).toBe(first.address);
    expect(renewed.selected_at).toBe(first.selected_at);
    expect(Date.parse(renewed.quote_expires_at)).toBe(Date.parse(renewed.expires_at));
  });

  it('refuses a pick once the window ended, or on a payment whose merchant named the chain', async () => {
    const named = (await create({ amount: '30', currency: 'USD', chain: 'base' })).json()
      .payment_id as string;
    expect((await select(named, 'base', 'ETH')).json().error.code).toBe('invalid_state');
    const late = (await create({ amount: '30', currency: 'USD', expires_in: 60 })).json()
      .payment_id as string;
    clock.advance(61_000);
    expect((await select(late, 'base', 'ETH')).json().error.code).toBe('invalid_state');
    const unknown = await select('01940000-0000-7000-8000-00000000dead', 'base', 'ETH');
    expect(unknown.statusCode).toBe(404);
  });

  it('offers only the pairs the merchant enabled (settings checkout_options), or all again with null', async () => {
    const shop = await createMerchant(t.app);
    const set = (checkout_options: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: '/v1/settings',
        headers: bearer(shop.token),
        payload: { checkout_options },
      });
    expect((await set(['base:DOGE'])).json().error).toMatchObject({ param: 'checkout_options' });
    expect((await set([])).json().error).toMatchObject({ param: 'checkout_options' });
    expect((await set(['Base:usdc', 'bitcoin:BTC', 'base:USDC'])).json().checkout_options).toEqual([
      'base:USDC',
      'bitcoin:BTC',
    ]);
    const limited = await create({ amount: '20', currency: 'USD' }, apiKey(shop.testKey));
    expect((await view(limited.json().payment_id)).options.map((o) => `${o.chain}:${o.asset}`)).toEqual([
      'base:USDC',
      'bitcoin:BTC',
    ]);
    expect(
      (await create({ amount: '20', currency: 'USD', asset: 'ETH' }, apiKey(shop.testKey))).statusCode,
    ).toBe(400);
    expect((await set(null)).json().checkout_options).toBeNull();
    const all = await create({ amount: '20', currency: 'USD' }, apiKey(shop.testKey));
    expect((await view(all.json().payment_id)).options.length).toBeGreaterThan(10);
  });
});
