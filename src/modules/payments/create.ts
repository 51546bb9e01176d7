import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { createCoalescer } from '../../lib/coalescer.ts';
import { AppError } from '../../lib/errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { chains, getAsset } from '../chains/registry.ts';
import type { SettingsService } from '../settings/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import type { AddressPool, PooledAddress } from './address-pool.ts';
import { canonicalAmount, fiatDecimals } from './amounts.ts';
import type { Pricing, RateProvider } from './pricing.ts';
import { type IdempotencyRow, MAX_INSERT_ROWS, type PaymentsRepo, type StoredPaymentRow } from './repo.ts';
import type { CreatePaymentInput, PaymentView } from './schemas.ts';

export interface PaymentCreationDeps {
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  /** Deposit addresses, each confirmed by the second derivation (shared with the payer's pick). */
  addresses: AddressPool;
  pricing: Pricing;
  rates: Pick<RateProvider, 'isSupportedCurrency'>;
  /** How many inserts of creations may run at once before the next ones wait to go together (default 1). */
  insertsInFlight?: number;
  settings: Pick<SettingsService, 'defaultWindowSeconds'>;
  /** The answer a new payment gets (views.ts). */
  toView(row: StoredPaymentRow): PaymentView;
}

const MIN_WINDOW_SECONDS = 60;
const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
/** How long an idempotency key is remembered, as Stripe does. */
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

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

function validRedirectUrl(raw: string, param: string): string {
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
  throw new AppError('parameter_invalid', `${param} must be an absolute http(s) URL without credentials.`, {
    param,
  });
}

class IdempotencyLost extends Error {}

/** Creation: checks and prices the request, takes a deposit address, stores the payment (idempotently). */
export function createPaymentCreation(deps: PaymentCreationDeps) {
  const { db, repo, clock, addresses, pricing, toView } = deps;
  /**
   * Creations without an Idempotency-Key, inserted as they come while few inserts run, and under load those that
   * wait meanwhile together: one statement and round trip for many payments, each answered only once its row is in.
   */
  const inserts = createCoalescer<StoredPaymentRow>({
    run: (rows) => repo.insertMany(rows),
    maxInFlight: deps.insertsInFlight ?? 1,
    maxBatch: MAX_INSERT_ROWS,
  });

  /**
   * Checks the request and prices it: on its chain when it names one, else the pairs the payer will choose from
   * (priced only when the payer picks).
   */
  async function prepare(merchantId: string, isTest: boolean, input: CreatePaymentInput) {
    const pair =
      input.chain === undefined ? undefined : pricing.resolvePair(input.chain, input.asset, isTest);
    const currency = input.currency.toUpperCase();
    const currencyDecimals =
      currency === pair?.asset.code
        ? pair.asset.decimals
        : (assetDecimalsByCode(currency) ?? fiatDecimals(currency));
    if (currencyDecimals === undefined || !deps.rates.isSupportedCurrency(currency)) {
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
    const success = input.success_url ?? input.redirect_url;
    if (
      input.success_url !== undefined &&
      input.redirect_url !== undefined &&
      input.success_url !== input.redirect_url
    ) {
      throw new AppError(
        'parameter_invalid',
        'success_url and redirect_url are the same address: give one.',
        {
          param: 'success_url',
        },
      );
    }
    const redirectUrl =
      success === undefined
        ? null
        : validRedirectUrl(success, input.success_url === undefined ? 'redirect_url' : 'success_url');
    const cancelUrl =
      input.cancel_url === undefined ? null : validRedirectUrl(input.cancel_url, 'cancel_url');
    if (pair === undefined) {
      // Priced in a crypto asset, the payment is offered in that asset (on each chain carrying it) unless told otherwise.
      const assetFilter = input.asset ?? (assetDecimalsByCode(currency) === undefined ? undefined : currency);
      const options = await pricing.optionsFor(merchantId, isTest, assetFilter);
      return { currency, amount, windowSeconds, redirectUrl, cancelUrl, picked: undefined, options };
    }
    await pricing.checkUsable(merchantId, isTest, pair.chain);
    const quote = await pricing.quote(pair.asset, currency, amount, isTest);
    return {
      currency,
      amount,
      windowSeconds,
      redirectUrl,
      cancelUrl,
      picked: { ...pair, ...quote },
      options: null,
    };
  }

  type Prepared = Awaited<ReturnType<typeof prepare>>;

  /** The deposit address a priced request needs (none until the payer picks). Take it before any transaction. */
  function depositFor(prepared: Prepared, isTest: boolean): Promise<PooledAddress> | undefined {
    return prepared.picked === undefined ? undefined : addresses.take(prepared.picked.chain.id, isTest);
  }

  /** A new payment, at its deposit address when its chain is known, as it is to be inserted. */
  function newPayment(
    merchantId: string,
    isTest: boolean,
    input: CreatePaymentInput,
    prepared: Prepared,
    deposit: PooledAddress | undefined,
    paymentLinkId: string | null = null,
  ): StoredPaymentRow {
    const now = clock.now();
    const { picked } = prepared;
    return {
      id: uuidv7(now.getTime()),
      merchantId,
      isTest,
      status: 'pending',
      amount: prepared.amount,
      currency: prepared.currency,
      chain: picked?.chain.id ?? null,
      asset: picked?.asset.code ?? null,
      address: deposit?.address ?? null,
      derivationIndex: deposit?.index ?? null,
      expectedBaseUnits: picked?.expected.toString() ?? null,
      receivedBaseUnits: '0',
      rate: picked?.rate.rate ?? null,
      rateSource: picked?.rate.source ?? null,
      paymentOptions: prepared.options,
      selectedAt: null,
      quoteExpiresAt: null,
      txHash: null,
      orderId: input.order_id ?? null,
      customerEmail: input.customer_email ?? null,
      confirmedAt: null,
      confirmationRate: null,
      confirmationRateSource: null,
      metadata: input.metadata ?? {},
      redirectUrl: prepared.redirectUrl,
      cancelUrl: prepared.cancelUrl,
      paymentLinkId,
      locale: input.locale ?? null,
      forwardedAt: null,
      forwardTxHash: null,
      forwardFeeBaseUnits: null,
      checkoutSimulatedAt: null,
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

  /** Without an idempotency key: one statement (see inserts), or with other creations waiting meanwhile. */
  async function createNow(
    merchantId: string,
    isTest: boolean,
    input: CreatePaymentInput,
    paymentLinkId: string | null,
  ): Promise<PaymentView> {
    const prepared = await prepare(merchantId, isTest, input);
    // One statement needs no transaction: the index comes from the address pool, the row is inserted on its own, or
    // with other creations that wait meanwhile, in one statement (see inserts).
    const deposit = await depositFor(prepared, isTest);
    const row = newPayment(merchantId, isTest, input, prepared, deposit, paymentLinkId);
    await inserts.add(row);
    return toView(row);
  }

  return {
    /**
     * A payment made by a visit to a payment link (payment-links module): the link's merchant and mode, its terms as
     * the request, the link recorded on the payment.
     */
    createFromLink: (link: { id: string; merchantId: string; isTest: boolean }, input: CreatePaymentInput) =>
      createNow(link.merchantId, link.isTest, { ...input, is_test: link.isTest }, link.id),

    async create(
      principal: Principal,
      input: CreatePaymentInput,
      idempotencyKey: string | undefined,
    ): Promise<{ status: 201; body: PaymentView; replayed: boolean }> {
      // A key acts in its own mode; a dashboard session says which (`is_test`).
      const isTest = modeForWrite(principal, input.is_test);
      const merchantId = principal.merchantId;
      if (idempotencyKey === undefined) {
        return { status: 201, body: await createNow(merchantId, isTest, input, null), replayed: false };
      }

      const requestHash = createHash('sha256').update(stableStringify(input)).digest('hex');
      const known = await repo.findIdempotency(merchantId, isTest, idempotencyKey);
      if (known !== undefined && known.createdAt.getTime() > clock.now().getTime() - IDEMPOTENCY_TTL_MS) {
        return replay(known, requestHash);
      }
      const prepared = await prepare(merchantId, isTest, input);
      const deposit = await depositFor(prepared, isTest);
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
  };
}
