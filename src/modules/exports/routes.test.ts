import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';

/**
 * Exports through the real app and database: CSV with its header and exact amounts, JSON Lines, filters, the mode of
 * the key, and an export past several keyset pages that returns every row once, in order.
 */
describe('exports', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await createTestApp();
    merchant = await createMerchant(t.app);
    for (const body of [
      { amount: '19.99', currency: 'USD', chain: 'ethereum' },
      { amount: '0.5', currency: 'ETH', chain: 'ethereum' },
      { amount: '7', currency: 'USD', chain: 'bitcoin' },
    ]) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: apiKey(merchant.testKey),
        payload: body,
      });
      expect(created.statusCode, created.body).toBe(201);
    }
  });

  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers: Record<string, string> = apiKey(merchant.testKey)) =>
    t.app.inject({ method: 'GET', url, headers });

  it('streams payments as CSV with a header row, exact amounts and the filters applied', async () => {
    const all = await get('/v1/exports/payments');
    expect(all.statusCode, all.body).toBe(200);
    expect(all.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(all.headers['content-disposition']).toMatch(
      /^attachment; filename="payments-test-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = all.body.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'payment_id,created_at,expires_at,status,is_test,chain,asset,amount,currency,rate,rate_source,expected_native,' +
        'received_native,value_at_creation,received_value_at_locked_rate,confirmed_at,confirmation_rate,' +
        'confirmation_rate_source,value_at_confirmation,refunded_native,refund_fees_native,' +
        'forwarded_at,forward_tx_hash,sweep_fee_native,native_asset,tx_hash,order_id',
    );
    expect(lines).toHaveLength(4);
    expect(all.body).toContain(',pending,true,ethereum,ETH,0.5,ETH,1,identity,0.5,0,0.5,0,,,,,0,0,,,,ETH,,');
    const bitcoin = await get('/v1/exports/payments?chain=bitcoin&format=jsonl');
    expect(bitcoin.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const rows = bitcoin.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ chain: 'bitcoin', currency: 'USD', amount: '7', is_test: true });
    const none = await get('/v1/exports/payments?status=completed');
    expect(none.body.trimEnd().split('\n')).toHaveLength(1); // the header only
  });

  it('exports the key mode only; a dashboard token must name the mode', async () => {
    const live = await get('/v1/exports/payments', apiKey(merchant.liveKey));
    expect(live.body.trimEnd().split('\n')).toHaveLength(1);
    const token = await get('/v1/exports/payments', bearer(merchant.token));
    expect(token.statusCode).toBe(400);
    expect(token.json().error.param).toBe('is_test');
    const named = await get('/v1/exports/refunds?is_test=true', bearer(merchant.token));
    expect(named.statusCode).toBe(200);
    for (const kind of ['deposits', 'sweeps', 'events']) {
      const answer = await get(`/v1/exports/${kind}`);
      expect(answer.statusCode, kind).toBe(200);
    }
    expect((await get('/v1/exports/everything')).statusCode).toBe(400);
  });

  it('goes through every keyset page: each row once, oldest first', async () => {
    const other = await createMerchant(t.app);
    // 2,500 payments straight into the table (the API would take minutes): past several pages of 250.
    await t.database.db.execute(sql`
      insert into payments (id, merchant_id, is_test, status, amount, currency, chain, asset, address, derivation_index,
                            expected_base_units, received_base_units, rate, rate_source, expires_at, created_at,
                            updated_at)
      select gen_random_uuid(), ${other.merchantId}, true, 'completed', '10', 'USD', 'ethereum', 'ETH',
             '0xbe' || lpad(to_hex(i), 38, '0'), 1000000 + i, 3333333333333333, 3333333333333333, '3000', 'bench',
             now(), now(), now()
      from generate_series(1, 2500) as i`);
    const answer = await get('/v1/exports/payments?format=jsonl', apiKey(other.testKey));
    const ids = answer.body
      .trimEnd()
      .split('\n')
      .map(
        (line) =>
          (JSON.parse(line) as { payment_id: string; received_value_at_locked_rate: string }).payment_id,
      );
    expect(ids).toHaveLength(2500);
    expect(new Set(ids).size).toBe(2500);
    expect([...ids].sort()).toEqual(ids);
    expect(answer.body).toContain('"received_value_at_locked_rate":"9.99"'); // 0.003333… ETH at 3000, rounded down
  });
});
