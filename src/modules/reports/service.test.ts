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
import { median } from './service.ts';

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median(Float64Array.from([]))).toBeNull();
    expect(median(Float64Array.from([5, 1, 3]))).toBe(3);
    expect(median(Float64Array.from([40, 10, 30, 20]))).toBe(25);
  });
});

/**
 * The report through the real app and database: four payments created, two paid (one confirmed a minute after
 * creation, one overpaid after three), one final sweep: volume per day, conversion, median time and sweep fees.
 */
describe('GET /v1/reports', () => {
  let t: TestApp;
  let merchant: Merchant;

  beforeAll(async () => {
    t = await createTestApp();
    merchant = await createMerchant(t.app);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/payments',
        headers: apiKey(merchant.testKey),
        payload: { amount: '0.5', currency: 'ETH', chain: 'ethereum' },
      });
      ids.push((created.json() as { payment_id: string }).payment_id);
    }
    const db = t.database.db;
    // As the watcher and the forwarder record them: two paid, their events, one final sweep.
    await db.execute(sql`update payments set status = 'completed', received_base_units = 500000000000000000
                         where id = ${ids[0]}::uuid`);
    await db.execute(sql`update payments set status = 'overpaid', received_base_units = 600000000000000000
                         where id = ${ids[1]}::uuid`);
    for (const [id, type, seconds] of [
      [ids[0], 'payment.confirmed', 60],
      [ids[1], 'payment.overpaid', 180],
    ] as const) {
      await db.execute(sql`insert into events (id, merchant_id, is_test, type, payment_id, body, occurred_at, created_at)
                           select ${`evt_${type.slice(8)}${seconds}`}, merchant_id, true, ${type}, ${id}, '{}',
                                  created_at + make_interval(secs => ${seconds}), now()
                           from payments where id = ${id}::uuid`);
    }
    await db.execute(sql`insert into forwards (id, merchant_id, chain, is_test, asset, state, payment_ids, amount, fee,
                                               raw_tx, tx_hash, created_at, final_at, updated_at)
                         values ('fwd_report', ${merchant.merchantId}, 'ethereum', true, 'ETH', 'final', '[]',
                                 1000, 21000000000000, '', '0xab', now(), now(), now())`);
  });

  afterAll(async () => {
    await t.close();
  });

  it('gives volume per day, conversion, the median time to confirmation and sweep fees per month', async () => {
    const answer = await t.app.inject({
      method: 'GET',
      url: '/v1/reports',
      headers: apiKey(merchant.testKey),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const report = answer.json();
    const today = new Date().toISOString().slice(0, 10);
    expect(report.volume_by_day).toEqual([
      { day: today, chain: 'ethereum', asset: 'ETH', received_native: '1.1', paid: 2, created: 4 },
    ]);
    expect(report.conversion).toEqual({ created: 4, paid: 2, ratio: 0.5 });
    expect(report.median_seconds_to_confirmation).toBe(120);
    expect(report.sweep_fees_by_month).toEqual([
      { month: today.slice(0, 7), chain: 'ethereum', native_asset: 'ETH', fee_native: '0.000021', sweeps: 1 },
    ]);
    // A dashboard token names the mode; live has nothing.
    const live = await t.app.inject({
      method: 'GET',
      url: '/v1/reports?is_test=false',
      headers: bearer(merchant.token),
    });
    expect(live.json().conversion).toEqual({ created: 0, paid: 0, ratio: null });
  });
});
