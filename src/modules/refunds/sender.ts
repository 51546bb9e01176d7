import type { Logger } from 'pino';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  addressKey,
  type BlockRef,
  type BuiltRefund,
  type ChainAdapter,
  type RefundIntent,
  RefundRefused,
  RefundWalletShort,
  type Transfer,
} from '../chains/adapter.ts';
import type { RefundLedger } from '../chains/ledger.ts';
import type { ChainId } from '../chains/registry.ts';
import type { PaymentsService } from '../payments/service.ts';
import { type RefundRow, refundsRepo as repo } from './repo.ts';
import type { RefundsService } from './service.ts';

export interface RefundSenderDeps {
  db: Db;
  clock: Clock;
  adapter: ChainAdapter;
  payments: Pick<PaymentsService, 'lockForRefund' | 'rowsByIds'>;
  ledger: Pick<
    RefundLedger,
    'holdDepositsForRefund' | 'releaseRefundHold' | 'depositOutputs' | 'cursorHeights'
  >;
  /**
   * The merchant's payout wallet on the chain in this mode (null: none): where a UTXO refund sends what the outputs
   * it spends hold beyond the refund.
   */
  payoutWallet?: ((merchantId: string, isTest: boolean, chain: string) => Promise<string | null>) | undefined;
  refunds: Pick<RefundsService, 'record' | 'autoRefundOverpaid'>;
  logger?: Logger | undefined;
  /** Test seam: runs right after a refund's signed transaction is committed, before it is broadcast. */
  afterIntent?: ((refundId: string) => Promise<void> | void) | undefined;
}

export interface RefundRunResult {
  signed: number;
  broadcast: number;
  sent: number;
  failed: number;
}

/**
 * Sends the refunds of one chain and mode, in the chain's settlement loop (one process at a time). The steps mirror
 * the forwarder's, each safe to repeat after a crash at any point:
 * 1. A `queued` refund gets its source, with the payment locked: its deposit address while the payment's unswept
 *    deposits in its asset still hold the amount (they are then held: the forwarder leaves them alone until the refund
 *    is final or failed), else the chain's refund wallet, else a payment request the merchant pays (`awaiting_payment`).
 *    A refund wallet that cannot pay it (RefundWalletShort, read from its balances when signing) hands it to the
 *    merchant the same way.
 * 2. Its transaction is built and signed, and stored with its hash (`pending`): the intent, committed BEFORE anything
 *    is broadcast. A refund that cannot be sent as asked (worth less than its fee) fails and frees its amount.
 * 3. Broadcast: the stored transaction, never a rebuilt one, so a crash between 2 and 3 re-sends the SAME transaction,
 *    which the chain takes once.
 * 4. A transaction the chain says can never land (`expired`: Solana, Tron) goes back to step 2 and is signed anew.
 *    UTXO chains: one waiting in the mempool past the adapter's `bumpAfterMs` is replaced by a higher fee on the same
 *    inputs (`bumpRefund`), stored before its broadcast; a current version the node does not know gives way to an
 *    earlier one in a block (that one is recorded), else is sent again as it is.
 * 5. Once it has the chain's confirmations: `sent` (what each deposit gave is recorded, so sweeps take only the rest)
 *    and `refund.sent`; a reverted one: `failed`, its deposits freed, and `refund.failed`.
 */
export function createRefundSender(deps: RefundSenderDeps) {
  const { db, clock, adapter, ledger } = deps;
  const { chain, isTest } = adapter;

  async function fail(row: RefundRow, from: string[], reason: string): Promise<boolean> {
    return db.transaction(async (tx) => {
      const now = clock.now();
      const failed = await repo.transition(tx, row.id, from, {
        status: 'failed',
        lastError: reason,
        failedAt: now,
        updatedAt: now,
      });
      if (failed === undefined) return false;
      await ledger.releaseRefundHold(tx, row.id, null);
      await deps.refunds.record(tx, 'refund.failed', failed, reason);
      deps.logger?.warn(
        { chain, isTest, refund: row.id, reason },
        'refund failed; its amount is refundable again',
      );
      return true;
    });
  }

  /** Step 1: where the refund is sent from. Returns the row as it is now (undefined when another round moved it). */
  async function chooseSource(row: RefundRow): Promise<RefundRow | undefined> {
    if (row.source !== null) return row;
    return db.transaction(async (tx) => {
      const payment = await deps.payments.lockForRefund(tx, row.paymentId);
      if (payment === undefined) throw new Error(`refund ${row.id}: payment ${row.paymentId} missing`);
      const now = clock.now();
      const allocations = await ledger.holdDepositsForRefund(
        tx,
        payment.id,
        row.asset,
        row.id,
        BigInt(row.amount),
      );
      if (allocations !== null) {
        return repo.transition(tx, row.id, ['queued'], {
          source: 'deposit',
          fromAddress: payment.address,
          allocations,
          updatedAt: now,
        });
      }
      if (adapter.refundWallet === true) {
        return repo.transition(tx, row.id, ['queued'], { source: 'refund_wallet', updatedAt: now });
      }
      // Swept already and no wallet of ours can pay: the merchant pays it, the dashboard shows the request.
      return repo.transition(tx, row.id, ['queued'], {
        source: 'merchant',
        status: 'awaiting_payment',
        fee: '0',
        sentAmount: row.amount,
        updatedAt: now,
      });
    });
  }

  /**
   * The refund wallet cannot pay this refund now: it becomes the merchant's payment request at once (what the
   * dashboard shows for swept payments without a refund wallet), its reason kept in `last_error`, rather than waiting
   * unseen until the operator funds the wallet. Nothing was signed, so nothing can be sent twice.
   */
  async function toMerchant(row: RefundRow, reason: string): Promise<void> {
    const now = clock.now();
    await repo.transition(db, row.id, ['queued'], {
      source: 'merchant',
      status: 'awaiting_payment',
      fee: '0',
      sentAmount: row.amount,
      lastError: `${reason}; the merchant is asked to pay it`,
      updatedAt: now,
    });
  }

  /** What the refund's transaction must do: from its source (a deposit's outputs on UTXO chains) to the payer. */
  async function intentOf(row: RefundRow, to: string): Promise<RefundIntent> {
    let from: RefundIntent['from'] = null;
    let change: string | null = null;
    if (row.source === 'deposit') {
      const [payment] = await deps.payments.rowsByIds([row.paymentId]);
      if (payment === undefined) throw new Error(`refund ${row.id}: payment ${row.paymentId} missing`);
      from = { address: payment.address, derivationIndex: payment.derivationIndex };
      if (adapter.refundSpendsOutputs === true) {
        // UTXO chains: the held deposits' outputs, spent whole; what they hold beyond the refund goes to the payout.
        const outputs = await ledger.depositOutputs(
          db,
          (row.allocations ?? []).map((allocation) => allocation.depositId),
        );
        from.outputs = outputs.map(({ txHash, outputIndex, amount }) => ({ txHash, outputIndex, amount }));
        change = (await deps.payoutWallet?.(payment.merchantId, isTest, chain)) ?? null;
      }
    }
    return {
      id: row.id,
      asset: row.asset,
      amount: BigInt(row.amount),
      to,
      from,
      ...(adapter.refundSpendsOutputs === true ? { change } : {}),
    };
  }

  /** Step 2: signs and stores the intent. True when a refund became `pending`. */
  async function sign(queued: RefundRow): Promise<boolean> {
    const row = await chooseSource(queued);
    if (row === undefined || row.status !== 'queued' || row.toAddress === null) return false;
    const build = adapter.buildRefund;
    if (build === undefined) return fail(row, ['queued'], `${chain} cannot send refunds`);
    const intent = await intentOf(row, row.toAddress);
    let built: BuiltRefund;
    try {
      built = await build(intent);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof RefundRefused) return fail(row, ['queued'], message);
      if (error instanceof RefundWalletShort) {
        await toMerchant(row, message);
        return false;
      }
      await repo.noteError(db, row.id, message, clock.now());
      deps.logger?.warn({ chain, isTest, refund: row.id, err: message }, 'refund not signed yet; will retry');
      return false;
    }
    const now = clock.now();
    const stored = await repo.transition(db, row.id, ['queued'], {
      status: 'pending',
      rawTx: built.rawTx,
      txHash: built.txHash,
      sentAmount: built.sent.toString(),
      fee: built.fee.toString(),
      lastError: null,
      updatedAt: now,
    });
    if (stored === undefined) return false;
    await deps.afterIntent?.(row.id);
    return true;
  }

  async function broadcast(row: RefundRow): Promise<boolean> {
    if (row.rawTx === null) return false;
    try {
      await adapter.broadcast(row.rawTx);
      await repo.markBroadcast(db, row.id, clock.now());
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger?.warn(
        { chain, isTest, refund: row.id, err: message },
        'refund broadcast failed; will retry',
      );
      await repo.noteError(db, row.id, message, clock.now());
      return false;
    }
  }

  /** A refund the merchant paid, seen in `blockNumber`: sent once that block has the chain's confirmations. */
  async function settleMerchantPaid(row: RefundRow, height: number | undefined): Promise<boolean> {
    if (row.blockNumber === null || height === undefined) return false;
    if (height - row.blockNumber + 1 < adapter.requiredConfirmations) return false;
    return db.transaction(async (tx) => {
      const now = clock.now();
      const sent = await repo.transition(tx, row.id, ['broadcast'], {
        status: 'sent',
        sentAt: now,
        updatedAt: now,
      });
      if (sent === undefined) return false;
      await deps.refunds.record(tx, 'refund.sent', sent);
      return true;
    });
  }

  /** Step 4: a broadcast refund with its confirmations is sent (or failed, when it reverted). */
  /**
   * UTXO chains: a refund whose current version has waited in the mempool for the family's bump interval is replaced
   * by a higher-fee version on the same inputs (paid out of what the payer gets, within the fee cap). The new version
   * is stored as the refund's transaction, the stuck one kept in `replaced`, BEFORE it is broadcast: after a crash the
   * stored version is sent again, and since every version spends the same outputs, only one of them can land.
   */
  async function bumpIfStuck(row: RefundRow): Promise<boolean> {
    const bumpAfterMs = adapter.bumpAfterMs;
    const bump = adapter.bumpRefund;
    if (bump === undefined || bumpAfterMs === undefined) return false;
    if (row.source !== 'deposit' || row.toAddress === null || row.txHash === null || row.rawTx === null) {
      return false;
    }
    const last = row.replaced?.at(-1)?.replacedAt;
    const since = last === undefined ? (row.broadcastAt ?? row.updatedAt) : new Date(last);
    const now = clock.now();
    if (now.getTime() - since.getTime() < bumpAfterMs) return false;
    let built: BuiltRefund | null;
    try {
      built = await bump(await intentOf(row, row.toAddress), { fee: BigInt(row.fee ?? '0') });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await repo.noteError(db, row.id, `stuck refund not replaced: ${message}`, now);
      return false;
    }
    if (built === null) return false;
    const stored = await repo.replaceVersion(db, row.id, row.txHash, {
      txHash: built.txHash,
      rawTx: built.rawTx,
      fee: built.fee.toString(),
      sentAmount: built.sent.toString(),
      replaced: [
        ...(row.replaced ?? []),
        {
          txHash: row.txHash,
          rawTx: row.rawTx,
          fee: row.fee ?? '0',
          sentAmount: row.sentAmount ?? '0',
          replacedAt: now.toISOString(),
        },
      ],
      updatedAt: now,
    });
    if (stored === undefined) return false;
    deps.logger?.warn(
      { chain, isTest, refund: row.id, replaced: row.txHash, by: built.txHash, fee: built.fee.toString() },
      'stuck refund replaced by a higher fee (same inputs); the payer gets less by the difference',
    );
    await deps.afterIntent?.(row.id);
    return broadcast(stored);
  }

  /**
   * The current version is unknown to the chain: a version it replaced may be the one in a block. That one becomes
   * the refund's transaction (its fee and what the payer got with it), the current one kept in `replaced`.
   */
  async function earlierVersion(
    row: RefundRow,
  ): Promise<{ row: RefundRow; status: Awaited<ReturnType<ChainAdapter['forwardStatus']>> } | null> {
    const versions = row.replaced ?? [];
    if (versions.length === 0 || row.txHash === null || row.rawTx === null) return null;
    for (const version of versions) {
      const status = await adapter.forwardStatus(version.txHash);
      if (status.state !== 'included') continue;
      const now = clock.now();
      const switched = await repo.replaceVersion(db, row.id, row.txHash, {
        txHash: version.txHash,
        rawTx: version.rawTx,
        fee: version.fee,
        sentAmount: version.sentAmount,
        replaced: [
          ...versions.filter((v) => v.txHash !== version.txHash),
          {
            txHash: row.txHash,
            rawTx: row.rawTx,
            fee: row.fee ?? '0',
            sentAmount: row.sentAmount ?? '0',
            replacedAt: now.toISOString(),
          },
        ],
        updatedAt: now,
      });
      if (switched === undefined) return null;
      deps.logger?.warn(
        { chain, isTest, refund: row.id, counted: version.txHash, dropped: row.txHash },
        'an earlier version of the refund is the one the chain has: it is the one recorded',
      );
      return { row: switched, status };
    }
    return null;
  }

  async function settle(row: RefundRow, height: number | undefined): Promise<'sent' | 'failed' | null> {
    if (row.source === 'merchant') return (await settleMerchantPaid(row, height)) ? 'sent' : null;
    if (row.txHash === null) return null;
    let status = await adapter.forwardStatus(row.txHash);
    if (status.state === 'unknown') {
      // A version a fee bump replaced may be the one the chain mined: that one is recorded.
      const earlier = await earlierVersion(row);
      if (earlier === null) {
        // Dropped, or never arrived (a crash right after a bump was stored): the very same transaction again. An
        // earlier version still waiting in the mempool is replaced by it (it pays more, on the same inputs).
        await broadcast(row);
        return null;
      }
      ({ row, status } = earlier);
    }
    if (status.state === 'pending') {
      await bumpIfStuck(row);
      return null;
    }
    if (status.state === 'expired') {
      // Provably never to land (Solana: its blockhash past its life at finalized; Tron: its expiration older than the
      // solidified block): signed again from the same source, as a sweep is.
      const now = clock.now();
      await repo.transition(db, row.id, ['broadcast'], {
        status: 'queued',
        rawTx: null,
        txHash: null,
        lastError: `transaction ${row.txHash} expired unseen: signed again`,
        updatedAt: now,
      });
      deps.logger?.warn(
        { chain, isTest, refund: row.id, expired: row.txHash },
        'refund expired unseen; signing again',
      );
      return null;
    }
    if (status.state !== 'included' || height === undefined) return null;
    if (height - status.blockNumber + 1 < adapter.requiredConfirmations) return null;
    if (status.reverted !== undefined) {
      return (await fail(row, ['broadcast'], status.reverted)) ? 'failed' : null;
    }
    const done = await db.transaction(async (tx) => {
      const now = clock.now();
      const sent = await repo.transition(tx, row.id, ['broadcast'], {
        status: 'sent',
        blockNumber: status.blockNumber,
        sentAt: now,
        updatedAt: now,
        ...(status.fee === undefined ? {} : { fee: status.fee.toString() }),
      });
      if (sent === undefined) return false;
      await ledger.releaseRefundHold(
        tx,
        row.id,
        row.source === 'deposit' ? row.allocations : null,
        row.source === 'deposit' && adapter.refundSpendsOutputs === true,
      );
      await deps.refunds.record(tx, 'refund.sent', sent);
      return true;
    });
    return done ? 'sent' : null;
  }

  return {
    /** Whether refunds wait for blocks (a simulated chain at rest makes none). */
    async hasOpenWork(): Promise<boolean> {
      return (await repo.openRaw(db, chain, isTest)).length > 0;
    },

    async run(): Promise<RefundRunResult> {
      const result: RefundRunResult = { signed: 0, broadcast: 0, sent: 0, failed: 0 };
      await deps.refunds.autoRefundOverpaid(chain, isTest);
      const open = await repo.open(db, chain, isTest);
      if (open.length === 0) return result;
      const height = (await ledger.cursorHeights(db)).get(`${chain}:${isTest}`);
      for (const row of open) {
        if (row.status === 'queued') {
          if (await sign(row)) {
            result.signed += 1;
            const signed = await repo.find(db, row.id);
            if (signed?.status === 'pending' && (await broadcast(signed))) result.broadcast += 1;
          }
        } else if (row.status === 'pending') {
          if (await broadcast(row)) result.broadcast += 1;
        } else if (row.status === 'broadcast') {
          const outcome = await settle(row, height);
          if (outcome === 'sent') result.sent += 1;
          if (outcome === 'failed') result.failed += 1;
        }
      }
      return result;
    },
  };
}

/**
 * The watcher's outside watch for refunds the merchant pays from their own wallet (`awaiting_payment`): their payers'
 * addresses are scanned like deposit addresses, and a transfer of the refund's asset of at least its amount, in a block
 * after the request, marks it broadcast (that transaction, that block); the sender makes it `sent` once the block has
 * its confirmations. One transfer pays one refund, the oldest first.
 */
export const merchantPaidRefunds = {
  async addresses(db: Db, chain: string, isTest: boolean): Promise<string[]> {
    return (await repo.awaitingPayment(db, chain, isTest)).flatMap((row) =>
      row.toAddress === null ? [] : [row.toAddress],
    );
  },

  async found(
    tx: Db,
    chain: string,
    isTest: boolean,
    transfers: Array<Transfer & { block: BlockRef }>,
    now: Date,
  ): Promise<void> {
    const waiting = await repo.awaitingPayment(tx, chain, isTest);
    for (const transfer of transfers) {
      const key = addressKey(chain as ChainId, transfer.to);
      const match = waiting.find(
        (row) =>
          row.toAddress !== null &&
          addressKey(chain as ChainId, row.toAddress) === key &&
          row.asset === transfer.asset &&
          transfer.amount >= BigInt(row.amount) &&
          transfer.block.timestamp.getTime() >= (row.addressAt ?? row.createdAt).getTime() - 60_000,
      );
      if (match === undefined) continue;
      waiting.splice(waiting.indexOf(match), 1);
      await repo.transition(tx, match.id, ['awaiting_payment'], {
        status: 'broadcast',
        txHash: transfer.txHash,
        blockNumber: transfer.block.number,
        sentAmount: transfer.amount.toString(),
        broadcastAt: now,
        updatedAt: now,
      });
    }
  },
};
