import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { createCoalescer } from '../../lib/coalescer.ts';
import { AppError } from '../../lib/errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { convertToBaseUnits, fromBaseUnits, ratioFromDecimal, toBaseUnits } from '../../lib/money.ts';
import type { ConfirmationsOf } from '../chains/confirmations.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import { type DerivationThread, deriveOnThisThread } from '../chains/derivation-thread.ts';
import { paymentUri } from '../chains/payment-uri.ts';
import {
  type ChainId,
  type ChainInfo,
  chains,
  explorerTxLink,
  getAsset,
  getChain,
  isAssetAvailable,
  networkOf,
} from '../chains/registry.ts';
import type { SettlementRepo } from '../chains/repo.ts';
import type { RatesService } from '../rates/index.ts';
import { exactTolerances, type SettingsService, type Tolerances } from '../settings/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForRead, modeForWrite } from '../tenancy/scope.ts';
import type {
  EventsService,
  PaymentEventSnapshot,
  RecordPaymentEventInput,
} from '../webhooks/events/service.ts';
import { createAddressPool, type PooledAddress } from './address-pool.ts';
import { canonicalAmount, fiatDecimals } from './amounts.ts';
import { type IdempotencyRow, MAX_INSERT_ROWS, type PaymentRow, type PaymentsRepo } from './repo.ts';
import type {
  CheckoutView,
  CreatePaymentInput,
  DepositView,
  PaymentDetailView,
  PaymentStatus,
  PaymentView,
} from './schemas.ts';
import { nextState, type Status, toleranceUnits } from './state-machine.ts';

/** What payments need from pricing: a rate locked at creation. */
export type RateProvider = Pick<RatesService, 'getRate' | 'isSupportedCurrency'>;

export interface PaymentsDeps {
  /** Whether a watcher can see this chain in this mode (test mode always can: the simulated chain). */
  isChainConnected(chain: ChainId, isTest: boolean): boolean;
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  deriver: AddressDeriver;
  /** Batch derivation off the request path (the derivation thread); default: `deriver` on this thread. */
  deriveMany?: DerivationThread['deriveMany'];
  /** How many inserts of creations may run at once before the next ones wait to go together (default 1). */
  insertsInFlight?: number;
  rates: RateProvider;
  publicUrl: string;
  /** Confirmations a deposit of this chain and mode needs (settlement/confirmations.ts). */
  confirmationsOf: ConfirmationsOf;
  /** The outbox: every status change writes its events in the same transaction. */
  events: Pick<EventsService, 'recordPaymentEvent' | 'recordPaymentEvents' | 'listEvents'>;
  settings: Pick<SettingsService, 'tolerancesFor' | 'defaultWindowSeconds' | 'payoutWallet'>;
  /** What settlement recorded about deposits and chain heights (read only). */
  deposits: Pick<
    SettlementRepo,
    'depositFacts' | 'depositsOfPayment' | 'confirmationSummaries' | 'cursorHeights'
  >;
}

/** How many confirmations a payment shows: its least-confirmed unfinal deposit's, or all once final. */
interface SeenInput {
  newestUnfinalBlock: number | null;
  anyFinal: boolean;
  height: number | undefined;
}

function confirmationsSeen(summary: SeenInput | undefined, required: number): number {
  if (summary === undefined) return 0;
  if (summary.newestUnfinalBlock !== null && summary.height !== undefined) {
    return Math.max(0, Math.min(required, summary.height - summary.newestUnfinalBlock + 1));
  }
  return summary.anyFinal ? required : 0;
}

/** Base units of `asset` worth `amount` of the payment's currency at its locked rate, rounded down. */
function currencyToBaseUnits(amount: string, rate: string, decimals: number): bigint {
  const a = ratioFromDecimal(amount);
  const r = ratioFromDecimal(rate);
  if (a.num === 0n || r.num === 0n) return 0n;
  return (a.num * r.den * 10n ** BigInt(decimals)) / (a.den * r.num);
}

export const DEFAULT_WINDOW_SECONDS = 30 * 60;
const MIN_WINDOW_SECONDS = 60;
const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
const MAX_BASE_UNITS = 2n ** 256n - 1n;
/** How long an idempotency key is remembered, as Stripe does. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

function assetDecimalsByCode(code: string): number | undefined {
  for (const chain of chains) {
    const asset = getAsset(chain, code);
    if (asset !== undefined) return asset.decimals;
  }
  return undefined;
}

/** Key-sorted JSON, so `{a,b}` and `{b,a}` are the same request. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function validRedirectUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.username === '' &&
      url.password === ''
    ) {
      return url.toString();
    }
  } catch {
    // fall through to the error below
  }
  throw new AppError(
    'parameter_invalid',
    'redirect_url must be an absolute http(s) URL without credentials.',
    {
      param: 'redirect_url',
    },
  );
}

class IdempotencyLost extends Error {}

export function createPaymentsService(deps: PaymentsDeps) {
  const { db, repo, clock, deriver, rates } = deps;
  const onThisThread = deriveOnThisThread(deriver);
  const addresses = createAddressPool({
    fetchIndices: (space, isTest, count) => repo.allocateDerivationIndices(db, space, isTest, count),
    deriveMany: deps.deriveMany ?? (async (...args) => onThisThread(...args)),
  });
  /**
   * Creations without an Idempotency-Key, inserted as they come while few inserts run, and under load those that
   * wait meanwhile together: one statement and round trip for many payments, each answered only once its row is in.
   */
  const inserts = createCoalescer<PaymentRow>({
    run: (rows) => repo.insertMany(rows),
    maxInFlight: deps.insertsInFlight ?? 1,
    maxBatch: MAX_INSERT_ROWS,
  });

  function chainOf(row: Pick<PaymentRow, 'chain'>): ChainInfo {
    const chain = getChain(row.chain);
    if (chain === undefined) throw new Error(`payment on unknown chain ${row.chain}`);
    return chain;
  }

  function amounts(row: PaymentRow) {
    const chain = chainOf(row);
    const asset = getAsset(chain, row.asset);
    if (asset === undefined) throw new Error(`payment in unknown asset ${row.asset} on ${row.chain}`);
    const expected = BigInt(row.expectedBaseUnits);
    const received = BigInt(row.receivedBaseUnits);
    const remaining = expected > received ? expected - received : 0n;
    return { chain, asset, expected, received, remaining };
  }

  function toView(row: PaymentRow, seen = 0): PaymentView {
    const { chain, asset, expected, received, remaining } = amounts(row);
    return {
      payment_id: row.id,
      status: row.status as PaymentStatus,
      amount: row.amount,
      currency: row.currency,
      chain: row.chain,
      asset: row.asset,
      address: row.address,
      expected_amount_native: fromBaseUnits(expected, asset.decimals),
      received_amount_native: fromBaseUnits(received, asset.decimals),
      remaining_amount_native: fromBaseUnits(remaining, asset.decimals),
      tx_hash: row.txHash,
      rate: { value: row.rate, source: row.rateSource },
      confirmations: { seen, required: deps.confirmationsOf(chain.id, row.isTest) },
      is_test: row.isTest,
      order_id: row.orderId,
      metadata: row.metadata,
      redirect_url: row.redirectUrl,
      checkout_url: `${deps.publicUrl}/pay/${row.id}`,
      payment_uri: paymentUri({
        chain,
        asset,
        address: row.address,
        amountBaseUnits: remaining,
        isTest: row.isTest,
      }),
      forwarded_at: row.forwardedAt?.toISOString() ?? null,
      forward_tx_hash: row.forwardTxHash,
      forward_fee_native:
        row.forwardFeeBaseUnits === null
          ? null
          : fromBaseUnits(BigInt(row.forwardFeeBaseUnits), chain.nativeAsset.decimals),
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    };
  }

  /** Confirmations seen of each payment, from its deposits and the watcher's height. */
  async function seenOf(allRows: PaymentRow[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    // A pending payment has no live deposit (seeing one makes it confirming), so it has nothing to count: the
    // common case of a fresh payment and of the checkout's polling costs no query here.
    const rows = allRows.filter((row) => row.status !== 'pending');
    if (rows.length === 0) return out;
    const [summaries, heights] = await Promise.all([
      deps.deposits.confirmationSummaries(
        db,
        rows.map((row) => row.id),
      ),
      deps.deposits.cursorHeights(db),
    ]);
    for (const row of rows) {
      const summary = summaries.get(row.id);
      const required = deps.confirmationsOf(row.chain, row.isTest);
      out.set(
        row.id,
        confirmationsSeen(
          summary === undefined
            ? undefined
            : { ...summary, height: heights.get(`${row.chain}:${row.isTest}`) },
          required,
        ),
      );
    }
    return out;
  }

  function snapshot(
    row: PaymentRow,
    status: string,
    received: bigint,
    txHash: string | null,
  ): PaymentEventSnapshot {
    const { asset, expected } = amounts(row);
    return {
      payment_id: row.id,
      status,
      amount: row.amount,
      currency: row.currency,
      chain: row.chain,
      tx_hash: txHash,
      received_amount_native: fromBaseUnits(received, asset.decimals),
      expected_amount_native: fromBaseUnits(expected, asset.decimals),
      is_test: row.isTest,
    };
  }

  function toleranceOf(row: PaymentRow, tolerances: Tolerances, expected: bigint, decimals: number) {
    return {
      under: toleranceUnits(
        expected,
        tolerances.underPercent,
        currencyToBaseUnits(tolerances.underAmount, row.rate, decimals),
      ),
      over: toleranceUnits(
        expected,
        tolerances.overPercent,
        currencyToBaseUnits(tolerances.overAmount, row.rate, decimals),
      ),
    };
  }

  /**
   * Re-evaluates payments from their deposits inside the caller's transaction `tx` (which also recorded the deposit
   * or block change that prompted it): locks them, runs the state machine, writes status, received amount and latest
   * deposit hash, and records each event through the outbox. Returns how many statuses changed and events were written.
   */
  async function settle(tx: Db, ids: string[], now: Date): Promise<{ transitions: number; events: number }> {
    const rows = await repo.lockForSettlement(tx, [...new Set(ids)]);
    if (rows.length === 0) return { transitions: 0, events: 0 };
    const [facts, tolerances] = await Promise.all([
      deps.deposits.depositFacts(
        tx,
        rows.map((row) => ({ id: row.id, asset: row.asset, expiresAt: row.expiresAt })),
      ),
      deps.settings.tolerancesFor(
        tx,
        rows.map((row) => row.merchantId),
      ),
    ]);
    const updates: Array<{ id: string; status: string; receivedBaseUnits: string; txHash: string | null }> =
      [];
    const events: RecordPaymentEventInput[] = [];
    let transitions = 0;
    for (const row of rows) {
      const { asset, expected } = amounts(row);
      const fact = facts.get(row.id) ?? {
        received: 0n,
        receivedInTime: 0n,
        unfinalInTime: 0,
        latestTxHash: null,
      };
      const receivedBefore = BigInt(row.receivedBaseUnits);
      const transition = nextState({
        status: row.status as Status,
        expected,
        receivedBefore,
        receivedInTime: fact.receivedInTime,
        unfinalInTime: fact.unfinalInTime,
        windowEnded: now.getTime() >= row.expiresAt.getTime(),
        tolerance: toleranceOf(
          row,
          tolerances.get(row.merchantId) ?? exactTolerances,
          expected,
          asset.decimals,
        ),
      });
      if (
        transition.status !== row.status ||
        fact.received !== receivedBefore ||
        fact.latestTxHash !== row.txHash
      ) {
        updates.push({
          id: row.id,
          status: transition.status,
          receivedBaseUnits: fact.received.toString(),
          txHash: fact.latestTxHash,
        });
      }
      if (transition.status !== row.status) transitions += 1;
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
    return { transitions, events: events.length };
  }

  /** Checks everything about the request that needs no database, and prices it. */
  async function prepare(merchantId: string, isTest: boolean, input: CreatePaymentInput) {
    const chain = getChain(input.chain.toLowerCase());
    if (chain === undefined) {
      throw new AppError('unsupported_chain', `Unknown chain "${input.chain}"; GET /v1/chains lists them.`, {
        param: 'chain',
      });
    }
    const asset = input.asset === undefined ? chain.nativeAsset : getAsset(chain, input.asset);
    if (asset === undefined || !isAssetAvailable(asset, isTest)) {
      throw new AppError(
        'unsupported_asset',
        `${chain.name} does not carry ${input.asset} here; GET /v1/chains lists what it does.`,
        {
          param: 'asset',
        },
      );
    }
    const currency = input.currency.toUpperCase();
    const currencyDecimals =
      currency === asset.code ? asset.decimals : (assetDecimalsByCode(currency) ?? fiatDecimals(currency));
    if (currencyDecimals === undefined || !rates.isSupportedCurrency(currency)) {
      throw new AppError('parameter_invalid', `Unsupported currency "${input.currency}".`, {
        param: 'currency',
      });
    }
    const amount = canonicalAmount(input.amount, currencyDecimals, currency);
    const windowSeconds = input.expires_in ?? (await deps.settings.defaultWindowSeconds(merchantId));
    if (windowSeconds < MIN_WINDOW_SECONDS || windowSeconds > MAX_WINDOW_SECONDS) {
      throw new AppError(
        'parameter_invalid',
        `expires_in must be between ${MIN_WINDOW_SECONDS} and ${MAX_WINDOW_SECONDS} seconds.`,
        {
          param: 'expires_in',
        },
      );
    }
    const redirectUrl = input.redirect_url === undefined ? null : validRedirectUrl(input.redirect_url);
    if (!deriver.hasSeed(isTest)) {
      throw new AppError(
        'live_seed_missing',
        'Live payments are not configured on this server: SVC_MNEMONIC is not set.',
        {
          param: 'chain',
        },
      );
    }
    if (!isTest && (await deps.settings.payoutWallet(db, merchantId, false, chain.id)) === null) {
      throw new AppError(
        'payout_wallet_missing',
        `Set a live payout wallet for ${chain.name} first (PUT /v1/settings/payout-wallets): received funds are forwarded there.`,
        { param: 'chain' },
      );
    }
    if (!deps.isChainConnected(chain.id, isTest)) {
      // Taking money on a chain nobody watches would leave it uncredited: refuse instead.
      throw new AppError(
        'chain_unavailable',
        `${isTest ? 'Test' : 'Live'} payments on ${chain.name} are not available on this server: no node for it is connected.`,
        { param: 'chain' },
      );
    }

    let rate: { rate: string; source: string };
    let expected: bigint;
    if (currency === asset.code) {
      rate = { rate: '1', source: 'identity' };
      expected = toBaseUnits(amount, asset.decimals);
    } else {
      rate = await rates.getRate(asset.code, currency, isTest);
      expected = convertToBaseUnits(amount, rate.rate, asset.decimals);
    }
    if (expected > MAX_BASE_UNITS) {
      throw new AppError('parameter_invalid', 'amount is unreasonably large for this asset.', {
        param: 'amount',
      });
    }
    return { chain, asset, currency, amount, windowSeconds, redirectUrl, rate, expected };
  }

  /**
   * A new payment at its deposit address (index and address from the pool; callers take it before any transaction,
   * see the pool's `take`), as it is to be inserted.
   */
  function newPayment(
    merchantId: string,
    isTest: boolean,
    input: CreatePaymentInput,
    prepared: Awaited<ReturnType<typeof prepare>>,
    deposit: PooledAddress,
  ): PaymentRow {
    const now = clock.now();
    return {
      id: uuidv7(now.getTime()),
      merchantId,
      isTest,
      status: 'pending',
      amount: prepared.amount,
      currency: prepared.currency,
      chain: prepared.chain.id,
      asset: prepared.asset.code,
      address: deposit.address,
      derivationIndex: deposit.index,
      expectedBaseUnits: prepared.expected.toString(),
      receivedBaseUnits: '0',
      rate: prepared.rate.rate,
      rateSource: prepared.rate.source,
      txHash: null,
      orderId: input.order_id ?? null,
      metadata: input.metadata ?? {},
      redirectUrl: prepared.redirectUrl,
      forwardedAt: null,
      forwardTxHash: null,
      forwardFeeBaseUnits: null,
      expiresAt: new Date(now.getTime() + prepared.windowSeconds * 1000),
      createdAt: now,
      updatedAt: now,
    };
  }

  function replay(
    existing: IdempotencyRow,
    requestHash: string,
  ): { status: 201; body: PaymentView; replayed: true } {
    if (existing.requestHash !== requestHash) {
      throw new AppError(
        'idempotency_conflict',
        'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
        { param: 'Idempotency-Key' },
      );
    }
    // Only successful creations are remembered, so the stored status is always 201.
    return { status: 201, body: existing.responseBody as PaymentView, replayed: true };
  }

  return {
    async create(
      principal: Principal,
      input: CreatePaymentInput,
      idempotencyKey: string | undefined,
    ): Promise<{ status: 201; body: PaymentView; replayed: boolean }> {
      const isTest = modeForWrite(principal, undefined);
      const merchantId = principal.merchantId;
      if (idempotencyKey === undefined) {
        const prepared = await prepare(merchantId, isTest, input);
        // One statement needs no transaction: the index comes from a sequence, the row is inserted on its own, or
        // with other creations that wait meanwhile, in one statement (see inserts).
        const deposit = await addresses.take(prepared.chain.id, isTest);
        const row = newPayment(merchantId, isTest, input, prepared, deposit);
        await inserts.add(row);
        return { status: 201, body: toView(row), replayed: false };
      }

      const requestHash = createHash('sha256').update(stableStringify(input)).digest('hex');
      const known = await repo.findIdempotency(merchantId, isTest, idempotencyKey);
      if (known !== undefined && known.createdAt.getTime() > clock.now().getTime() - IDEMPOTENCY_TTL_MS) {
        return replay(known, requestHash);
      }
      const prepared = await prepare(merchantId, isTest, input);
      const deposit = await addresses.take(prepared.chain.id, isTest);
      try {
        const row = await db.transaction(async (tx) => {
          // Claim the key first: a concurrent twin waits here until we commit, then finds our response.
          const claimed = await repo.claimIdempotency(
            tx,
            {
              merchantId,
              isTest,
              key: idempotencyKey,
              requestHash,
              responseStatus: 201,
              responseBody: {},
              createdAt: clock.now(),
            },
            new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS),
          );
          if (!claimed) throw new IdempotencyLost();
          const payment = newPayment(merchantId, isTest, input, prepared, deposit);
          await repo.insert(tx, payment);
          await repo.saveIdempotencyResponse(tx, merchantId, isTest, idempotencyKey, 201, toView(payment));
          return payment;
        });
        return { status: 201, body: toView(row), replayed: false };
      } catch (error) {
        if (!(error instanceof IdempotencyLost)) throw error;
        const winner = await repo.findIdempotency(merchantId, isTest, idempotencyKey);
        if (winner === undefined)
          throw new AppError(
            'idempotency_in_progress',
            'A request with this Idempotency-Key is in progress; retry shortly.',
          );
        return replay(winner, requestHash);
      }
    },

    /** One payment with its deposits (explorer links) and its events, oldest first. */
    async get(principal: Principal, id: string): Promise<PaymentDetailView> {
      const row = await repo.find(principal.merchantId, modeForRead(principal, undefined), id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
      const [seen, depositRows, heights, events] = await Promise.all([
        seenOf([row]),
        deps.deposits.depositsOfPayment(db, row.id),
        deps.deposits.cursorHeights(db),
        deps.events.listEvents(principal, { limit: 100, payment_id: row.id }),
      ]);
      const { chain, asset } = amounts(row);
      const required = deps.confirmationsOf(row.chain, row.isTest);
      const height = heights.get(`${row.chain}:${row.isTest}`);
      const network = networkOf(chain, row.isTest);
      const depositViews: DepositView[] = depositRows.map((deposit) => {
        const decimals = getAsset(chain, deposit.asset)?.decimals ?? asset.decimals;
        const confirmations =
          deposit.state === 'final'
            ? required
            : deposit.state === 'reverted' || height === undefined
              ? 0
              : Math.max(0, Math.min(required, height - deposit.blockNumber + 1));
        return {
          id: deposit.id,
          tx_hash: deposit.txHash,
          output_index: deposit.outputIndex,
          asset: deposit.asset,
          amount_native: fromBaseUnits(BigInt(deposit.amount), decimals),
          block_number: deposit.blockNumber,
          block_hash: deposit.blockHash,
          state: deposit.state as DepositView['state'],
          confirmations,
          confirmations_required: required,
          counted: deposit.asset === row.asset,
          simulated: deposit.simulated,
          explorer_url: deposit.simulated ? null : explorerTxLink(network, deposit.txHash),
          seen_at: deposit.seenAt.toISOString(),
          final_at: deposit.finalAt?.toISOString() ?? null,
          reverted_at: deposit.revertedAt?.toISOString() ?? null,
        };
      });
      return {
        ...toView(row, seen.get(row.id) ?? 0),
        deposits: depositViews,
        events: [...events.data].reverse(),
      };
    },

    async list(
      principal: Principal,
      query: {
        limit: number;
        starting_after?: string | undefined;
        status?: PaymentStatus | undefined;
        order_id?: string | undefined;
        created_gte?: string | undefined;
        created_lt?: string | undefined;
        is_test?: boolean | undefined;
      },
    ): Promise<{ data: PaymentView[]; has_more: boolean; next_cursor: string | null }> {
      const rows = await repo.list({
        merchantId: principal.merchantId,
        isTest: modeForRead(principal, query.is_test),
        limit: query.limit + 1,
        startingAfter: query.starting_after,
        status: query.status,
        orderId: query.order_id,
        createdGte: query.created_gte === undefined ? undefined : new Date(query.created_gte),
        createdLt: query.created_lt === undefined ? undefined : new Date(query.created_lt),
      });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      const seen = await seenOf(page);
      return {
        data: page.map((row) => toView(row, seen.get(row.id) ?? 0)),
        has_more: hasMore,
        next_cursor: hasMore ? (page.at(-1)?.id ?? null) : null,
      };
    },

    /** The public, key-less view for the hosted checkout: no metadata, order id or merchant data. */
    async checkoutView(id: string): Promise<CheckoutView> {
      const row = await repo.findPublic(id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'payment_id' });
      const { chain, asset, expected, received, remaining } = amounts(row);
      const network = networkOf(chain, row.isTest);
      return {
        payment_id: row.id,
        status: row.status as PaymentStatus,
        amount: row.amount,
        currency: row.currency,
        chain: row.chain,
        chain_name: chain.name,
        network: network.name,
        asset: row.asset,
        asset_decimals: asset.decimals,
        address: row.address,
        expected_amount_native: fromBaseUnits(expected, asset.decimals),
        received_amount_native: fromBaseUnits(received, asset.decimals),
        remaining_amount_native: fromBaseUnits(remaining, asset.decimals),
        payment_uri: paymentUri({
          chain,
          asset,
          address: row.address,
          amountBaseUnits: remaining,
          isTest: row.isTest,
        }),
        expires_at: row.expiresAt.toISOString(),
        confirmations: {
          seen: (await seenOf([row])).get(row.id) ?? 0,
          required: deps.confirmationsOf(chain.id, row.isTest),
        },
        is_test: row.isTest,
        redirect_url: row.redirectUrl,
      };
    },

    toView,
    settle,

    /** A payment's tolerances in base units of its asset: allowed shortfall and excess. */
    async tolerancesOf(row: PaymentRow): Promise<{ under: bigint; over: bigint }> {
      const tolerances = (await deps.settings.tolerancesFor(db, [row.merchantId])).get(row.merchantId);
      const { asset, expected } = amounts(row);
      return toleranceOf(row, tolerances ?? exactTolerances, expected, asset.decimals);
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

    /** When the next open payment's window ends (null when none is open). */
    nextExpiry: () => repo.nextExpiry(db),

    /** Payment rows by id, for settlement (forwarding needs merchant, status and derivation index). */
    rowsByIds: (ids: string[]) => repo.byIds(db, ids),

    /** Payments of a chain and mode to watch: created at or after `createdFrom`, window ending after `expiresAfter`. */
    watchable: (chain: string, isTest: boolean, createdFrom: Date, expiresAfter: Date) =>
      repo.watchable(db, chain, isTest, createdFrom, expiresAfter),

    /** A payment of the principal's merchant (any mode the principal may see), as its row. */
    async findRow(principal: Principal, id: string): Promise<PaymentRow> {
      const row = await repo.find(principal.merchantId, modeForRead(principal, undefined), id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
      return row;
    },

    /** A payment by its id alone, for the public checkout (never hand its merchant data to the payer). */
    async findPublicRow(id: string): Promise<PaymentRow> {
      const row = await repo.findPublic(id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'payment_id' });
      return row;
    },

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

export type PaymentsService = ReturnType<typeof createPaymentsService>;
