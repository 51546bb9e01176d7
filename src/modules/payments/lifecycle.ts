import type { Db } from '../../db/client.ts';
import type { RatesService } from '../rates/service.ts';
import type { SettingsService } from '../settings/service.ts';
import { exactTolerances } from '../settings/service.ts';
import type { EventsService, RecordPaymentEventInput } from '../webhooks/events/service.ts';
import { type DepositLedger, noDeposits } from './deposit-facts.ts';
import { amounts, snapshot, toleranceOf } from './model.ts';
import { isPicked, type PaymentRow, type PaymentsRepo, type SettlementUpdate } from './repo.ts';
import { nextState } from './state-machine.ts';
import type { PaymentStatus } from './statuses.ts';

export interface PaymentLifecycleDeps {
  db: Db;
  repo: PaymentsRepo;
  /** Deposits as the chains module recorded them: read inside the settling transaction. */
  ledger: Pick<DepositLedger, 'depositFacts'>;
  settings: Pick<SettingsService, 'tolerancesFor'>;
  /** The outbox: every status change writes its events in the same transaction. */
  events: Pick<EventsService, 'recordPaymentEvent' | 'recordPaymentEvents'>;
  /**
   * The rate at confirmation (exports' value at confirmation): the one already known when the payment is settled (no
   * price feed is asked while the settling transaction holds its locks), else fetched right after by
   * `fillConfirmationRates`.
   */
  rates?: Pick<RatesService, 'getRate' | 'cachedRate'> | undefined;
  /**
   * Inside the settling transaction, for payments that just became paid (completed or overpaid) for the first time:
   * the payer's receipt is queued here (notices' outbox), so it is mailed exactly when the payment is confirmed.
   */
  onPaid?: ((tx: Db, paid: PaidPayment[], now: Date) => Promise<void>) | undefined;
}

/** A payment as it became paid: its row before the change, what it has received and its latest deposit. */
interface PaidPayment {
  row: PaymentRow;
  status: PaymentStatus;
  received: bigint;
  txHash: string | null;
}

/** How long a confirmation waits for the rate it stores; past it the rate is left null rather than hold the lock. */
const CONFIRMATION_RATE_WAIT_MS = 1_500;

/** What the state machine weighs for a payment whose payer has not picked a chain: nothing expected yet. */
const unpicked = { asset: { decimals: 0 }, expected: 0n };

/** A payment's life after creation: the state machine applied to its deposits, its window's end, its forwarding. */
export function createPaymentLifecycle(deps: PaymentLifecycleDeps) {
  const { db, repo } = deps;

  /**
   * Re-evaluates payments from their deposits inside the caller's transaction `tx` (which also recorded the deposit
   * or block change that prompted it): locks them, runs the state machine, writes status, received amount and latest
   * deposit hash, and records each event through the outbox. Returns how many statuses changed and events were written.
   */
  async function settle(tx: Db, ids: string[], now: Date): Promise<{ transitions: number; events: number }> {
    const rows = await repo.lockForSettlement(tx, [...new Set(ids)]);
    if (rows.length === 0) return { transitions: 0, events: 0 };
    const [facts, tolerances] = await Promise.all([
      deps.ledger.depositFacts(
        tx,
        rows.filter(isPicked).map((row) => ({ id: row.id, asset: row.asset, expiresAt: row.expiresAt })),
      ),
      deps.settings.tolerancesFor(
        tx,
        rows.map((row) => row.merchantId),
      ),
    ]);
    const updates: SettlementUpdate[] = [];
    const events: RecordPaymentEventInput[] = [];
    const paid: PaidPayment[] = [];
    let transitions = 0;
    for (const row of rows) {
      // A payment without its chain has no address, so no deposit: only its window can end.
      const picked = isPicked(row) ? row : undefined;
      const { asset, expected } = picked === undefined ? unpicked : amounts(picked);
      const fact = facts.get(row.id) ?? noDeposits;
      const receivedBefore = BigInt(row.receivedBaseUnits);
      const transition = nextState({
        status: row.status as PaymentStatus,
        expected,
        receivedBefore,
        receivedInTime: fact.receivedInTime,
        unfinalInTime: fact.unfinalInTime,
        windowEnded: now.getTime() >= row.expiresAt.getTime(),
        tolerance:
          picked === undefined
            ? { under: 0n, over: 0n }
            : toleranceOf(
                picked,
                tolerances.get(row.merchantId) ?? exactTolerances,
                expected,
                asset.decimals,
              ),
      });
      const becamePaid =
        picked !== undefined &&
        picked.confirmedAt === null &&
        (transition.status === 'completed' || transition.status === 'overpaid');
      if (
        becamePaid ||
        transition.status !== row.status ||
        fact.received !== receivedBefore ||
        fact.latestTxHash !== row.txHash
      ) {
        updates.push({
          id: row.id,
          status: transition.status,
          receivedBaseUnits: fact.received.toString(),
          txHash: fact.latestTxHash,
          ...(becamePaid ? { confirmation: knownRate(picked) } : {}),
        });
      }
      if (transition.status !== row.status) transitions += 1;
      if (becamePaid) {
        paid.push({
          row: picked,
          status: transition.status,
          received: fact.received,
          txHash: fact.latestTxHash,
        });
      }
      for (const step of transition.steps) {
        events.push({
          merchantId: row.merchantId,
          type: step.event,
          payment: snapshot(row, step.status, fact.received, fact.latestTxHash),
          occurredAt: now,
        });
      }
    }
    await repo.applySettlement(tx, updates, now);
    await deps.events.recordPaymentEvents(tx, events);
    if (paid.length > 0) await deps.onPaid?.(tx, paid, now);
    return { transitions, events: events.length };
  }

  /** The rate of the payment's currency per its asset as already known (no network), else null for now. */
  function knownRate(row: PaymentRow): { rate: string | null; source: string | null } {
    const quote = deps.rates?.cachedRate(row.asset, row.currency, row.isTest);
    return quote === undefined ? { rate: null, source: null } : { rate: quote.rate, source: quote.source };
  }

  /** A price within CONFIRMATION_RATE_WAIT_MS, or null (the next round asks again). */
  async function fetchRate(asset: string, currency: string, isTest: boolean) {
    if (deps.rates === undefined) return null;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        deps.rates.getRate(asset, currency, isTest),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => resolve(null), CONFIRMATION_RATE_WAIT_MS);
        }),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    settle,

    /**
     * Locks one payment inside `tx` (as settlement does, so a refund and a state change never interleave) and returns
     * it as it is now: refunds check what it received against what they take while holding this lock.
     */
    async lockForRefund(tx: Db, id: string): Promise<PaymentRow | undefined> {
      const [row] = await repo.lockForSettlement(tx, [id]);
      // A payment without its chain yet has received nothing: there is nothing to refund.
      return row !== undefined && isPicked(row) ? row : undefined;
    },

    /** A payment's tolerances in base units of its asset: allowed shortfall and excess. */
    async tolerancesOf(row: PaymentRow): Promise<{ under: bigint; over: bigint }> {
      const tolerances = (await deps.settings.tolerancesFor(db, [row.merchantId])).get(row.merchantId);
      const { asset, expected } = amounts(row);
      return toleranceOf(row, tolerances ?? exactTolerances, expected, asset.decimals);
    },

    /**
     * Gives payments confirmed in the last hour without a rate (none was known at that moment) the rate now, asked of
     * the price feeds outside any transaction, one request per pair; run after each expiry round. A payment whose
     * price cannot be had within the hour keeps no value at confirmation rather than a later one.
     */
    async fillConfirmationRates(now: Date, limit = 200): Promise<number> {
      if (deps.rates === undefined) return 0;
      const unrated = await repo.unratedConfirmations(db, new Date(now.getTime() - 3_600_000), limit);
      if (unrated.length === 0) return 0;
      const pairs = new Map<string, typeof unrated>();
      for (const row of unrated) {
        const pair = `${row.asset}:${row.currency}:${row.isTest}`;
        pairs.set(pair, [...(pairs.get(pair) ?? []), row]);
      }
      const rated: Array<{ id: string; rate: string; source: string }> = [];
      await Promise.all(
        [...pairs.values()].map(async (rows) => {
          const first = rows[0];
          if (first === undefined) return;
          const quote = await fetchRate(first.asset, first.currency, first.isTest);
          if (quote === null) return;
          for (const row of rows) rated.push({ id: row.id, rate: quote.rate, source: quote.source });
        }),
      );
      return repo.setConfirmationRates(db, rated);
    },

    /** Expires open payments whose window has ended (at most `limit`); safe to run in several processes at once. */
    async expireDue(now: Date, limit = 500): Promise<{ transitions: number; events: number }> {
      const total = { transitions: 0, events: 0 };
      let after: { expiresAt: Date; id: string } | undefined;
      // In batches of `limit`, each its own transaction, past those that stay open (an underpaid payment waiting
      // for an in-time top-up) so that they never hold up the others.
      for (;;) {
        const batch = await db.transaction(async (tx) => {
          const rows = await repo.lockDueForExpiry(tx, now, limit, after);
          const result = await settle(
            tx,
            rows.map((row) => row.id),
            now,
          );
          return { rows, result };
        });
        total.transitions += batch.result.transitions;
        total.events += batch.result.events;
        const last = batch.rows.at(-1);
        if (batch.rows.length < limit || last === undefined) return total;
        after = { expiresAt: last.expiresAt, id: last.id };
      }
    },

    /** Retention: idempotency keys stored before `before`, at most `limit` (payments themselves are never deleted). */
    purgeIdempotencyKeys: (before: Date, limit: number) => repo.purgeIdempotencyKeys(before, limit),

    /** When the next open payment's window ends (null when none is open). */
    nextExpiry: () => repo.nextExpiry(db),

    /**
     * The public checkout's one simulation of a test payment: true for the first caller, false ever after (one
     * atomic update, so of concurrent callers exactly one gets it).
     */
    claimCheckoutSimulation: (row: PaymentRow, now: Date) => repo.claimCheckoutSimulation(db, row.id, now),

    /** Ends the window of an open payment now and settles it (test mode `simulate`, outcome `expired`). */
    async endWindow(row: PaymentRow, now: Date): Promise<void> {
      await db.transaction(async (tx) => {
        await repo.endWindow(tx, row.id, now);
        await settle(tx, [row.id], now);
      });
    },

    /**
     * Records a final forwarding transaction on its payments inside `tx`: forwarded_at, forward_tx_hash, each one's
     * share of the fee, and a payment.completed event carrying the payment's status at that moment.
     */
    async markForwarded(
      tx: Db,
      shares: Array<{ id: string; fee: bigint }>,
      txHash: string,
      at: Date,
    ): Promise<void> {
      await repo.applyForwarded(tx, shares, txHash, at);
      const rows = await repo.lockForSettlement(
        tx,
        shares.map((share) => share.id),
      );
      for (const row of rows) {
        await deps.events.recordPaymentEvent(tx, {
          merchantId: row.merchantId,
          type: 'payment.completed',
          payment: snapshot(row, row.status, BigInt(row.receivedBaseUnits), row.txHash),
          occurredAt: at,
        });
      }
    },
  };
}
