import { createHash } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { createCoalescer } from '../../lib/coalescer.ts';
import { AppError } from '../../lib/errors.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { convertToBaseUnits, toBaseUnits } from '../../lib/money.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import type { DerivationCheck } from '../chains/derivation-check.ts';
import { type DerivationThread, deriveOnThisThread } from '../chains/derivation-thread.ts';
import { type ChainId, chains, getAsset, getChain, isAssetAvailable } from '../chains/registry.ts';
import type { RatesService } from '../rates/index.ts';
import type { SettingsService } from '../settings/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import { createAddressPool, type PooledAddress } from './address-pool.ts';
import { canonicalAmount, fiatDecimals } from './amounts.ts';
import { type IdempotencyRow, MAX_INSERT_ROWS, type PaymentRow, type PaymentsRepo } from './repo.ts';
import type { CreatePaymentInput, PaymentView } from './schemas.ts';

/** What payments need from pricing: a rate locked at creation. */
export type RateProvider = Pick<RatesService, 'getRate' | 'isSupportedCurrency'>;

export interface PaymentCreationDeps {
  /** Whether a watcher can see this chain in this mode (test mode always can: the simulated chain). */
  isChainConnected(chain: ChainId, isTest: boolean): boolean;
  db: Db;
  repo: PaymentsRepo;
  clock: Clock;
  deriver: AddressDeriver;
  /** The second, independent derivation every address must agree with before it is handed out. */
  derivationCheck: DerivationCheck;
  /** Batch derivation off the request path (the derivation thread); default: `deriver` on this thread. */
  deriveMany?: DerivationThread['deriveMany'];
  /** How many inserts of creations may run at once before the next ones wait to go together (default 1). */
  insertsInFlight?: number;
  rates: RateProvider;
  settings: Pick<SettingsService, 'defaultWindowSeconds' | 'payoutWallet'>;
  /** The answer a new payment gets (views.ts). */
  toView(row: PaymentRow): PaymentView;
}

const MIN_WINDOW_SECONDS = 60;
const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
const MAX_BASE_UNITS = 2n ** 256n - 1n;
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

/** Creation: checks and prices the request, takes a deposit address, stores the payment (idempotently). */
export function createPaymentCreation(deps: PaymentCreationDeps) {
  const { db, repo, clock, deriver, rates, toView } = deps;
  const onThisThread = deriveOnThisThread(deriver, deps.derivationCheck);
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
        // One statement needs no transaction: the index comes from the address pool, the row is inserted on its own, or
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
  };
}
