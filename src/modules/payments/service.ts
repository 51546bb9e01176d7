import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Principal } from '../../http/auth.ts';
import { modeForRead, modeForWrite } from '../../http/scope.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { convertToBaseUnits, fromBaseUnits, toBaseUnits } from '../../lib/money.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import { paymentUri } from '../chains/payment-uri.ts';
import {
  type ChainId,
  type ChainInfo,
  chains,
  getAsset,
  getChain,
  indexSpace,
  isAssetAvailable,
  networkOf,
  requiredConfirmations,
} from '../chains/registry.ts';
import type { RatesService } from '../rates/index.ts';
import { canonicalAmount, fiatDecimals } from './amounts.ts';
import type { IdempotencyRow, PaymentRow, PaymentsRepo } from './repo.ts';
import type { CheckoutView, CreatePaymentInput, PaymentStatus, PaymentView } from './schemas.ts';

/** What payments need from pricing: a rate locked at creation. */
export type RateProvider = Pick<RatesService, 'getRate' | 'isSupportedCurrency'>;

export interface PaymentsDeps {
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  deriver: AddressDeriver;
  rates: RateProvider;
  publicUrl: string;
  confirmationOverrides: Partial<Record<ChainId, number>>;
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

  function toView(row: PaymentRow): PaymentView {
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
      confirmations: { seen: 0, required: requiredConfirmations(chain, deps.confirmationOverrides) },
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
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    };
  }

  /** Checks everything about the request that needs no database, and prices it. */
  async function prepare(isTest: boolean, input: CreatePaymentInput) {
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
    const windowSeconds = input.expires_in ?? DEFAULT_WINDOW_SECONDS;
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

  async function insertPayment(
    tx: Db,
    merchantId: string,
    isTest: boolean,
    input: CreatePaymentInput,
    prepared: Awaited<ReturnType<typeof prepare>>,
  ) {
    const now = clock.now();
    const index = await repo.allocateDerivationIndex(tx, indexSpace(prepared.chain.id), isTest);
    const row: PaymentRow = {
      id: uuidv7(now.getTime()),
      merchantId,
      isTest,
      status: 'pending',
      amount: prepared.amount,
      currency: prepared.currency,
      chain: prepared.chain.id,
      asset: prepared.asset.code,
      address: deriver.deriveAddress(prepared.chain.id, isTest, index),
      derivationIndex: index,
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
    await repo.insert(tx, row);
    return row;
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
        const prepared = await prepare(isTest, input);
        const row = await db.transaction((tx) => insertPayment(tx, merchantId, isTest, input, prepared));
        return { status: 201, body: toView(row), replayed: false };
      }

      const requestHash = createHash('sha256').update(stableStringify(input)).digest('hex');
      const known = await repo.findIdempotency(merchantId, isTest, idempotencyKey);
      if (known !== undefined && known.createdAt.getTime() > clock.now().getTime() - IDEMPOTENCY_TTL_MS) {
        return replay(known, requestHash);
      }
      const prepared = await prepare(isTest, input);
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
          const payment = await insertPayment(tx, merchantId, isTest, input, prepared);
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

    async get(principal: Principal, id: string): Promise<PaymentView> {
      const row = await repo.find(principal.merchantId, modeForRead(principal, undefined), id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
      return toView(row);
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
      return {
        data: page.map(toView),
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
        confirmations: { seen: 0, required: requiredConfirmations(chain, deps.confirmationOverrides) },
        is_test: row.isTest,
        redirect_url: row.redirectUrl,
      };
    },

    toView,
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
