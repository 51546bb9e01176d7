import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits } from '../../lib/money.ts';
import type { ConfirmationsOf } from '../chains/confirmations.ts';
import { paymentUri } from '../chains/payment-uri.ts';
import { explorerTxLink, getAsset, networkOf } from '../chains/registry.ts';
import type { Branding } from '../settings/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForRead } from '../tenancy/scope.ts';
import type { EventsService } from '../webhooks/events/service.ts';
import { createConfirmationCounter, type DepositLedger, seenOfDeposits } from './deposit-facts.ts';
import { amounts } from './model.ts';
import type { Pricing } from './pricing.ts';
import {
  type ExportFilter,
  isPicked,
  type PaymentRow,
  type PaymentsRepo,
  type StoredPaymentRow,
} from './repo.ts';
import {
  type CheckoutView,
  checkoutLocales,
  type DepositView,
  type PaymentDetailView,
  type PaymentView,
} from './schemas.ts';
import type { PaymentStatus } from './statuses.ts';

export interface PaymentViewsDeps {
  db: Db;
  repo: PaymentsRepo;
  publicUrl: string;
  /** Confirmations a deposit of this chain and mode needs (chains/confirmations.ts). */
  confirmationsOf: ConfirmationsOf;
  /** Deposits and chain heights, as the chains module recorded them (read only). */
  ledger: DepositLedger;
  events: Pick<EventsService, 'eventsOfPaymentPart'>;
  /** Prices the options of a payment whose payer has not picked yet (checkout view). */
  pricing: Pick<Pricing, 'priceOptions'>;
  /** What the checkout shows of a merchant (settings; cached there). */
  branding(merchantId: string): Promise<Branding | null>;
}

/** A merchant's branding as the public views show it (`merchant`), or null when it set none. */
export function brandingView(branding: Branding | null): CheckoutView['merchant'] {
  return branding === null
    ? null
    : {
        name: branding.name,
        logo_url: branding.logoUrl,
        accent_color: branding.accentColor,
        support_email: branding.supportEmail,
        support_url: branding.supportUrl,
      };
}

/** A payment's checkout language, as one of the API's values. */
function localeOf(row: Pick<StoredPaymentRow, 'locale'>): PaymentView['locale'] {
  return (checkoutLocales as readonly string[]).includes(row.locale ?? '')
    ? (row.locale as PaymentView['locale'])
    : null;
}

/** What every view of a payment says the same way, picked or not: the merchant's own fields and its addresses. */
function merchantFields(row: StoredPaymentRow) {
  return {
    is_test: row.isTest,
    order_id: row.orderId,
    customer_email: row.customerEmail,
    metadata: row.metadata,
    redirect_url: row.redirectUrl,
    success_url: row.redirectUrl,
    payment_link_id: row.paymentLinkId,
    cancel_url: row.cancelUrl,
    locale: localeOf(row),
  };
}

/** Who chose a payment's chain, when the payer did, and when the payer's quote lapses. */
function choiceOf(row: Pick<StoredPaymentRow, 'paymentOptions' | 'selectedAt' | 'quoteExpiresAt'>) {
  return {
    chosen_by: row.paymentOptions === null ? ('merchant' as const) : ('payer' as const),
    selected_at: row.selectedAt?.toISOString() ?? null,
    quote_expires_at: row.quoteExpiresAt?.toISOString() ?? null,
  };
}

/** A payment with its chain, or the answer for one whose payer has not picked its chain yet. */
function pickedOrRefused(row: StoredPaymentRow, param: string): PaymentRow {
  if (isPicked(row)) return row;
  throw new AppError(
    'invalid_state',
    'The payer has not picked a chain for this payment yet: there is no address to pay (pick one on its checkout).',
    { param },
  );
}

/** The reads: a payment as the API, the dashboard and the public checkout show it. */
export function createPaymentViews(deps: PaymentViewsDeps) {
  const { db, repo } = deps;
  const seenOf = createConfirmationCounter({
    db,
    ledger: deps.ledger,
    confirmationsOf: deps.confirmationsOf,
  });
  /** A payment with its newest 100 events and its chain side, in one statement (so one snapshot). */
  const findDetail = repo.prepareFindWithParts('payments_find_detail', (payment) => ({
    events: deps.events.eventsOfPaymentPart(payment, 100),
    chainSide: deps.ledger.depositsOfPaymentPart(payment),
  }));

  /** A payment whose payer has not picked its chain yet: no chain, address, amount in an asset or rate. */
  function unpickedView(row: StoredPaymentRow): PaymentView {
    return {
      payment_id: row.id,
      status: row.status as PaymentStatus,
      amount: row.amount,
      currency: row.currency,
      chain: null,
      asset: null,
      address: null,
      expected_amount_native: null,
      received_amount_native: '0',
      remaining_amount_native: null,
      tx_hash: null,
      rate: null,
      ...choiceOf(row),
      confirmations: { seen: 0, required: 0 },
      ...merchantFields(row),
      checkout_url: `${deps.publicUrl}/pay/${row.id}`,
      payment_uri: null,
      forwarded_at: null,
      forward_tx_hash: null,
      forward_fee_native: null,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
    };
  }

  /** The merchant's branding as the checkout shows it (cached by the settings service). */
  async function merchantOf(merchantId: string): Promise<CheckoutView['merchant']> {
    return brandingView(await deps.branding(merchantId));
  }

  function toView(stored: StoredPaymentRow, seen = 0): PaymentView {
    if (!isPicked(stored)) return unpickedView(stored);
    const row = stored;
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
      ...choiceOf(row),
      confirmations: { seen, required: deps.confirmationsOf(chain.id, row.isTest) },
      ...merchantFields(row),
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

  return {
    toView,

    /**
     * One payment with its deposits (explorer links) and its events, oldest first, all read in one snapshot: a
     * watcher's commit (deposit, status and event together) shows whole or not at all.
     */
    async get(principal: Principal, id: string): Promise<PaymentDetailView> {
      const found = await findDetail(principal.merchantId, modeForRead(principal, undefined), id);
      if (found === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
      const { row } = found;
      const { deposits: depositRows, height } = found.parts.chainSide;
      const events = [...found.parts.events].reverse();
      if (!isPicked(row)) return { ...unpickedView(row), deposits: [], events };
      const { chain, asset } = amounts(row);
      const required = deps.confirmationsOf(row.chain, row.isTest);
      const seen = seenOfDeposits(row.status, depositRows, height, required);
      const network = networkOf(chain, row.isTest);
      const depositViews: DepositView[] = depositRows.map((deposit) => {
        const decimals = getAsset(chain, deposit.asset)?.decimals ?? asset.decimals;
        const inMempool = deposit.state === 'mempool';
        const confirmations =
          deposit.state === 'final'
            ? required
            : deposit.state === 'reverted' || inMempool || height === undefined
              ? 0
              : Math.max(0, Math.min(required, height - deposit.blockNumber + 1));
        return {
          id: deposit.id,
          tx_hash: deposit.txHash,
          output_index: deposit.outputIndex,
          asset: deposit.asset,
          amount_native: fromBaseUnits(BigInt(deposit.amount), decimals),
          block_number: inMempool ? null : deposit.blockNumber,
          block_hash: inMempool ? null : deposit.blockHash,
          state: deposit.state as DepositView['state'],
          confirmations,
          confirmations_required: required,
          counted: deposit.asset === row.asset,
          simulated: deposit.simulated,
          explorer_url: deposit.simulated ? null : explorerTxLink(network, deposit.txHash),
          seen_at: deposit.seenAt.toISOString(),
          final_at: deposit.finalAt?.toISOString() ?? null,
          reverted_at: deposit.revertedAt?.toISOString() ?? null,
          left_as_dust_at: deposit.leftAsDustAt?.toISOString() ?? null,
        };
      });
      return {
        ...toView(row, seen),
        deposits: depositViews,
        events,
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
        payment_link_id?: string | undefined;
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
        paymentLinkId: query.payment_link_id,
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
      const stored = await repo.findCheckout(id);
      if (stored === undefined) throw new AppError('not_found', 'No such payment.', { param: 'payment_id' });
      if (!isPicked(stored)) {
        const open = stored.status === 'pending';
        const options =
          open && stored.paymentOptions !== null
            ? await deps.pricing.priceOptions(
                stored.paymentOptions,
                stored.currency,
                stored.amount,
                stored.isTest,
              )
            : [];
        return {
          payment_id: stored.id,
          status: stored.status as PaymentStatus,
          amount: stored.amount,
          currency: stored.currency,
          chain: null,
          chain_name: null,
          network: null,
          asset: null,
          asset_decimals: null,
          address: null,
          expected_amount_native: null,
          received_amount_native: '0',
          remaining_amount_native: null,
          payment_uri: null,
          ...choiceOf(stored),
          options: options.map((option) => ({
            chain: option.chain,
            chain_name: option.chainInfo.name,
            network: networkOf(option.chainInfo, stored.isTest).name,
            asset: option.asset,
            asset_name: option.assetInfo.name,
            amount_native: option.amountNative,
          })),
          expires_at: stored.expiresAt.toISOString(),
          confirmations: { seen: 0, required: 0 },
          is_test: stored.isTest,
          redirect_url: stored.redirectUrl,
          cancel_url: stored.cancelUrl,
          merchant: await merchantOf(stored.merchantId),
          tx_hash: null,
          locale: stored.locale,
        };
      }
      const row = stored;
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
        ...choiceOf(row),
        options: [],
        expires_at: row.expiresAt.toISOString(),
        confirmations: {
          seen: (await seenOf([row])).get(row.id) ?? 0,
          required: deps.confirmationsOf(chain.id, row.isTest),
        },
        is_test: row.isTest,
        redirect_url: row.redirectUrl,
        cancel_url: row.cancelUrl,
        merchant: await merchantOf(row.merchantId),
        tx_hash: row.txHash,
        locale: row.locale,
      };
    },

    /** A keyset page of a merchant's payments for exports, oldest first (see the repo's exportPage). */
    exportPage: (filter: ExportFilter, limit: number, afterId: string | undefined) =>
      repo.exportPage(filter, limit, afterId),

    /** Reports: per day, chain and asset, payments created and paid and what they received (see the repo). */
    reportDaily: (filter: { merchantId: string; isTest: boolean; from: Date; to: Date }) =>
      repo.reportDaily(filter),
    /** Overpaid payments of a chain and mode changed since `since` (auto-refunds of the excess). */
    overpaidSince: (chain: string, isTest: boolean, since: Date, limit: number) =>
      repo.overpaidSince(chain, isTest, since, limit),
    /** Reports: a page of paid payments' creation times. */
    paidCreationTimes: (
      filter: { merchantId: string; isTest: boolean; from: Date; to: Date },
      limit: number,
      afterId: string | undefined,
    ) => repo.paidCreationTimes(filter, limit, afterId),
    /**
     * The public receipt of a paid payment: its checkout view and its final deposits, each with its explorer link
     * (none on the simulated chain). Undefined while the payment is not completed or overpaid.
     */
    async receipt(id: string): Promise<
      | {
          view: CheckoutView;
          deposits: Array<{
            tx_hash: string;
            amount_native: string;
            explorer_url: string | null;
            final_at: string | null;
          }>;
        }
      | undefined
    > {
      const view = await this.checkoutView(id);
      if (view.status !== 'completed' && view.status !== 'overpaid') return undefined;
      const row = await repo.findPublic(id);
      if (row === undefined || !isPicked(row)) return undefined;
      const { chain, asset } = amounts(row);
      const network = networkOf(chain, row.isTest);
      const deposits = (await deps.ledger.depositsOfPayment(db, row.id))
        .filter((deposit) => deposit.state === 'final' && deposit.asset === row.asset)
        .map((deposit) => ({
          tx_hash: deposit.txHash,
          amount_native: fromBaseUnits(BigInt(deposit.amount), asset.decimals),
          explorer_url: deposit.simulated ? null : explorerTxLink(network, deposit.txHash),
          final_at: deposit.finalAt?.toISOString() ?? null,
        }));
      return { view, deposits };
    },

    /** What the payments of some payment links add up to: how many, how many paid, and the paid amount per link. */
    linkTotals: (merchantId: string, linkIds: string[]) => repo.linkTotals(merchantId, linkIds),

    /** Payment rows by id, for settlement (forwarding needs merchant, status and derivation index). */
    rowsByIds: (ids: string[]) => repo.byIds(db, ids),

    /** Open payments (pending, confirming, underpaid) counted per chain, status and mode, for the metrics. */
    openCounts: () => repo.openCounts(db),

    /** Payments of a chain and mode to watch: created at or after `createdFrom`, window ending after `expiresAfter`. */
    watchable: (chain: string, isTest: boolean, createdFrom: Date, expiresAfter: Date) =>
      repo.watchable(db, chain, isTest, createdFrom, expiresAfter),

    /** A payment of the principal's merchant (any mode the principal may see) that has its chain, as its row. */
    async findRow(principal: Principal, id: string): Promise<PaymentRow> {
      const row = await repo.find(principal.merchantId, modeForRead(principal, undefined), id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
      return pickedOrRefused(row, 'id');
    },

    /** A payment that has its chain, by its id alone, for the public checkout (never hand its merchant data on). */
    async findPublicRow(id: string): Promise<PaymentRow> {
      const row = await repo.findPublic(id);
      if (row === undefined) throw new AppError('not_found', 'No such payment.', { param: 'payment_id' });
      return pickedOrRefused(row, 'payment_id');
    },
  };
}
