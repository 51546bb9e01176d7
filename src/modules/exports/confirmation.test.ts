import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';
import { watchedSimulatedEthereum } from '../../../test/support/simulated-watch.ts';
import { createIsolatedDatabase } from '../../../test/support/webhooks.ts';
import type { SimulatedChain } from '../chains/families.ts';
import { createForwarder } from '../chains/forwarder.ts';
import { refundLedger } from '../chains/ledger.ts';
import type { RateProvider } from '../payments/service.ts';
import { createRefundSender } from '../refunds/sender.ts';

/**
 * The value of a payment at its confirmation: the rate of that moment is stored in the transaction that confirms it
 * when the service knows it then, else asked of the feeds right after that transaction (never while it holds its
 * locks); not the locked rate, not recomputed later; and exports give both values, at creation and at confirmation, beside
 * the fees of its sweep and refunds. A confirmation whose price feed fails still confirms, without that value.
 */
describe('exports: fiat value at creation and at confirmation', () => {
  let t: TestApp;
  let drop: () => Promise<void> = async () => {};
  let merchant: Merchant;
  let sim: SimulatedChain;
  let blocks: (count: number) => Promise<void>;
  /** ETH in USD as the feed says now; null: the feed is down. */
  let ethUsd: string | null = '2000';
  /** Whether the service holds the feed's current price already (else settling finds none and a later round asks). */
  let cached = true;
  const rates: RateProvider = {
    cachedRate(asset, quote) {
      if (asset.toUpperCase() === quote.toUpperCase()) {
        return { rate: '1', source: 'identity', fetchedAt: new Date() };
      }
      return cached && ethUsd !== null ? { rate: ethUsd, source: 'feed', fetchedAt: new Date() } : undefined;
    },
    isSupportedCurrency: (code) => ['USD', 'ETH'].includes(code.toUpperCase()),
    async getRate(asset, quote) {
      if (asset.toUpperCase() === quote.toUpperCase()) {
        return { rate: '1', source: 'identity', fetchedAt: new Date() };
      }
      if (ethUsd === null) throw new Error('every source failed');
      return { rate: ethUsd, source: 'feed', fetchedAt: new Date() };
    },
  };

  beforeAll(async () => {
    // A database of its own: watchers, forwarders and refund senders act on every row of their chain in the database
    // (on a shared PostgreSQL, another file's would settle these payments with its own prices and send these refunds).
    const isolated = await createIsolatedDatabase();
    drop = isolated.drop;
    t = await createTestApp({ database: isolated.database, env: { SVC_SIM_CONFIRMATIONS: '2' }, rates });
    merchant = await createMerchant(t.app);
    ({ sim, blocks } = await watchedSimulatedEthereum(t));
  });

  afterAll(async () => {
    await t.close();
    await drop();
  });

  async function paidPayment(amount: string): Promise<string> {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(merchant.testKey),
      payload: { amount, currency: 'USD', chain: 'ethereum' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const payment = created.json() as { payment_id: string; address: string; expected_amount_native: string };
    return payment.payment_id;
  }

  async function pay(id: string): Promise<void> {
    const simulated = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/${id}/simulate`,
      headers: apiKey(merchant.testKey),
      payload: { outcome: 'paid' },
    });
    expect(simulated.statusCode, simulated.body).toBe(202);
    await blocks(4);
  }

  const exported = async (): Promise<Array<Record<string, unknown>>> => {
    const answer = await t.app.inject({
      method: 'GET',
      url: '/v1/exports/payments?format=jsonl',
      headers: apiKey(merchant.testKey),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.body
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };

  it('stores the rate of the confirmation with it, and exports both values', async () => {
    ethUsd = '2000';
    const id = await paidPayment('100'); // 0.05 ETH at 2000
    ethUsd = '2500'; // the market moved while the payer paid
    await pay(id);
    const status = await t.app.inject({
      method: 'GET',
      url: `/v1/payments/${id}`,
      headers: apiKey(merchant.testKey),
    });
    expect(status.json()).toMatchObject({ status: 'completed' });
    ethUsd = '3000'; // later moves change nothing of what was recorded
    const row = (await exported()).find((r) => r.payment_id === id);
    expect(row).toMatchObject({
      rate: '2000',
      value_at_creation: '100',
      received_native: '0.05',
      received_value_at_locked_rate: '100',
      confirmation_rate: '2500',
      confirmation_rate_source: 'feed',
      value_at_confirmation: '125',
      refunded_native: '0',
      refund_fees_native: '0',
    });
    expect(typeof row?.confirmed_at).toBe('string');
    expect(Date.parse(String(row?.confirmed_at))).toBeGreaterThanOrEqual(Date.parse(String(row?.created_at)));
  });

  it('a price not known as the payment settles is asked after its transaction, once, and stored as its value', async () => {
    ethUsd = '2000';
    const id = await paidPayment('100');
    cached = false; // the cached price expired while the payer paid: settling asks no feed, so none is stored yet
    ethUsd = '2200';
    await pay(id);
    const before = (await exported()).find((r) => r.payment_id === id);
    expect(before).toMatchObject({
      status: 'completed',
      confirmation_rate: null,
      value_at_confirmation: null,
    });
    expect(await t.services.payments.fillConfirmationRates(t.clock.now())).toBeGreaterThanOrEqual(1);
    ethUsd = '9999'; // a later round changes nothing: the payment has its rate
    await t.services.payments.fillConfirmationRates(t.clock.now());
    cached = true;
    expect((await exported()).find((r) => r.payment_id === id)).toMatchObject({
      confirmation_rate: '2200',
      confirmation_rate_source: 'feed',
      value_at_confirmation: '110',
    });
  });

  it('confirms without the value when no price can be had, and leaves unpaid payments without one', async () => {
    ethUsd = '2000';
    const paid = await paidPayment('10');
    const open = await paidPayment('20');
    ethUsd = null;
    await pay(paid);
    // Asked again after the transaction, the feed is still down: no value rather than a made-up one.
    await t.services.payments.fillConfirmationRates(t.clock.now());
    const rows = await exported();
    expect(rows.find((r) => r.payment_id === paid)).toMatchObject({
      status: 'completed',
      value_at_creation: '10',
      confirmation_rate: null,
      value_at_confirmation: null,
    });
    expect(typeof rows.find((r) => r.payment_id === paid)?.confirmed_at).toBe('string');
    expect(rows.find((r) => r.payment_id === open)).toMatchObject({
      status: 'pending',
      confirmed_at: null,
      confirmation_rate: null,
      value_at_confirmation: null,
    });
  });

  it('gives the network fees its refunds and its sweep paid beside its values', async () => {
    ethUsd = '2000';
    const wallets = await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=true',
      headers: bearer(merchant.token),
      payload: { ethereum: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' },
    });
    expect(wallets.statusCode, wallets.body).toBe(200);
    const id = await paidPayment('100'); // 0.05 ETH
    await pay(id);
    const refund = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/${id}/refunds`,
      headers: apiKey(merchant.testKey),
      payload: { amount: '0.01', address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' },
    });
    expect(refund.statusCode, refund.body).toBe(201);
    const sender = createRefundSender({
      db: t.database.db,
      clock: t.clock,
      adapter: sim,
      payments: t.services.payments,
      ledger: refundLedger,
      refunds: t.services.refunds,
    });
    const forwarder = createForwarder({
      db: t.database.db,
      clock: t.clock,
      adapter: sim,
      payments: t.services.payments,
      settings: t.services.settings,
    });
    for (let round = 0; round < 8; round++) {
      await sender.run();
      await forwarder.run();
      await blocks(1);
    }
    const row = (await exported()).find((r) => r.payment_id === id);
    // The simulated chain's fee: 21,000 gas at 1 gwei, for the refund and for the sweep of the rest.
    expect(row).toMatchObject({
      received_native: '0.05',
      value_at_confirmation: '100',
      refunded_native: '0.01',
      refund_fees_native: '0.000021',
      sweep_fee_native: '0.000021',
      native_asset: 'ETH',
    });
    expect(typeof row?.forwarded_at).toBe('string');
  });
});
