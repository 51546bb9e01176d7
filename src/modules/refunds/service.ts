import { createHash, createHmac } from 'node:crypto';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { safeEqual } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { fromBaseUnits, MoneyFormatError, toBaseUnits } from '../../lib/money.ts';
import type { ChainAdapter } from '../chains/adapter.ts';
import { validateAddress } from '../chains/addresses.ts';
import { paymentUri } from '../chains/payment-uri.ts';
import { type ChainInfo, explorerTxLink, getAsset, getChain, networkOf } from '../chains/registry.ts';
import { currencyToBaseUnits } from '../payments/model.ts';
import type { PaymentRow, PaymentsService } from '../payments/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForRead } from '../tenancy/scope.ts';
import type { EventsService, RefundEventSnapshot, RefundEventType } from '../webhooks/events/service.ts';
import { type RefundRow, refundsRepo as repo } from './repo.ts';
import type { CreateRefundInput, RefundLinkView, RefundStatus, RefundView } from './schemas.ts';

export interface RefundsDeps {
  db: Db;
  clock: Clock;
  publicUrl: string;
  /** Keys the refund links (HMAC): a link is checked without storing it, and cannot be made without the key. */
  masterKey: Buffer;
  payments: Pick<PaymentsService, 'findRow' | 'lockForRefund' | 'overpaidSince'>;
  /** Whether a merchant refunds overpaid excess on its own (settings). */
  autoRefundsOverpaid?: ((merchantId: string) => Promise<boolean>) | undefined;
  events: Pick<EventsService, 'recordRefundEvent'>;
  /** The connected chain adapter of a chain and mode. */
  adapterOf(chain: string, isTest: boolean): ChainAdapter | undefined;
  /**
   * Queues the payer's refund link for mailing inside the refund's creating transaction (the notices' outbox: sent
   * once, never lost on a crash); a no-op without SMTP.
   */
  queueRefundLink?: ((tx: Db, to: string, link: string, refund: RefundView) => Promise<void>) | undefined;
}

/** Key-sorted JSON of a request, so a replay with the same fields in another order is the same request. */
function requestHashOf(paymentId: string, input: CreateRefundInput): string {
  const entries = Object.entries({ payment_id: paymentId, ...input })
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

function chainOf(id: string): ChainInfo {
  const chain = getChain(id);
  if (chain === undefined) throw new Error(`refund on unknown chain ${id}`);
  return chain;
}

function decimalsOf(chain: ChainInfo, asset: string): number {
  const info = getAsset(chain, asset);
  if (info === undefined) throw new Error(`refund in unknown asset ${asset} on ${chain.id}`);
  return info.decimals;
}

/** A refund of `payment` as first recorded, waiting for its payer's address; callers set amount and the rest. */
function blankRefund(payment: PaymentRow, now: Date): RefundRow {
  return {
    id: '',
    merchantId: payment.merchantId,
    paymentId: payment.id,
    isTest: payment.isTest,
    chain: payment.chain,
    asset: payment.asset,
    amount: '0',
    currency: null,
    currencyAmount: null,
    status: 'awaiting_address',
    source: null,
    toAddress: null,
    fromAddress: null,
    allocations: null,
    payerEmail: null,
    reason: null,
    automatic: false,
    sentAmount: null,
    fee: null,
    rawTx: null,
    txHash: null,
    replaced: null,
    blockNumber: null,
    broadcastCount: 0,
    lastError: null,
    idempotencyKey: null,
    requestHash: null,
    createdAt: now,
    addressAt: null,
    broadcastAt: null,
    sentAt: null,
    failedAt: null,
    updatedAt: now,
  };
}

/**
 * Refunds: asked for by the merchant (API or dashboard) on a payment, given an address by the payer (refund link) or
 * the merchant, then sent by the chain's refund sender (sender.ts). Every change records its `refund.*` event in the
 * transaction that makes it. What a payment's refunds take never exceeds what it received: a refund is inserted
 * with the payment's row locked, after summing the others (so concurrent requests are served one after the other).
 */
export function createRefundsService(deps: RefundsDeps) {
  const { db, clock } = deps;

  const tokenOf = (id: string): string =>
    createHmac('sha256', deps.masterKey).update(`refund-link:${id}`).digest('base64url').slice(0, 22);
  const linkOf = (id: string): string => `${deps.publicUrl}/refund/${id}.${tokenOf(id)}`;

  function toView(row: RefundRow, feeEstimate: bigint | null = null): RefundView {
    const chain = chainOf(row.chain);
    const decimals = decimalsOf(chain, row.asset);
    const native = chain.nativeAsset.decimals;
    const network = networkOf(chain, row.isTest);
    const amount = BigInt(row.amount);
    return {
      id: row.id,
      payment_id: row.paymentId,
      status: row.status as RefundStatus,
      chain: row.chain,
      asset: row.asset,
      amount_native: fromBaseUnits(amount, decimals),
      currency: row.currency,
      currency_amount: row.currencyAmount,
      source: row.source as RefundView['source'],
      to_address: row.toAddress,
      from_address: row.fromAddress,
      sent_amount_native: row.sentAmount === null ? null : fromBaseUnits(BigInt(row.sentAmount), decimals),
      fee_native: row.fee === null ? null : fromBaseUnits(BigInt(row.fee), native),
      fee_estimate_native: feeEstimate === null ? null : fromBaseUnits(feeEstimate, native),
      tx_hash: row.txHash,
      explorer_url:
        row.txHash === null || (deps.adapterOf(row.chain, row.isTest)?.simulated ?? row.isTest)
          ? null
          : explorerTxLink(network, row.txHash),
      refund_url: linkOf(row.id),
      payment_request:
        row.status === 'awaiting_payment' && row.toAddress !== null
          ? {
              uri: paymentUri({
                chain,
                asset: row.asset,
                address: row.toAddress,
                amountBaseUnits: amount,
                isTest: row.isTest,
              }),
              amount_native: fromBaseUnits(amount, decimals),
              to_address: row.toAddress,
            }
          : null,
      reason: row.reason,
      automatic: row.automatic,
      last_error: row.lastError,
      is_test: row.isTest,
      created_at: row.createdAt.toISOString(),
      sent_at: row.sentAt?.toISOString() ?? null,
      failed_at: row.failedAt?.toISOString() ?? null,
    };
  }

  /** What a `refund.*` event says about the refund as `row` is now. */
  function snapshot(row: RefundRow, error: string | null = null): RefundEventSnapshot {
    const view = toView(row);
    return {
      refund_id: row.id,
      payment_id: row.paymentId,
      status: row.status,
      chain: row.chain,
      asset: row.asset,
      amount_native: view.amount_native,
      sent_amount_native: view.sent_amount_native,
      fee_native: view.fee_native,
      source: row.source,
      to_address: row.toAddress,
      tx_hash: row.txHash,
      reason: row.reason,
      error,
      is_test: row.isTest,
    };
  }

  const record = (tx: Db, type: RefundEventType, row: RefundRow, error: string | null = null) =>
    deps.events.recordRefundEvent(tx, {
      merchantId: row.merchantId,
      type,
      refund: snapshot(row, error),
      occurredAt: clock.now(),
    });

  /** The chain's adapter, if it can send refunds; else the request is refused (never accepted and left unsent). */
  function refundingAdapter(chain: string, isTest: boolean): ChainAdapter {
    const adapter = deps.adapterOf(chain, isTest);
    if (adapter?.buildRefund === undefined) {
      throw new AppError(
        'refunds_unsupported',
        `Refunds on ${getChain(chain)?.name ?? chain} (${isTest ? 'test' : 'live'}) are not available on this server yet.`,
        { param: 'id' },
      );
    }
    return adapter;
  }

  /** Checks a payer's address for the chain (format, checksum, network), then with the node (not a contract). */
  async function acceptAddress(adapter: ChainAdapter, address: string, param: string): Promise<string> {
    const chain = chainOf(adapter.chain);
    const trimmed = address.trim();
    if (!validateAddress(chain.id, adapter.isTest, trimmed)) {
      throw new AppError(
        'refund_address_invalid',
        `"${address}" is not a valid ${chain.name} address${adapter.isTest ? ' on its test network' : ''}: check it ` +
          '(every character, and the network) and try again.',
        { param },
      );
    }
    const refused = await adapter.checkRefundAddress?.(trimmed);
    if (refused !== undefined && refused !== null) {
      throw new AppError('refund_address_invalid', `${trimmed} ${refused}.`, { param });
    }
    return trimmed;
  }

  /** The base units of the payment's asset that `input` asks for (null: everything refundable). */
  function requestedAmount(payment: PaymentRow, input: CreateRefundInput): bigint | null {
    const chain = chainOf(payment.chain);
    const decimals = decimalsOf(chain, payment.asset);
    const currency = (input.currency ?? payment.asset).toUpperCase();
    if (currency !== payment.asset && currency !== payment.currency) {
      throw new AppError(
        'parameter_invalid',
        `currency must be the payment's asset (${payment.asset}) or its currency (${payment.currency}).`,
        { param: 'currency' },
      );
    }
    if (input.amount === undefined) return null;
    try {
      const units =
        currency === payment.asset
          ? toBaseUnits(input.amount, decimals)
          : currencyToBaseUnits(input.amount, payment.rate, decimals);
      if (units <= 0n) throw new MoneyFormatError('not positive');
      return units;
    } catch (error) {
      if (!(error instanceof MoneyFormatError)) throw error;
      throw new AppError(
        'parameter_invalid',
        `amount must be a positive decimal string in ${currency}` +
          (currency === payment.asset ? ` with at most ${decimals} decimals.` : '.'),
        { param: 'amount' },
      );
    }
  }

  async function feeEstimate(adapter: ChainAdapter | undefined, asset: string): Promise<bigint | null> {
    try {
      return (await adapter?.refundFee?.(asset)) ?? null;
    } catch {
      return null; // the node did not answer: no estimate shown
    }
  }

  function parseToken(token: string): RefundRow['id'] {
    const [id = '', mac = ''] = token.split('.');
    if (!safeEqual(mac, tokenOf(id)))
      throw new AppError('not_found', 'No such refund link.', { param: 'token' });
    return id;
  }

  async function linkView(row: RefundRow): Promise<RefundLinkView> {
    const chain = chainOf(row.chain);
    const asset = getAsset(chain, row.asset);
    const adapter = deps.adapterOf(row.chain, row.isTest);
    const view = toView(row);
    return {
      id: row.id,
      status: view.status,
      chain: row.chain,
      chain_name: chain.name,
      network: networkOf(chain, row.isTest).name,
      asset: row.asset,
      amount_native: view.amount_native,
      fee_estimate_native:
        view.fee_native ?? (row.status === 'awaiting_address' ? await feeEstimateText(adapter, row) : null),
      native_asset: chain.nativeAsset.code,
      fee_paid_from_refund: asset?.isNative === true,
      to_address: row.toAddress,
      sent_amount_native: view.sent_amount_native,
      tx_hash: row.txHash,
      explorer_url: view.explorer_url,
      is_test: row.isTest,
    };
  }

  async function feeEstimateText(adapter: ChainAdapter | undefined, row: RefundRow): Promise<string | null> {
    const fee = await feeEstimate(adapter, row.asset);
    return fee === null ? null : fromBaseUnits(fee, chainOf(row.chain).nativeAsset.decimals);
  }

  /** Inside the refund's creating transaction: its link to the payer, when it waits for their address. */
  async function queueLink(tx: Db, row: RefundRow): Promise<void> {
    if (row.payerEmail === null || deps.queueRefundLink === undefined || row.status !== 'awaiting_address')
      return;
    await deps.queueRefundLink(tx, row.payerEmail, linkOf(row.id), toView(row));
  }

  return {
    toView,
    snapshot,
    /** Exports: a keyset page of a merchant's refunds, oldest first. */
    exportPage: (...args: Parameters<typeof repo.exportPage> extends [Db, ...infer Rest] ? Rest : never) =>
      repo.exportPage(db, ...args),
    /** Exports: per payment, what its refunds took and their fees. */
    totalsByPayments: (paymentIds: string[]) => repo.totalsByPayments(db, paymentIds),
    record,
    linkOf,

    /**
     * A refund of (part of) what a payment received. Idempotent with `idempotencyKey` (the same key and body give the
     * first refund back; another body is a 409). Refused when the chain cannot send refunds, when the address is not
     * one of the chain's, or when it would take more than the payment received less its other refunds.
     */
    async create(
      principal: Principal,
      paymentId: string,
      input: CreateRefundInput,
      idempotencyKey: string | undefined,
    ): Promise<{ status: 200 | 201; body: RefundView }> {
      const payment = await deps.payments.findRow(principal, paymentId);
      const requestHash = requestHashOf(paymentId, input);
      if (idempotencyKey !== undefined) {
        const known = await repo.findByIdempotencyKey(
          db,
          principal.merchantId,
          payment.isTest,
          idempotencyKey,
        );
        if (known !== undefined) {
          if (known.requestHash !== requestHash) {
            throw new AppError(
              'idempotency_conflict',
              'This Idempotency-Key was already used with a different request; use a new key for a new refund.',
              { param: 'Idempotency-Key' },
            );
          }
          return { status: 200, body: toView(known) };
        }
      }
      const adapter = refundingAdapter(payment.chain, payment.isTest);
      const wanted = requestedAmount(payment, input);
      const address =
        input.address === undefined ? null : await acceptAddress(adapter, input.address, 'address');
      const now = clock.now();
      const id = newId('rf');
      let row: RefundRow;
      try {
        row = await db.transaction(async (tx) => {
          const locked = await deps.payments.lockForRefund(tx, payment.id);
          if (locked === undefined) throw new AppError('not_found', 'No such payment.', { param: 'id' });
          const refundable = BigInt(locked.receivedBaseUnits) - (await repo.activeTotal(tx, locked.id));
          const amount = wanted ?? refundable;
          if (amount <= 0n || amount > refundable) {
            const decimals = decimalsOf(chainOf(locked.chain), locked.asset);
            throw new AppError(
              'refund_exceeds_received',
              `The payment has ${fromBaseUnits(refundable > 0n ? refundable : 0n, decimals)} ${locked.asset} left to ` +
                'refund (received less its other refunds); a refund cannot take more.',
              { param: 'amount' },
            );
          }
          const inserted: RefundRow = {
            ...blankRefund(locked, now),
            id,
            amount: amount.toString(),
            ...(input.currency !== undefined &&
            input.currency.toUpperCase() !== locked.asset &&
            input.amount !== undefined
              ? { currency: locked.currency, currencyAmount: input.amount }
              : { currency: null, currencyAmount: null }),
            status: address === null ? 'awaiting_address' : 'queued',
            toAddress: address,
            // The payer's email given with the refund, else the one the payment was created with.
            payerEmail: input.email ?? locked.customerEmail ?? null,
            reason: input.reason ?? null,
            idempotencyKey: idempotencyKey ?? null,
            requestHash,
            addressAt: address === null ? null : now,
          };
          await repo.insert(tx, inserted);
          await record(tx, 'refund.created', inserted);
          await queueLink(tx, inserted);
          return inserted;
        });
      } catch (error) {
        // A concurrent twin with the same key won the insert: answer with its refund.
        if (idempotencyKey !== undefined && !(error instanceof AppError)) {
          const winner = await repo.findByIdempotencyKey(
            db,
            principal.merchantId,
            payment.isTest,
            idempotencyKey,
          );
          if (winner !== undefined && winner.requestHash === requestHash)
            return { status: 200, body: toView(winner) };
        }
        throw error;
      }
      return { status: 201, body: toView(row, await feeEstimate(adapter, row.asset)) };
    },

    async get(principal: Principal, id: string): Promise<RefundView> {
      const row = await repo.find(db, id);
      const mode = modeForRead(principal, undefined);
      if (
        row === undefined ||
        row.merchantId !== principal.merchantId ||
        (mode !== undefined && mode !== row.isTest)
      ) {
        throw new AppError('not_found', 'No such refund.', { param: 'id' });
      }
      const fee =
        row.fee === null ? await feeEstimate(deps.adapterOf(row.chain, row.isTest), row.asset) : null;
      return toView(row, fee);
    },

    /** A payment's refunds, oldest first. */
    async ofPayment(principal: Principal, paymentId: string): Promise<RefundView[]> {
      const payment = await deps.payments.findRow(principal, paymentId);
      return (await repo.ofPayment(db, payment.id)).map((row) => toView(row));
    },

    async list(
      principal: Principal,
      query: {
        limit: number;
        starting_after?: string | undefined;
        status?: string | undefined;
        is_test?: boolean | undefined;
      },
    ): Promise<{ data: RefundView[]; has_more: boolean; next_cursor: string | null }> {
      let before: { createdAt: Date; id: string } | undefined;
      if (query.starting_after !== undefined) {
        const after = await repo.find(db, query.starting_after);
        if (after === undefined || after.merchantId !== principal.merchantId) {
          throw new AppError('parameter_invalid', 'starting_after is not a refund of yours.', {
            param: 'starting_after',
          });
        }
        before = { createdAt: after.createdAt, id: after.id };
      }
      const rows = await repo.list(db, {
        merchantId: principal.merchantId,
        isTest: modeForRead(principal, query.is_test),
        status: query.status,
        limit: query.limit + 1,
        before,
      });
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        data: page.map((row) => toView(row)),
        has_more: hasMore,
        next_cursor: hasMore ? (page.at(-1)?.id ?? null) : null,
      };
    },

    /**
     * Auto-refunds (merchant setting `auto_refund_overpaid`): each payment of the chain and mode that turned overpaid
     * in the last day gets one automatic refund of its excess (received − expected, at most what is still
     * refundable), waiting for the payer's address; it is sent as soon as they give it. Returns how many were made.
     */
    async autoRefundOverpaid(chain: string, isTest: boolean): Promise<number> {
      if (deps.autoRefundsOverpaid === undefined) return 0;
      const since = new Date(clock.now().getTime() - 24 * 3600_000);
      const overpaid = await deps.payments.overpaidSince(chain, isTest, since, 200);
      if (overpaid.length === 0) return 0;
      const done = await repo.withAutomaticRefund(
        db,
        overpaid.map((payment) => payment.id),
      );
      const enabled = new Map<string, boolean>();
      let made = 0;
      for (const payment of overpaid) {
        if (done.has(payment.id)) continue;
        if (!enabled.has(payment.merchantId)) {
          enabled.set(payment.merchantId, await deps.autoRefundsOverpaid(payment.merchantId));
        }
        if (enabled.get(payment.merchantId) !== true) continue;
        const excess = BigInt(payment.receivedBaseUnits) - BigInt(payment.expectedBaseUnits);
        if (excess <= 0n) continue;
        const row = await db.transaction(async (tx) => {
          const locked = await deps.payments.lockForRefund(tx, payment.id);
          if (locked === undefined) return null;
          const refundable = BigInt(locked.receivedBaseUnits) - (await repo.activeTotal(tx, locked.id));
          const amount = excess < refundable ? excess : refundable;
          if (amount <= 0n) return null;
          const now = clock.now();
          const inserted: RefundRow = {
            ...blankRefund(locked, now),
            id: newId('rf'),
            amount: amount.toString(),
            reason: 'overpaid excess (automatic)',
            automatic: true,
            payerEmail: locked.customerEmail ?? null,
          };
          await repo.insert(tx, inserted);
          await record(tx, 'refund.created', inserted);
          await queueLink(tx, inserted);
          return inserted;
        });
        if (row !== null) made += 1;
      }
      return made;
    },

    /** The payer's view of a refund through its link (no merchant data). */
    async linkView(token: string): Promise<RefundLinkView> {
      const row = await repo.find(db, parseToken(token));
      if (row === undefined) throw new AppError('not_found', 'No such refund link.', { param: 'token' });
      return linkView(row);
    },

    /**
     * The payer gives their address through the link: checked for the chain, then the refund is queued for the
     * chain's sender. Once given, an address cannot be changed through the link.
     */
    async submitAddress(
      token: string,
      input: { address: string; email?: string | undefined },
    ): Promise<RefundLinkView> {
      const row = await repo.find(db, parseToken(token));
      if (row === undefined) throw new AppError('not_found', 'No such refund link.', { param: 'token' });
      if (row.status !== 'awaiting_address') {
        throw new AppError('invalid_state', 'This refund already has its address.', { param: 'address' });
      }
      const adapter = refundingAdapter(row.chain, row.isTest);
      const address = await acceptAddress(adapter, input.address, 'address');
      const now = clock.now();
      const updated = await repo.transition(db, row.id, ['awaiting_address'], {
        status: 'queued',
        toAddress: address,
        addressAt: now,
        payerEmail: input.email ?? row.payerEmail,
        updatedAt: now,
      });
      if (updated === undefined) {
        throw new AppError('invalid_state', 'This refund already has its address.', { param: 'address' });
      }
      return linkView(updated);
    },
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
