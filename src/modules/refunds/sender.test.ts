import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from '../../../test/support/harness.ts';
import { watchedSimulatedEthereum } from '../../../test/support/simulated-watch.ts';
import { createIsolatedDatabase } from '../../../test/support/webhooks.ts';
import { queryRows } from '../../db/client.ts';
import { type ChainAdapter, RefundWalletShort } from '../chains/adapter.ts';
import type { SimulatedChain } from '../chains/families.ts';
import { refundLedger } from '../chains/ledger.ts';
import type { Principal } from '../tenancy/caller.ts';
import { createRefundSender } from './sender.ts';

/**
 * The refund sender on the real simulated chain and a real database: a crash right after a refund's signed transaction
 * is committed (before its broadcast) leaves it `pending`; the next process broadcasts that very transaction, once, and
 * the refund is sent with the hash stored at the intent. The deposit's funds are held from sweeps meanwhile, and what
 * the refund took is never swept afterwards.
 */
const REFUND_TO = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('refund sender', () => {
  let t: TestApp;
  let drop: () => Promise<void> = async () => {};
  let merchant: Merchant;
  let sim: SimulatedChain;
  let blocks: (count: number) => Promise<void>;

  beforeAll(async () => {
    // A database of its own: watchers, forwarders and refund senders act on every row of their chain in the database
    // (on a shared PostgreSQL, another file's would settle these payments with its own prices and send these refunds).
    const isolated = await createIsolatedDatabase();
    drop = isolated.drop;
    t = await createTestApp({ database: isolated.database, env: { SVC_SIM_CONFIRMATIONS: '2' } });
    merchant = await createMerchant(t.app);
    ({ sim, blocks } = await watchedSimulatedEthereum(t));
  });

  afterAll(async () => {
    await t.close();
    await drop();
  });

  const principal = (): Principal => ({
    via: 'api_key',
    merchantId: merchant.merchantId,
    isTest: true,
    keypairId: merchant.keypairId,
    keyId: 'unused',
  });

  const sender = (afterIntent?: (id: string) => void) =>
    createRefundSender({
      db: t.database.db,
      clock: t.clock,
      adapter: sim,
      payments: t.services.payments,
      ledger: refundLedger,
      refunds: t.services.refunds,
      afterIntent,
    });

  /** A 1 ETH test payment paid `paid` wei and confirmed, then a refund of `amount` to REFUND_TO asked of it. */
  async function paidAndRefunded(paid: bigint, amount: string) {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(merchant.testKey),
      payload: { amount: '1', currency: 'ETH', chain: 'ethereum' },
    });
    const payment = created.json() as { payment_id: string; address: string };
    await sim.sendDeposit({ to: payment.address, asset: 'ETH', amount: paid });
    await blocks(3);
    const refundAnswer = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/${payment.payment_id}/refunds`,
      headers: apiKey(merchant.testKey),
      payload: { address: REFUND_TO, amount },
    });
    expect(refundAnswer.statusCode, refundAnswer.body).toBe(201);
    return { payment, refundId: (refundAnswer.json() as { id: string }).id };
  }

  it('a crash between the intent and its broadcast sends the same transaction once', async () => {
    const { payment, refundId } = await paidAndRefunded(4n * 10n ** 17n, '0.3');

    await expect(
      sender(() => {
        throw new Error('crash after the intent');
      }).run(),
    ).rejects.toThrow('crash after the intent');
    const [intent] = await t.services.refunds.ofPayment(principal(), payment.payment_id);
    expect(intent?.status).toBe('pending');
    const txHash = intent?.tx_hash ?? '';
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await sim.forwardStatus(txHash)).toEqual({ state: 'unknown' }); // never broadcast

    // The next process: the stored transaction is broadcast, confirmed, and the refund sent.
    const restarted = sender();
    for (let round = 0; round < 6; round++) {
      await restarted.run();
      await blocks(1);
    }
    const sent = await t.services.refunds.get(principal(), refundId);
    expect(sent).toMatchObject({ status: 'sent', tx_hash: txHash, source: 'deposit' });
    const onChain = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from sim_transfers where kind = 'refund'
          and to_address = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'`,
    );
    expect(Number(onChain[0]?.count)).toBe(1);
    // What it took is recorded on the deposit and no longer counts as sweepable; its hold is gone.
    const deposits = await queryRows<{ refunded: string; refund_hold_id: string | null }>(
      t.database.db,
      sql`select refunded, refund_hold_id from deposits where payment_id = ${payment.payment_id}`,
    );
    expect(deposits).toEqual([{ refunded: '300000000000000000', refund_hold_id: null }]);
  });

  it('signs again a refund whose transaction provably never lands, and closes the spent outputs of a UTXO refund', async () => {
    const { payment, refundId } = await paidAndRefunded(4n * 10n ** 17n, '0.1');
    // The simulated chain standing in for a UTXO chain whose first broadcast is lost and then provably expired.
    const intents: Array<Parameters<NonNullable<typeof sim.buildRefund>>[0]> = [];
    let lost = true;
    const utxo: ChainAdapter = {
      ...sim,
      refundSpendsOutputs: true,
      buildRefund: async (intent) => {
        intents.push(intent);
        const build = sim.buildRefund;
        if (build === undefined) throw new Error('the simulator refunds');
        return build(intent);
      },
      broadcast: async (rawTx) => (lost ? undefined : sim.broadcast(rawTx)),
      forwardStatus: async (txHash) => (lost ? { state: 'expired' } : sim.forwardStatus(txHash)),
    };
    const expiring = createRefundSender({
      db: t.database.db,
      clock: t.clock,
      adapter: utxo,
      payments: t.services.payments,
      ledger: refundLedger,
      payoutWallet: async () => '0x1111111111111111111111111111111111111111',
      refunds: t.services.refunds,
    });
    await expiring.run(); // signed and (lost) broadcast
    expect((await t.services.refunds.get(principal(), refundId)).status).toBe('broadcast');
    await expiring.run(); // expired: back to be signed again
    const again = await t.services.refunds.get(principal(), refundId);
    expect(again).toMatchObject({ status: 'queued', tx_hash: null });
    expect(again.last_error).toMatch(/expired unseen/);
    lost = false;
    for (let round = 0; round < 6; round++) {
      await expiring.run();
      await blocks(1);
    }
    expect(await t.services.refunds.get(principal(), refundId)).toMatchObject({ status: 'sent' });
    // Each build spent the deposit's own output, the rest going to the payout wallet.
    const [deposit] = await queryRows<{
      id: string;
      tx_hash: string;
      output_index: number;
      forward_id: string | null;
      refunded: string;
    }>(
      t.database.db,
      sql`select id, tx_hash, output_index, forward_id, refunded from deposits where payment_id = ${payment.payment_id}`,
    );
    expect(intents).toHaveLength(2);
    expect(intents[1]?.from?.outputs).toEqual([
      { txHash: deposit?.tx_hash, outputIndex: deposit?.output_index, amount: 4n * 10n ** 17n },
    ]);
    expect(intents[1]?.change).toBe('0x1111111111111111111111111111111111111111');
    // Closed: its output is spent, so no sweep takes the rest (it went to the payout in the refund's transaction).
    expect(deposit).toMatchObject({ forward_id: refundId, refunded: '100000000000000000' });
  });

  it('replaces a refund stuck in the mempool by a higher fee, stored before its broadcast, and records the version mined', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/payments',
      headers: apiKey(merchant.testKey),
      payload: { amount: '1', currency: 'ETH', chain: 'ethereum' },
    });
    const payment = created.json() as { payment_id: string; address: string };
    await sim.sendDeposit({ to: payment.address, asset: 'ETH', amount: 4n * 10n ** 17n });
    await blocks(3);
    const refundAnswer = await t.app.inject({
      method: 'POST',
      url: `/v1/payments/${payment.payment_id}/refunds`,
      headers: apiKey(merchant.testKey),
      payload: { address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', amount: '0.1' },
    });
    expect(refundAnswer.statusCode, refundAnswer.body).toBe(201);
    const refundId = (refundAnswer.json() as { id: string }).id;
    // A UTXO chain stand-in with a mempool: what is broadcast waits there (a replacement evicts what it replaces)
    // until the test mines a version.
    const amount = 10n ** 17n;
    const version = (n: number, fee: bigint) => ({
      txHash: `v${n}`,
      rawTx: `raw-v${n}`,
      sent: amount - fee,
      fee,
    });
    const sentRaw: string[] = [];
    const bumpedFrom: bigint[] = [];
    let mempool: string | null = null;
    let mined: { txHash: string; blockNumber: number } | null = null;
    const utxo: ChainAdapter = {
      ...sim,
      refundSpendsOutputs: true,
      bumpAfterMs: 60_000,
      buildRefund: async () => version(1, 1000n),
      bumpRefund: async (_intent, previous) => {
        bumpedFrom.push(previous.fee);
        return version(bumpedFrom.length + 1, previous.fee * 2n);
      },
      broadcast: async (rawTx) => {
        sentRaw.push(rawTx);
        if (mined === null) mempool = rawTx.slice(4);
      },
      forwardStatus: async (txHash) => {
        if (mined?.txHash === txHash)
          return { state: 'included', blockNumber: mined.blockNumber, blockHash: 'b' };
        return mempool === txHash && mined === null ? { state: 'pending' } : { state: 'unknown' };
      },
    };
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    const sending = (afterIntent?: (id: string) => void) =>
      createRefundSender({
        db: t.database.db,
        clock,
        adapter: utxo,
        payments: t.services.payments,
        ledger: refundLedger,
        payoutWallet: async () => '0x1111111111111111111111111111111111111111',
        refunds: t.services.refunds,
        afterIntent,
      });
    const row = async () =>
      (
        await queryRows<{
          status: string;
          tx_hash: string;
          fee: string;
          sent_amount: string;
          replaced: unknown;
        }>(
          t.database.db,
          sql`select status, tx_hash, fee, sent_amount, replaced from refunds where id = ${refundId}`,
        )
      )[0];

    await sending().run(); // v1 signed and broadcast
    await sending().run(); // waiting, but not for long yet: left alone
    expect(await row()).toMatchObject({ status: 'broadcast', tx_hash: 'v1', replaced: null });
    expect(bumpedFrom).toEqual([]);

    // Stuck past the bump interval: v2 is stored (the intent) and the process dies before its broadcast.
    offset = 61_000;
    await expect(
      sending(() => {
        throw new Error('crash after the bump was stored');
      }).run(),
    ).rejects.toThrow('crash after the bump was stored');
    expect(bumpedFrom).toEqual([1000n]);
    expect(sentRaw).toEqual(['raw-v1']);
    expect(await row()).toMatchObject({
      status: 'broadcast',
      tx_hash: 'v2',
      fee: '2000',
      sent_amount: (amount - 2000n).toString(),
      replaced: [{ txHash: 'v1', rawTx: 'raw-v1', fee: '1000', sentAmount: (amount - 1000n).toString() }],
    });
    // The next process: the stored v2 is what it sends (it replaces v1 in the mempool), never a third version.
    await sending().run();
    expect(sentRaw).toEqual(['raw-v1', 'raw-v2']);
    expect(mempool).toBe('v2');
    expect(bumpedFrom).toEqual([1000n]);

    // A miner had v1 all along: v1 is what the chain has, so v1 (its fee, what the payer got) is recorded.
    const height = (await refundLedger.cursorHeights(t.database.db)).get('ethereum:true') ?? 0;
    mined = { txHash: 'v1', blockNumber: height - 3 };
    await sending().run();
    expect(await row()).toMatchObject({
      status: 'sent',
      tx_hash: 'v1',
      fee: '1000',
      sent_amount: (amount - 1000n).toString(),
      replaced: [{ txHash: 'v2', rawTx: 'raw-v2', fee: '2000' }],
    });
  });

  it('a refund wallet too poor for a swept payment hands its refund to the merchant as a payment request', async () => {
    const { refundId } = await paidAndRefunded(10n ** 18n, '0.25');
    const to = REFUND_TO;
    // The deposit is swept (nothing to hold), and the chain's refund wallet holds too little.
    const asked: Array<string | null> = [];
    const poorWallet: ChainAdapter = Object.create(sim) as ChainAdapter;
    Object.assign(poorWallet, {
      buildRefund: async (intent: Parameters<NonNullable<ChainAdapter['buildRefund']>>[0]) => {
        asked.push(intent.from?.address ?? null);
        throw new RefundWalletShort('refund wallet 0xabc holds 0 wei, the refund needs 250000000000000000');
      },
    });
    const run = createRefundSender({
      db: t.database.db,
      clock: t.clock,
      adapter: poorWallet,
      payments: t.services.payments,
      ledger: { ...refundLedger, holdDepositsForRefund: async () => null },
      refunds: t.services.refunds,
    });
    expect(await run.run()).toMatchObject({ signed: 0, broadcast: 0, failed: 0 });
    expect(asked).toEqual([null]); // asked of the refund wallet, once
    const request = await t.services.refunds.get(principal(), refundId);
    expect(request).toMatchObject({
      status: 'awaiting_payment',
      source: 'merchant',
      tx_hash: null,
      payment_request: { amount_native: '0.25', to_address: to },
    });
    expect(request.last_error).toContain('holds 0 wei');
    expect(request.last_error).toContain('the merchant is asked to pay it');
    // Later rounds never go back to the wallet (nothing was signed, nothing can be sent twice).
    await run.run();
    expect(asked).toEqual([null]);
  });
});
