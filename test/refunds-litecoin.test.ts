import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LitecoinProgram, startLitecoinProgram } from './support/litecoin-program.ts';
import { litecoindSkipReason, runLitecoindTests } from './support/litecoind.ts';
import { keyedApi } from './support/program.ts';
import { baseUnits, type RefundSeen, refundMerchant, refundsApi } from './support/refunds.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Litecoin refunds from the deposit address through the running program against litecoind in regtest, what
 * arrived read from the node: an underpaid payment refunded whole (the payer gets it less the fee, the deposit output
 * spent, no change), the excess of an overpaid one (one output to the payer, the rest to the payout wallet in the same
 * transaction, the deposit closed as swept by the refund), a refund not worth its fee failed with the reason, and
 * addresses of another network refused with the API's error. Blocks are mined by the test as it needs them.
 * Sweeps are batched (SWEEP_BATCH 50 within 6 h), so settled deposits stay at their address for the refunds.
 */

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  deposits: Array<{ tx_hash: string; output_index: number }>;
}

const LITOSHIS = 100_000_000n;

describe.skipIf(!runLitecoindTests)(
  'live Litecoin refunds through the running program against litecoind',
  {
    timeout: 180_000,
  },
  () => {
    let ltc: LitecoinProgram;
    let key = '';
    let payoutRegtest = '';
    const api = keyedApi(() => ltc.base);
    const refunds = refundsApi(
      () => ltc.base,
      () => ltc.program.output(),
    );

    beforeAll(async () => {
      ltc = await startLitecoinProgram({
        dataDirPrefix: 'svc-refunds-ltc-',
        // 10 sat/vB: a refund of 1,000 litoshis cannot pay its ~1,100-litoshi fee.
        // A refund unconfirmed 5 s is replaced by a higher fee (the other tests mine theirs at once).
        env: { SVC_CHAIN_LITECOIN_MIN_FEE_RATE: '10', SVC_CHAIN_LITECOIN_SWEEP_BUMP_AFTER_SECONDS: '5' },
      });
      const merchant = await refundMerchant(ltc.base);
      key = merchant.key;
      const payout = await ltc.newAddress();
      payoutRegtest = payout.regtest;
      await merchant.payoutWallets({ litecoin: payout.live });
    }, 120_000);

    afterAll(async () => {
      await ltc?.stop();
    });

    /** A payment of `amount` LTC paid `coins`, mined until its status is `status` (final deposits). */
    async function paid(amount: string, coins: string, status: string): Promise<Payment> {
      const created = await api<Payment>('POST', '/payments', key, {
        chain: 'litecoin',
        amount,
        currency: 'LTC',
      });
      await ltc.pay(created.address, coins);
      await ltc.node.mine(2);
      return waitFor(
        `payment ${status}`,
        async () => {
          const seen = await api<Payment>('GET', `/payments/${created.payment_id}`, key);
          return seen.status === status ? seen : undefined;
        },
        30_000,
      );
    }

    /** Waits for the refund's transaction, mines it deep enough, and waits until the refund is sent. */
    async function sent(refund: RefundSeen): Promise<RefundSeen> {
      const broadcast = await refunds.until(key, refund.id, 'the refund broadcast', (r) =>
        ['broadcast', 'sent'].includes(r.status),
      );
      expect(await ltc.node.rpc('getmempoolentry', [broadcast.tx_hash])).toBeTruthy();
      await ltc.node.mine(2);
      return refunds.until(key, refund.id, 'the refund sent', (r) => r.status === 'sent');
    }

    interface RawTx {
      vin: Array<{ txid: string; vout: number; sequence: number }>;
      vout: Array<{ value: number; scriptPubKey: { addresses?: string[]; address?: string } }>;
    }
    const rawTx = (txid: string) => ltc.node.rpc<RawTx>('getrawtransaction', [txid, true]);

    it('refunds an underpaid payment whole: the payer gets it less the fee, the deposit output is spent', async () => {
      const payment = await paid('0.05', '0.02', 'underpaid');
      const payer = await ltc.newAddress();
      const payoutBefore = await ltc.received(payoutRegtest);
      const refund = await refunds.ask(key, payment.payment_id, { address: payer.live });
      expect(refund.amount_native).toBe('0.02');
      const done = await sent(refund);
      expect(done.source).toBe('deposit');
      const fee = baseUnits(done.fee_native ?? '0', 8);
      const got = baseUnits(done.sent_amount_native ?? '0', 8);
      expect(fee).toBeGreaterThan(0n);
      expect(got + fee).toBe((2n * LITOSHIS) / 100n);
      expect(await ltc.received(payer.regtest)).toBe(got);
      expect(await ltc.received(payoutRegtest)).toBe(payoutBefore); // no change
      const tx = await rawTx(done.tx_hash ?? '');
      expect(tx.vout).toHaveLength(1);
      // Replaceable (BIP125), and spending the deposit's own output.
      expect(tx.vin.every((input) => input.sequence < 0xfffffffe)).toBe(true);
      const deposit = payment.deposits[0];
      expect(tx.vin.map((input) => `${input.txid}:${input.vout}`)).toEqual([
        `${deposit?.tx_hash}:${deposit?.output_index}`,
      ]);
      expect(await ltc.node.rpc('gettxout', [deposit?.tx_hash, deposit?.output_index, true])).toBeNull();
    });

    it('refunds the excess of an overpaid payment: the rest goes to the payout wallet in the same transaction', async () => {
      const payment = await paid('0.05', '0.08', 'overpaid');
      const payer = await ltc.newAddress();
      const payoutBefore = await ltc.received(payoutRegtest);
      const refund = await refunds.ask(key, payment.payment_id, { address: payer.live, amount: '0.03' });
      const done = await sent(refund);
      const fee = baseUnits(done.fee_native ?? '0', 8);
      const got = baseUnits(done.sent_amount_native ?? '0', 8);
      expect(got + fee).toBe((3n * LITOSHIS) / 100n);
      expect(await ltc.received(payer.regtest)).toBe(got);
      expect((await ltc.received(payoutRegtest)) - payoutBefore).toBe((5n * LITOSHIS) / 100n);
      expect((await rawTx(done.tx_hash ?? '')).vout).toHaveLength(2);
      // The deposit is closed: swept (by the refund's transaction), 0.03 of it refunded; no sweep will spend it again.
      const exported = await fetch(`${ltc.base}/v1/exports/deposits?format=jsonl&chain=litecoin`, {
        headers: { 'x-api-key': key },
      });
      const rows = (await exported.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { payment_id: string; swept: boolean; refunded_native: string });
      expect(rows.find((row) => row.payment_id === payment.payment_id)).toMatchObject({
        swept: true,
        refunded_native: '0.03',
      });
    });

    it('replaces a refund stuck in the mempool by a higher fee on the same input; the version mined is recorded', async () => {
      const payment = await paid('0.05', '0.02', 'underpaid');
      const payer = await ltc.newAddress();
      const refund = await refunds.ask(key, payment.payment_id, { address: payer.live });
      const first = await refunds.until(
        key,
        refund.id,
        'the refund broadcast',
        (r) => r.status === 'broadcast',
      );
      const stuck = first.tx_hash ?? '';
      // Miners here ignore it from now on: it pays (as far as block templates go) less than nothing.
      await ltc.node.rpc('prioritisetransaction', [stuck, 0, -10_000_000]);
      await ltc.node.mine(1);
      expect(await ltc.node.rpc<string[]>('getrawmempool')).toContain(stuck);
      const bumped = await refunds.until(
        key,
        refund.id,
        'the refund replaced',
        (r) => r.status === 'broadcast' && r.tx_hash !== stuck,
      );
      const replacement = bumped.tx_hash ?? '';
      // The replacement is stored before it is broadcast (so a crash cannot lose it): the API can show it a moment
      // before the node has it.
      const mempool = await waitFor(
        'the replacement in the mempool',
        async () => {
          const held = await ltc.node.rpc<string[]>('getrawmempool');
          return held.includes(replacement) && held;
        },
        30_000,
      );
      expect(mempool).not.toContain(stuck);
      // The same input (so only one version can ever land), the payer paying the higher fee out of the amount.
      const inputs = async (txid: string) =>
        (await rawTx(txid)).vin.map((input) => `${input.txid}:${input.vout}`);
      const deposit = payment.deposits[0];
      expect(await inputs(replacement)).toEqual([`${deposit?.tx_hash}:${deposit?.output_index}`]);
      const firstFee = baseUnits(first.fee_native ?? '0', 8);
      const bumpedFee = baseUnits(bumped.fee_native ?? '0', 8);
      expect(bumpedFee).toBeGreaterThan(firstFee);
      expect(baseUnits(bumped.sent_amount_native ?? '0', 8) + bumpedFee).toBe((2n * LITOSHIS) / 100n);
      await ltc.node.mine(2);
      const done = await refunds.until(key, refund.id, 'the refund sent', (r) => r.status === 'sent');
      expect(done.tx_hash).toBe(replacement);
      const got = baseUnits(done.sent_amount_native ?? '0', 8);
      expect(got + baseUnits(done.fee_native ?? '0', 8)).toBe((2n * LITOSHIS) / 100n);
      expect(got).toBe((2n * LITOSHIS) / 100n - bumpedFee);
      expect(await ltc.received(payer.regtest)).toBe(got);
    });

    it('fails a refund not worth its network fee, with the reason, and its amount is refundable again', async () => {
      const payment = await paid('0.05', '0.01', 'underpaid');
      const payer = await ltc.newAddress();
      const refund = await refunds.ask(key, payment.payment_id, { address: payer.live, amount: '0.00001' });
      const failed = await refunds.until(key, refund.id, 'the refund failed', (r) => r.status === 'failed');
      expect(failed.last_error).toMatch(/not worth its network fee/);
      const whole = await refunds.ask(key, payment.payment_id, { address: payer.live });
      expect(whole.amount_native).toBe('0.01');
    });

    it('refuses addresses of another network with a clear error', async () => {
      const payment = await paid('0.05', '0.01', 'underpaid');
      const regtestSpelling = (await ltc.newAddress()).regtest;
      for (const address of [
        regtestSpelling,
        'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
        'not an address',
      ]) {
        const refused = await refunds.refused(key, payment.payment_id, { address });
        expect(refused.status).toBe(400);
        expect(refused.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
        expect(refused.error.message).toContain('is not a valid Litecoin address');
      }
      // Valid in form, but Litecoin's old P2SH spelling, which Bitcoin shares: refused with what to ask for instead.
      const legacy = await refunds.refused(key, payment.payment_id, {
        address: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      });
      expect(legacy.status).toBe(400);
      expect(legacy.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
      expect(legacy.error.message).toContain('legacy Litecoin P2SH');
    });
  },
);

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
