import type { Logger } from 'pino';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { PaymentRow, PaymentsService } from '../payments/service.ts';
import { type PaymentStatus, settledStatuses } from '../payments/statuses.ts';
import type { SettingsService } from '../settings/service.ts';
import type { ChainAdapter, ForwardIntent, ForwardUsage } from './adapter.ts';
import { SignerMismatchError } from './derivation-check.ts';
import { type DepositRow, type ForwardRow, chainsRepo as repo } from './repo.ts';

export interface ForwarderDeps {
  db: Db;
  clock: Clock;
  adapter: ChainAdapter;
  payments: Pick<PaymentsService, 'rowsByIds' | 'markForwarded'>;
  settings: Pick<SettingsService, 'payoutWallet'>;
  logger?: Logger | undefined;
  /** Payments one forwarding transaction sweeps at most. */
  batchSize?: number;
  /** Test seam: runs right after an intent is committed and before anything is broadcast (a test throws here). */
  afterIntent?: ((forwardId: string) => Promise<void> | void) | undefined;
}

export interface ForwardRunResult {
  planned: number;
  broadcast: number;
  finalized: number;
  /** Forwards whose transaction reverted on chain. */
  failed: number;
  /** What the finalized forwards cost in fees, in the chain's native base units. */
  fees: bigint;
}

class ForwardConflict extends Error {}

/** Unswept deposits read per query. */
const PAGE = 2000;
/** How long a batch too small for its fee waits before it is priced again (fees change). */
const DUST_RETRY_MS = 10 * 60_000;

/** Splits `fee` over shares in proportion to their amounts; the rounding remainder goes to the first share. */
export function splitFee(
  fee: bigint,
  shares: Array<{ id: string; amount: bigint }>,
): Array<{ id: string; fee: bigint }> {
  const total = shares.reduce((sum, share) => sum + share.amount, 0n);
  if (total === 0n) return shares.map((share, index) => ({ id: share.id, fee: index === 0 ? fee : 0n }));
  const parts = shares.map((share) => ({ id: share.id, fee: (fee * share.amount) / total }));
  const rest = fee - parts.reduce((sum, part) => sum + part.fee, 0n);
  if (parts[0] !== undefined) parts[0].fee += rest;
  return parts;
}

/**
 * Forwards (sweeps) final funds to the merchant's payout wallet, for one chain and mode. Three steps, each safe to
 * repeat after a crash at any point:
 * 1. Plan: final deposits not yet swept, of payments whose status is settled (completed, overpaid, expired), grouped
 *    per merchant and asset and batched, become an `intent` row that holds the signed transaction and its hash; the
 *    deposits are tied to it in the same transaction. Nothing is sent yet.
 * 2. Broadcast every intent: the recorded transaction, never a rebuilt one, so a crash between 1 and 2 (or a lost
 *    broadcast) sends the SAME transaction again, which the chain takes once.
 * 3. Once the transaction has the chain's confirmations, one transaction marks the forward final, sets forwarded_at,
 *    forward_tx_hash and each payment's fee share, and records payment.completed for each payment.
 */
export function createForwarder(deps: ForwarderDeps) {
  const { db, clock, adapter } = deps;
  const { chain, isTest } = adapter;
  const batchSize = Math.min(deps.batchSize ?? 50, adapter.maxForwardInputs ?? Number.POSITIVE_INFINITY);
  const warned = new Set<string>();
  /** Deposits found too small to pay their fee: left out of batches (an RPC round for a node each) for a while. */
  const dust = new Map<string, number>();

  async function plan(): Promise<number> {
    let planned = 0;
    let after: { finalAt: Date; id: string } | undefined;
    // Page through every unswept final deposit: those of payments still open are skipped, not left blocking.
    for (;;) {
      const page = await repo.unforwardedDeposits(db, chain, isTest, PAGE, after);
      if (page.length > 0) planned += await planPage(page);
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined || last.finalAt === null) return planned;
      after = { finalAt: last.finalAt, id: last.id };
    }
  }

  async function planPage(candidates: DepositRow[]): Promise<number> {
    const rows = await deps.payments.rowsByIds([...new Set(candidates.map((deposit) => deposit.paymentId))]);
    const payments = new Map(rows.map((row) => [row.id, row]));
    const groups = new Map<string, Array<{ deposit: DepositRow; payment: PaymentRow }>>();
    for (const deposit of candidates) {
      const payment = payments.get(deposit.paymentId);
      if (payment === undefined || !settledStatuses.includes(payment.status as PaymentStatus)) continue;
      const key = `${payment.merchantId}\u0000${deposit.asset}`;
      const list = groups.get(key) ?? [];
      list.push({ deposit, payment });
      groups.set(key, list);
    }
    let planned = 0;
    for (const items of groups.values()) {
      const first = items[0];
      if (first === undefined) continue;
      const merchantId = first.payment.merchantId;
      const to = await deps.settings.payoutWallet(db, merchantId, isTest, chain);
      if (to === null && !isTest) {
        if (!warned.has(merchantId)) {
          deps.logger?.warn({ chain, merchantId }, 'final live funds wait for a payout wallet on this chain');
          warned.add(merchantId);
        }
        continue;
      }
      // Batches of at most `batchSize` payments.
      const paymentOrder = [...new Set(items.map((item) => item.payment.id))];
      for (let start = 0; start < paymentOrder.length; start += batchSize) {
        const batch = new Set(paymentOrder.slice(start, start + batchSize));
        const batchItems = items.filter((item) => batch.has(item.payment.id));
        if (await planOne(merchantId, first.deposit.asset, to, batchItems)) planned += 1;
      }
    }
    return planned;
  }

  async function planOne(
    merchantId: string,
    asset: string,
    to: string | null,
    candidates: Array<{ deposit: DepositRow; payment: PaymentRow }>,
  ): Promise<boolean> {
    const nowMs = Date.now();
    for (const [id, until] of dust) if (until <= nowMs) dust.delete(id); // priced again from now on
    let items = candidates.filter((item) => !dust.has(item.deposit.id));
    if (items.length === 0) return false;
    const policy = adapter.sweepPolicy;
    if (policy !== undefined && items.length < policy.minDeposits) {
      // A small batch waits for more deposits, until its oldest has waited long enough.
      const oldest = Math.min(...items.map((item) => item.deposit.finalAt?.getTime() ?? nowMs));
      if (clock.now().getTime() - oldest < policy.maxWaitMs) return false;
    }
    const inputs = new Map<string, ForwardIntent['inputs'][number]>();
    for (const { deposit, payment } of items) {
      const input = inputs.get(deposit.address) ?? {
        address: deposit.address,
        derivationIndex: payment.derivationIndex,
        amount: 0n,
        outputs: [],
      };
      // What refunds sent back from the address is not there to sweep.
      input.amount += BigInt(deposit.amount) - BigInt(deposit.refunded);
      input.outputs?.push({
        txHash: deposit.txHash,
        outputIndex: deposit.outputIndex,
        amount: BigInt(deposit.amount),
      });
      inputs.set(deposit.address, input);
    }
    const id = newId('fwd');
    let built: Awaited<ReturnType<ChainAdapter['buildForward']>>;
    try {
      built = await adapter.buildForward({ id, asset, inputs: [...inputs.values()], to });
    } catch (error) {
      if (!(error instanceof SignerMismatchError)) throw error;
      await refuse(id, merchantId, asset, to, items, error);
      return false;
    }
    const leftAddresses = new Set(built.amount <= 0n ? inputs.keys() : (built.left ?? []));
    if (leftAddresses.size > 0) {
      const left = items.filter((item) => leftAddresses.has(item.deposit.address));
      deps.logger?.warn(
        { chain, merchantId, asset, payments: [...new Set(left.map((item) => item.payment.id))] },
        'deposits too small to pay their forwarding fee; left in place (dust)',
      );
      for (const item of left) dust.set(item.deposit.id, nowMs + DUST_RETRY_MS);
      // Shown on the payment's deposits (left_as_dust_at), not only in this log.
      await repo.markLeftAsDust(
        db,
        left.map((item) => item.deposit.id),
        clock.now(),
      );
      // Only what the transaction moves is tied to it: the rest is never reported as forwarded.
      items = items.filter((item) => !leftAddresses.has(item.deposit.address));
      if (built.amount <= 0n || items.length === 0) return false;
    }
    const now = clock.now();
    const depositIds = items.map((item) => item.deposit.id);
    const row: ForwardRow = {
      id,
      merchantId,
      chain,
      isTest,
      asset,
      state: 'intent',
      paymentIds: [...new Set(items.map((item) => item.payment.id))],
      amount: built.amount.toString(),
      fee: built.fee.toString(),
      energyUsed: null,
      energyDelegated: null,
      toAddress: to,
      rawTx: built.rawTx,
      txHash: built.txHash,
      blockNumber: null,
      broadcastCount: 0,
      lastError: null,
      createdAt: now,
      broadcastAt: null,
      finalAt: null,
      updatedAt: now,
    };
    try {
      await db.transaction(async (tx) => {
        if ((await repo.assignForward(tx, depositIds, id)) !== depositIds.length) throw new ForwardConflict();
        await repo.insertForward(tx, row);
      });
    } catch (error) {
      if (error instanceof ForwardConflict) return false;
      throw error;
    }
    await deps.afterIntent?.(id);
    return true;
  }

  /**
   * A key that does not sign for its deposit address stopped the sweep before any signature: the forward is recorded
   * as failed with the reason, its deposits tied to it so that it is never built again on its own (an operator must
   * look: a wrong key means a derivation bug), and nothing is broadcast. Its payments stay unforwarded.
   */
  async function refuse(
    id: string,
    merchantId: string,
    asset: string,
    to: string | null,
    items: Array<{ deposit: DepositRow; payment: PaymentRow }>,
    error: SignerMismatchError,
  ): Promise<void> {
    const now = clock.now();
    const depositIds = items.map((item) => item.deposit.id);
    const reason = `signer_mismatch: ${error.message}`;
    deps.logger?.error(
      { chain, merchantId, forward: id, depositAddress: error.depositAddress, keyAddress: error.keyAddress },
      'sweep refused before signing: the derived key does not belong to the deposit address',
    );
    try {
      await db.transaction(async (tx) => {
        if ((await repo.assignForward(tx, depositIds, id)) !== depositIds.length) throw new ForwardConflict();
        await repo.insertForward(tx, {
          id,
          merchantId,
          chain,
          isTest,
          asset,
          state: 'failed',
          paymentIds: [...new Set(items.map((item) => item.payment.id))],
          amount: '0',
          fee: '0',
          energyUsed: null,
          energyDelegated: null,
          toAddress: to,
          rawTx: '',
          txHash: '',
          blockNumber: null,
          broadcastCount: 0,
          lastError: reason,
          createdAt: now,
          broadcastAt: null,
          finalAt: null,
          updatedAt: now,
        });
      });
    } catch (conflict) {
      if (!(conflict instanceof ForwardConflict)) throw conflict;
    }
  }

  async function broadcast(forward: ForwardRow): Promise<boolean> {
    try {
      await adapter.broadcast(forward.rawTx);
      await repo.markBroadcast(db, forward.id, clock.now(), null);
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.logger?.warn(
        { chain, forward: forward.id, err: message },
        'forwarding broadcast failed; will retry',
      );
      await repo.noteForwardError(db, forward.id, clock.now(), message);
      return false;
    }
  }

  /** The intent of a forward's inputs as they are: the same deposits, for a replacement with the same inputs. */
  async function intentOf(forward: ForwardRow): Promise<ForwardIntent> {
    const deposits = await repo.depositsOfForward(db, forward.id);
    const rows = await deps.payments.rowsByIds([...new Set(deposits.map((deposit) => deposit.paymentId))]);
    const indexOf = new Map(rows.map((row) => [row.id, row.derivationIndex]));
    const inputs = new Map<string, ForwardIntent['inputs'][number]>();
    for (const deposit of deposits) {
      const derivationIndex = indexOf.get(deposit.paymentId);
      if (derivationIndex === undefined)
        throw new Error(`forward ${forward.id}: payment ${deposit.paymentId} missing`);
      const input = inputs.get(deposit.address) ?? {
        address: deposit.address,
        derivationIndex,
        amount: 0n,
        outputs: [],
      };
      // What refunds sent back from the address is not there to sweep.
      input.amount += BigInt(deposit.amount) - BigInt(deposit.refunded);
      input.outputs?.push({
        txHash: deposit.txHash,
        outputIndex: deposit.outputIndex,
        amount: BigInt(deposit.amount),
      });
      inputs.set(deposit.address, input);
    }
    return { id: forward.id, asset: forward.asset, inputs: [...inputs.values()], to: forward.toAddress };
  }

  /**
   * A forward whose current version has waited unconfirmed for `bumpAfterMs`: a replacement with the same inputs and a
   * higher fee is signed, stored as the forward's version (the stuck one kept among its versions) in one transaction,
   * and only then broadcast.
   */
  async function bumpIfStuck(forward: ForwardRow): Promise<boolean> {
    const bumpAfterMs = adapter.bumpAfterMs;
    if (adapter.bumpForward === undefined || bumpAfterMs === undefined) return false;
    const nowMs = clock.now().getTime();
    if (nowMs - forward.createdAt.getTime() < bumpAfterMs) return false;
    const versions = await repo.forwardVersions(db, forward.id);
    const since = versions.at(-1)?.replacedAt ?? forward.createdAt;
    if (nowMs - since.getTime() < bumpAfterMs) return false;
    const built = await adapter.bumpForward(await intentOf(forward), { fee: BigInt(forward.fee) });
    if (built === null) return false;
    const now = clock.now();
    const switched = await db.transaction((tx) =>
      repo.switchForwardVersion(
        tx,
        { ...forward, since },
        {
          txHash: built.txHash,
          rawTx: built.rawTx,
          fee: built.fee.toString(),
          amount: built.amount.toString(),
        },
        now,
      ),
    );
    if (!switched) return false;
    deps.logger?.warn(
      {
        chain,
        isTest,
        forward: forward.id,
        replaced: forward.txHash,
        by: built.txHash,
        fee: built.fee.toString(),
      },
      'stuck sweep replaced by a higher fee (same inputs); every version is kept, one will count',
    );
    await broadcast({ ...forward, txHash: built.txHash, rawTx: built.rawTx });
    return true;
  }

  /**
   * The current version provably never lands (`expired`): a new version is signed (the adapter checks the expiry again
   * from the stored version's hash), stored as the forward's version in one transaction, and only then broadcast.
   */
  async function resignExpired(forward: ForwardRow): Promise<boolean> {
    if (adapter.bumpForward === undefined) return false;
    const built = await adapter.bumpForward(await intentOf(forward), {
      fee: BigInt(forward.fee),
      txHash: forward.txHash,
    });
    if (built === null) return false;
    const versions = await repo.forwardVersions(db, forward.id);
    const since = versions.at(-1)?.replacedAt ?? forward.createdAt;
    const now = clock.now();
    const switched = await db.transaction((tx) =>
      repo.switchForwardVersion(
        tx,
        { ...forward, since },
        {
          txHash: built.txHash,
          rawTx: built.rawTx,
          fee: built.fee.toString(),
          amount: built.amount.toString(),
        },
        now,
      ),
    );
    if (!switched) return false;
    deps.logger?.warn(
      { chain, isTest, forward: forward.id, expired: forward.txHash, by: built.txHash },
      'sweep expired without landing: a new version was signed; every version is kept',
    );
    await broadcast({ ...forward, txHash: built.txHash, rawTx: built.rawTx });
    return true;
  }

  /**
   * The current version is unknown to the chain: an earlier version may be the one that reached a block (or still
   * waits). That version becomes the forward's (the current one kept among the versions); null when none is known.
   */
  async function earlierVersion(
    forward: ForwardRow,
  ): Promise<{ forward: ForwardRow; status: Awaited<ReturnType<ChainAdapter['forwardStatus']>> } | null> {
    if (adapter.bumpForward === undefined) return null;
    const versions = await repo.forwardVersions(db, forward.id);
    for (const version of versions) {
      const status = await adapter.forwardStatus(version.txHash);
      if (status.state === 'unknown' || status.state === 'expired') continue;
      const now = clock.now();
      const since = versions.at(-1)?.replacedAt ?? forward.createdAt;
      const switched = await db.transaction((tx) =>
        repo.switchForwardVersion(tx, { ...forward, since }, version, now),
      );
      if (!switched) return null;
      deps.logger?.warn(
        { chain, isTest, forward: forward.id, counted: version.txHash, dropped: forward.txHash },
        'an earlier version of the sweep is the one the chain has: it is the one counted',
      );
      return {
        forward: {
          ...forward,
          txHash: version.txHash,
          rawTx: version.rawTx,
          fee: version.fee,
          amount: version.amount,
        },
        status,
      };
    }
    return null;
  }

  /**
   * `charged`: the fee the chain actually took, when the adapter knows it (else the signed one); `usage`: the energy it
   * used, where the chain charges it. Both are written with the outcome, in its transaction.
   */
  async function finalize(
    forward: ForwardRow,
    blockNumber: number,
    charged: bigint | undefined,
    usage: ForwardUsage | undefined,
  ): Promise<bigint | null> {
    const now = clock.now();
    return db.transaction(async (tx) => {
      if (!(await repo.markForwardFinal(tx, forward.id, blockNumber, now, charged, usage))) return null;
      const shares = await repo.forwardShares(tx, forward.id);
      const fees = splitFee(
        charged ?? BigInt(forward.fee),
        shares.map((share) => ({ id: share.paymentId, amount: share.amount })),
      );
      await deps.payments.markForwarded(tx, fees, forward.txHash, now);
      return charged ?? BigInt(forward.fee);
    });
  }

  return {
    async run(): Promise<ForwardRunResult> {
      const result: ForwardRunResult = {
        planned: await plan(),
        broadcast: 0,
        finalized: 0,
        failed: 0,
        fees: 0n,
      };
      const open = await repo.openForwards(db, chain, isTest);
      if (open.length === 0) return result;
      const height = (await repo.cursor(db, chain, isTest))?.blockNumber;
      for (let forward of open) {
        if (forward.state === 'intent') {
          if (await broadcast(forward)) result.broadcast += 1;
          continue;
        }
        let status = await adapter.forwardStatus(forward.txHash);
        if (status.state === 'unknown') {
          const earlier = await earlierVersion(forward);
          if (earlier !== null) ({ forward, status } = earlier);
        }
        if (status.state === 'pending') {
          if (await bumpIfStuck(forward)) result.broadcast += 1;
        } else if (status.state === 'expired') {
          if (await resignExpired(forward)) result.broadcast += 1;
        } else if (status.state === 'unknown') {
          // Dropped (or never arrived): send the very same transaction again.
          if (await broadcast(forward)) result.broadcast += 1;
        } else if (
          status.state === 'included' &&
          height !== undefined &&
          height - status.blockNumber + 1 >= adapter.requiredConfirmations
        ) {
          if (status.reverted !== undefined) {
            // Nothing moved: never reported as swept, and never retried on its own (a payout contract that
            // rejects the transfer would burn gas on every round). The deposits wait, tied to it, for the operator.
            if (
              await repo.markForwardFailed(db, forward.id, status.blockNumber, clock.now(), status.reverted)
            ) {
              deps.logger?.error(
                { chain, isTest, forward: forward.id, payments: forward.paymentIds, reason: status.reverted },
                'sweep reverted on chain: forward failed, its payments stay unforwarded for the operator',
              );
              result.failed += 1;
            }
          } else {
            const fee = await finalize(forward, status.blockNumber, status.fee, status.usage);
            if (fee !== null) {
              result.finalized += 1;
              result.fees += fee;
            }
          }
        }
      }
      return result;
    },
  };
}
