import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedApi } from './support/program.ts';
import { baseUnits, refundMerchant, refundsApi } from './support/refunds.ts';
import { testKey } from './support/tron-node.ts';
import { startTronProgram, type TronProgram } from './support/tron-program.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Tron refunds from the deposit address through the running program against the fake Tron node, balances read
 * from the node's accounts: underpaid TRX refunded whole to a new account (the transfer's account creation fee out of
 * the refund, nothing left), the excess of overpaid TRX to an existing account (its free bandwidth pays: the whole
 * excess arrives, exactly the expected amount stays), USDT to a new holder with energy delegated by the resource wallet
 * (the payer gets it all, the stake comes back), and addresses refused with the API's error (not Tron's, a contract).
 * The merchant's payout wallet is removed once each payment exists, so nothing is swept under the refunds.
 */

interface Payment {
  payment_id: string;
  status: string;
  address: string;
}

const TRX = 1_000_000n;

describe('live Tron refunds through the running program against the fake Tron node', {
  timeout: 180_000,
}, () => {
  let tron: TronProgram;
  let key = '';
  let merchant: Awaited<ReturnType<typeof refundMerchant>>;
  const api = keyedApi(() => tron.base);
  const refunds = refundsApi(
    () => tron.base,
    () => tron.program.output(),
  );
  let fresh = 0;
  const newAddress = () => testKey(`refunds-tron-to-${++fresh}`).address;

  beforeAll(async () => {
    tron = await startTronProgram({
      dataDirPrefix: 'svc-refunds-tron-',
      label: 'refunds-tron',
      // A transfer the node loses provably cannot land 30 s after its reference block (the shortest allowed).
      env: { SVC_CHAIN_TRON_SWEEP_EXPIRATION_SECONDS: '30' },
    });
    merchant = await refundMerchant(tron.base);
    key = merchant.key;
  }, 120_000);

  afterAll(async () => {
    await tron?.stop();
  });

  async function paid(
    amount: string,
    asset: 'TRX' | 'USDT',
    pay: (address: string) => unknown,
    status: string,
  ) {
    await merchant.payoutWallets({ tron: newAddress() });
    const created = await api<Payment>('POST', '/payments', key, {
      chain: 'tron',
      amount,
      currency: asset,
      ...(asset === 'USDT' ? { asset } : {}),
    });
    await merchant.payoutWallets({});
    pay(created.address);
    return waitFor(
      `payment ${status}`,
      async () => {
        const seen = await api<Payment>('GET', `/payments/${created.payment_id}`, key);
        return seen.status === status ? seen : undefined;
      },
      30_000,
    );
  }

  it('refunds underpaid TRX whole to a new account: the creation fee out of the refund, nothing left', async () => {
    const payment = await paid(
      '10',
      'TRX',
      (address) => tron.node.sendTrx(tron.payer.key, address, 4n * TRX),
      'underpaid',
    );
    const to = newAddress();
    const asked = await refunds.ask(key, payment.payment_id, { address: to });
    expect(asked.amount_native).toBe('4');
    const sent = await refunds.until(key, asked.id, 'the TRX refund sent', (r) => r.status === 'sent');
    expect(sent.source).toBe('deposit');
    const got = baseUnits(sent.sent_amount_native ?? '0', 6);
    expect(tron.node.account(to)?.balance).toBe(got);
    expect(got).toBe(4n * TRX - 1_100_000n);
    expect(tron.node.account(payment.address)?.balance).toBe(0n);
  });

  it('refunds the excess of overpaid TRX to an existing account: exactly the expected amount stays', async () => {
    const payment = await paid(
      '10',
      'TRX',
      (address) => tron.node.sendTrx(tron.payer.key, address, 15n * TRX),
      'overpaid',
    );
    const to = newAddress();
    tron.node.fund(to, 1n);
    const asked = await refunds.ask(key, payment.payment_id, { address: to, amount: '5' });
    const sent = await refunds.until(key, asked.id, 'the excess refunded', (r) => r.status === 'sent');
    // The deposit's free bandwidth paid for the transfer: the whole excess arrived.
    expect(sent.sent_amount_native).toBe('5');
    expect(tron.node.account(to)?.balance).toBe(5n * TRX + 1n);
    expect(tron.node.account(payment.address)?.balance).toBe(10n * TRX);
  });

  it('refunds USDT to a new holder with energy delegated by the resource wallet, which gets its stake back', async () => {
    const payment = await paid(
      '10',
      'USDT',
      (address) => tron.node.sendUsdt(tron.payer.key, address, 4_000_000n),
      'underpaid',
    );
    const to = newAddress();
    const asked = await refunds.ask(key, payment.payment_id, { address: to, amount: '1.5' });
    const sent = await refunds.until(key, asked.id, 'the USDT refund sent', (r) => r.status === 'sent');
    expect(sent).toMatchObject({ source: 'deposit', sent_amount_native: '1.5' });
    expect(tron.node.account(to)?.usdt).toBe(1_500_000n);
    expect(tron.node.account(payment.address)?.usdt).toBe(2_500_000n);
    // Its energy was lent, not burnt, and the stake came back before the refund was sent.
    expect(tron.node.account(payment.address)?.delegatedInEnergy).toBe(0n);
    const lent = [...(tron.node.account(tron.resource.address)?.delegatedOutEnergy.values() ?? [])];
    expect(lent.reduce((sum, sun) => sum + sun, 0n)).toBe(0n);
  });

  it('a USDT refund whose transfer expired after its delegation landed: signed again, and the old stake comes back too', async () => {
    const payment = await paid(
      '10',
      'USDT',
      (address) => tron.node.sendUsdt(tron.payer.key, address, 3_000_000n),
      'underpaid',
    );
    const deposit = payment.address;
    const transfers = () =>
      new Set(
        tron.node
          .broadcasts()
          .filter((sent) => sent.owner === deposit)
          .map((sent) => sent.txid),
      );
    // The node loses the refund's first transfer, every time it is sent, and nothing else: its delegation lands.
    let lost: string | undefined;
    tron.node.setLoseBroadcasts((tx) => {
      if (tx.raw_data.contract[0]?.type !== 'TriggerSmartContract') return false;
      lost ??= tx.txID;
      return tx.txID === lost;
    });
    try {
      const to = newAddress();
      const asked = await refunds.ask(key, payment.payment_id, { address: to, amount: '2' });
      await waitFor('the first transfer sent', () => lost, 20_000);
      await waitFor(
        'its energy lent',
        () => (tron.node.account(deposit)?.delegatedInEnergy ?? 0n) > 0n,
        20_000,
      );
      const firstLent = tron.node.account(deposit)?.delegatedInEnergy ?? 0n;
      // Once the solidified block is past the lost transfer's expiry, the refund is signed again and sent.
      const sent = await refunds.until(
        key,
        asked.id,
        'the USDT refund sent',
        (r) => r.status === 'sent',
        90_000,
      );
      expect(sent).toMatchObject({ source: 'deposit', sent_amount_native: '2' });
      expect(sent.tx_hash).not.toBe(lost);
      expect(transfers()).toEqual(new Set([lost, sent.tx_hash]));
      expect(tron.node.account(to)?.usdt).toBe(2_000_000n);
      expect(tron.node.account(deposit)?.usdt).toBe(1_000_000n);
      // Both versions delegated to the deposit address; the second one's undelegation gave back both stakes.
      expect(firstLent).toBeGreaterThan(0n);
      expect(tron.node.account(deposit)?.delegatedInEnergy).toBe(0n);
      const lent = [...(tron.node.account(tron.resource.address)?.delegatedOutEnergy.values() ?? [])];
      expect(lent.reduce((sum, sun) => sum + sun, 0n)).toBe(0n);
    } finally {
      tron.node.setLoseBroadcasts(false);
    }
  });

  it('refuses what is no Tron wallet address with a clear error', async () => {
    const payment = await paid(
      '10',
      'TRX',
      (address) => tron.node.sendTrx(tron.payer.key, address, TRX),
      'underpaid',
    );
    const garbage = await refunds.refused(key, payment.payment_id, {
      address: '0x0000000000000000000000000000000000000001',
    });
    expect(garbage.status).toBe(400);
    expect(garbage.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
    expect(garbage.error.message).toContain('is not a valid Tron address');
    const contract = await refunds.refused(key, payment.payment_id, { address: tron.node.usdt });
    expect(contract.status).toBe(400);
    expect(contract.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
    expect(contract.error.message).toContain('is a contract on Tron');
  });
});
