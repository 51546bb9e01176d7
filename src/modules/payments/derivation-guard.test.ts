import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
  testMnemonic,
} from '../../../test/support/harness.ts';
import { queryRows } from '../../db/client.ts';
import { createAddressDeriver } from '../chains/derivation.ts';
import { indexSpace } from '../chains/registry.ts';

/**
 * A deposit address is handed out only when a second, independent derivation agrees with the first. Here the first
 * is broken on purpose: on the EVM index space it answers with the address of another index (a wrong public point
 * as a bug in the fast comb would give), so nobody could spend what a payer sent there.
 */
const good = createAddressDeriver({ testMnemonic, liveMnemonic: undefined });
const wrongAddresses = new Set<string>();
const broken = {
  ...good,
  // Consistent with itself: each wrong address is the encoding of the wrong key given beside it.
  deriveBatch: (...[chain, isTest, indices]: Parameters<typeof good.deriveBatch>) => {
    if (indexSpace(chain) !== 'evm') return good.deriveBatch(chain, isTest, indices);
    const wrong = good.deriveBatch(
      chain,
      isTest,
      indices.map((index) => index + 1_000_000),
    );
    for (const address of wrong.addresses) wrongAddresses.add(address.toLowerCase());
    return wrong;
  },
};

let t: TestApp;
let m: Merchant;
beforeAll(async () => {
  // The thread off: derivation runs on this thread, with the deriver given here.
  t = await createTestApp({ env: { SVC_DERIVATION_THREAD: 'false' }, deriver: broken });
  m = await createMerchant(t.app);
});
afterAll(() => t.close());

const create = (payload: object, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/v1/payments',
    headers: { ...apiKey(m.testKey), ...headers },
    payload,
  });

describe('a deposit address the second derivation does not confirm', () => {
  it('refuses the payment with 503 derivation_mismatch, and never hands the address out', async () => {
    for (const headers of [{}, { 'idempotency-key': 'guarded-1' }]) {
      const response = await create({ amount: '10', currency: 'USD', chain: 'ethereum' }, headers);
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ error: { code: 'derivation_mismatch' } });
      const body = response.body.toLowerCase();
      for (const address of wrongAddresses) expect(body).not.toContain(address);
    }
    expect(wrongAddresses.size).toBeGreaterThan(0);
    // On PostgreSQL the tests share one database: this merchant's rows, and no row anywhere at a wrong address.
    const stored = await queryRows<{ address: string }>(
      t.database.db,
      sql`select address from payments where merchant_id = ${m.merchantId}`,
    );
    expect(stored).toEqual([]);
    const anywhere = await queryRows<{ address: string }>(
      t.database.db,
      sql`select address from payments where address is not null`,
    );
    for (const row of anywhere) expect(wrongAddresses.has(row.address.toLowerCase())).toBe(false);
  });

  it('keeps refusing (no retry hands out a wrong address), while other index spaces go on', async () => {
    expect((await create({ amount: '10', currency: 'USD', chain: 'base' })).statusCode).toBe(503);
    const tron = await create({ amount: '10', currency: 'USD', chain: 'tron' });
    expect(tron.statusCode).toBe(201);
    const [row] = await queryRows<{ derivation_index: number }>(
      t.database.db,
      sql`select derivation_index from payments where id = ${tron.json().payment_id}`,
    );
    expect(tron.json().address).toBe(good.deriveAddress('tron', true, Number(row?.derivation_index)));
  });

  it('guards the payer’s pick the same way: 503 derivation_mismatch, and the payment keeps no address', async () => {
    const created = await create({ amount: '10', currency: 'USD' });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().payment_id as string;
    const picked = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/checkout/${id}/select`,
      payload: { chain: 'ethereum', asset: 'ETH' },
    });
    expect(picked.statusCode).toBe(503);
    expect(picked.json()).toMatchObject({ error: { code: 'derivation_mismatch' } });
    for (const address of wrongAddresses) expect(picked.body.toLowerCase()).not.toContain(address);
    const view = await t.app.inject({ method: 'GET', url: `/v1/payments/checkout/${id}` });
    expect(view.json()).toMatchObject({ chain: null, address: null, status: 'pending' });
    // Another index space still works for the same payment.
    const tron = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/checkout/${id}/select`,
      payload: { chain: 'tron', asset: 'TRX' },
    });
    expect(tron.statusCode, tron.body).toBe(200);
  });
});
