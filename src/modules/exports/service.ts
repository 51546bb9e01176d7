import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits, ratioFromDecimal } from '../../lib/money.ts';
import type { exportLedger } from '../chains/ledger.ts';
import { type ChainInfo, getAsset, getChain } from '../chains/registry.ts';
import { fiatDecimals } from '../payments/amounts.ts';
import { isPicked, type PaymentRow, type PaymentsService } from '../payments/service.ts';
import type { RefundsService } from '../refunds/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import type { EventsService } from '../webhooks/events/service.ts';
import type { ExportKind, ExportQuery } from './schemas.ts';

export interface ExportsDeps {
  db: Db;
  payments: Pick<PaymentsService, 'exportPage'>;
  refunds: Pick<RefundsService, 'exportPage' | 'totalsByPayments'>;
  events: Pick<EventsService, 'exportPage'>;
  ledger: typeof exportLedger;
  /** Rows read per query (keyset pages): what sits in memory at once, whatever the export's size. */
  pageSize?: number;
}

type Cell = string | boolean | null;
type Row = Record<string, Cell>;

/** The columns of each export, in order: the CSV header, and the keys of each JSON Lines object. */
const columns: Record<ExportKind, readonly string[]> = {
  payments: [
    'payment_id',
    'created_at',
    'expires_at',
    'status',
    'is_test',
    'chain',
    'asset',
    'amount',
    'currency',
    'rate',
    'rate_source',
    'expected_native',
    'received_native',
    'value_at_creation',
    'received_value_at_locked_rate',
    'confirmed_at',
    'confirmation_rate',
    'confirmation_rate_source',
    'value_at_confirmation',
    'refunded_native',
    'refund_fees_native',
    'forwarded_at',
    'forward_tx_hash',
    'sweep_fee_native',
    'native_asset',
    'tx_hash',
    'order_id',
  ],
  deposits: [
    'deposit_id',
    'payment_id',
    'chain',
    'asset',
    'amount_native',
    'value_at_locked_rate',
    'currency',
    'state',
    'tx_hash',
    'output_index',
    'block_number',
    'seen_at',
    'final_at',
    'reverted_at',
    'swept',
    'refunded_native',
    'is_test',
  ],
  sweeps: [
    'sweep_id',
    'created_at',
    'chain',
    'asset',
    'state',
    'amount_native',
    'fee_native',
    'native_asset',
    'to_address',
    'tx_hash',
    'payments',
    'final_at',
    'is_test',
  ],
  refunds: [
    'refund_id',
    'payment_id',
    'created_at',
    'status',
    'chain',
    'asset',
    'amount_native',
    'currency',
    'currency_amount',
    'sent_amount_native',
    'fee_native',
    'native_asset',
    'source',
    'to_address',
    'tx_hash',
    'reason',
    'sent_at',
    'is_test',
  ],
  events: ['event_id', 'created_at', 'type', 'payment_id', 'is_test', 'payload'],
};

function chainOf(id: string): ChainInfo {
  const chain = getChain(id);
  if (chain === undefined) throw new Error(`unknown chain ${id}`);
  return chain;
}

/** Base units of `asset` on `chain` as a decimal string (null stays null). */
function native(chain: ChainInfo, asset: string, units: string | bigint | null): string | null {
  if (units === null) return null;
  return fromBaseUnits(BigInt(units), getAsset(chain, asset)?.decimals ?? chain.nativeAsset.decimals);
}

/**
 * What `units` of the payment's asset are worth in its currency at its locked rate, rounded down to the currency's
 * precision (fiat: its minor unit; a coin: its decimals). The rate is units of currency per whole asset: the locked
 * one unless another is given (the rate stored when the payment was confirmed).
 */
function valueAtRate(payment: PaymentRow, units: bigint, rateText: string = payment.rate): string {
  const chain = chainOf(payment.chain);
  const assetDecimals = getAsset(chain, payment.asset)?.decimals ?? 0;
  const currencyDecimals =
    payment.currency === payment.asset ? assetDecimals : (fiatDecimals(payment.currency) ?? 2);
  const rate = ratioFromDecimal(rateText);
  const scaled =
    (units * rate.num * 10n ** BigInt(currencyDecimals)) / (rate.den * 10n ** BigInt(assetDecimals));
  return fromBaseUnits(scaled, currencyDecimals);
}

const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/**
 * Exports for accounting: payments, deposits, sweeps, refunds and events of one merchant and mode, as CSV (csv-stringify)
 * or JSON Lines, streamed. Rows are read a keyset page at a time (never an offset, never the whole result) and pushed
 * through a stream that waits for the client: memory stays flat however many rows there are.
 */
export function createExportsService(deps: ExportsDeps) {
  const pageSize = deps.pageSize ?? 250;

  /** Rows gathered into pages of `pageSize`, to be written as one chunk each. */
  async function* pages(rows: AsyncGenerator<Row>): AsyncGenerator<Row[]> {
    let page: Row[] = [];
    for await (const row of rows) {
      page.push(row);
      if (page.length === pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  /** Every row of a listing paged by (created_at, id), oldest first: the next page is asked for once one is read. */
  async function* keysetRows<R extends { createdAt: Date; id: string }>(
    page: (after: { createdAt: Date; id: string } | undefined) => Promise<R[]>,
  ): AsyncGenerator<R> {
    let after: { createdAt: Date; id: string } | undefined;
    for (;;) {
      const rows = await page(after);
      yield* rows;
      const last = rows.at(-1);
      if (rows.length < pageSize || last === undefined) return;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  async function* paymentPages(filter: Parameters<ExportsDeps['payments']['exportPage']>[0]) {
    let after: string | undefined;
    for (;;) {
      const page = await deps.payments.exportPage(filter, pageSize, after);
      if (page.length > 0) yield page;
      const last = page.at(-1);
      if (page.length < pageSize || last === undefined) return;
      after = last.id;
    }
  }

  async function* paymentRows(
    filter: Parameters<ExportsDeps['payments']['exportPage']>[0],
  ): AsyncGenerator<Row> {
    for await (const page of paymentPages(filter)) {
      const totals = await deps.refunds.totalsByPayments(page.map((payment) => payment.id));
      for (const payment of page) {
        if (!isPicked(payment)) {
          // Created without its chain and not picked by the payer yet: nothing on a chain to tell.
          yield {
            payment_id: payment.id,
            created_at: payment.createdAt.toISOString(),
            expires_at: payment.expiresAt.toISOString(),
            status: payment.status,
            is_test: payment.isTest,
            chain: null,
            asset: null,
            amount: payment.amount,
            currency: payment.currency,
            rate: null,
            rate_source: null,
            expected_native: null,
            received_native: null,
            value_at_creation: payment.amount,
            received_value_at_locked_rate: null,
            confirmed_at: null,
            confirmation_rate: null,
            confirmation_rate_source: null,
            value_at_confirmation: null,
            refunded_native: null,
            refund_fees_native: null,
            forwarded_at: null,
            forward_tx_hash: null,
            sweep_fee_native: null,
            native_asset: null,
            tx_hash: null,
            order_id: payment.orderId,
          };
          continue;
        }
        const chain = chainOf(payment.chain);
        const refunds = totals.get(payment.id);
        yield {
          payment_id: payment.id,
          created_at: payment.createdAt.toISOString(),
          expires_at: payment.expiresAt.toISOString(),
          status: payment.status,
          is_test: payment.isTest,
          chain: payment.chain,
          asset: payment.asset,
          amount: payment.amount,
          currency: payment.currency,
          rate: payment.rate,
          rate_source: payment.rateSource,
          expected_native: native(chain, payment.asset, payment.expectedBaseUnits),
          received_native: native(chain, payment.asset, payment.receivedBaseUnits),
          value_at_creation: payment.amount,
          received_value_at_locked_rate: valueAtRate(payment, BigInt(payment.receivedBaseUnits)),
          // What it received, at the rate of the moment it was confirmed (stored then, never recomputed).
          confirmed_at: iso(payment.confirmedAt),
          confirmation_rate: payment.confirmationRate,
          confirmation_rate_source: payment.confirmationRateSource,
          value_at_confirmation:
            payment.confirmationRate === null
              ? null
              : valueAtRate(payment, BigInt(payment.receivedBaseUnits), payment.confirmationRate),
          refunded_native: native(chain, payment.asset, refunds?.refunded ?? 0n),
          refund_fees_native: native(chain, chain.nativeAsset.code, refunds?.fees ?? 0n),
          forwarded_at: iso(payment.forwardedAt),
          forward_tx_hash: payment.forwardTxHash,
          sweep_fee_native: native(chain, chain.nativeAsset.code, payment.forwardFeeBaseUnits),
          native_asset: chain.nativeAsset.code,
          tx_hash: payment.txHash,
          order_id: payment.orderId,
        };
      }
    }
  }

  async function* depositRows(
    filter: Parameters<ExportsDeps['payments']['exportPage']>[0],
  ): AsyncGenerator<Row> {
    // Deposits of the payments selected (created in the range, of that status, chain and asset), page by page.
    for await (const page of paymentPages(filter)) {
      const byId = new Map(page.map((payment) => [payment.id, payment]));
      for (const deposit of await deps.ledger.depositsOfPayments(deps.db, [...byId.keys()])) {
        const payment = byId.get(deposit.paymentId);
        if (payment === undefined) continue;
        const chain = chainOf(deposit.chain);
        const counted = isPicked(payment) && deposit.asset === payment.asset;
        yield {
          deposit_id: deposit.id,
          payment_id: deposit.paymentId,
          chain: deposit.chain,
          asset: deposit.asset,
          amount_native: native(chain, deposit.asset, deposit.amount),
          value_at_locked_rate: counted ? valueAtRate(payment, BigInt(deposit.amount)) : null,
          currency: counted ? payment.currency : null,
          state: deposit.state,
          tx_hash: deposit.txHash,
          output_index: String(deposit.outputIndex),
          block_number: deposit.state === 'mempool' ? null : String(deposit.blockNumber),
          seen_at: deposit.seenAt.toISOString(),
          final_at: iso(deposit.finalAt),
          reverted_at: iso(deposit.revertedAt),
          swept: deposit.forwardId !== null,
          refunded_native: native(chain, deposit.asset, deposit.refunded),
          is_test: deposit.isTest,
        };
      }
    }
  }

  return {
    /**
     * The export of `kind` as a stream of CSV or JSON Lines text, with its content type and a file name. Filters:
     * creation time [from, to), status (payments, refunds), chain, asset; the mode is the key's, or `is_test`.
     */
    open(principal: Principal, kind: ExportKind, query: ExportQuery) {
      const isTest = modeForWrite(principal, query.is_test);
      const from = query.from === undefined ? undefined : new Date(query.from);
      const to = query.to === undefined ? undefined : new Date(query.to);
      if (from !== undefined && to !== undefined && from >= to) {
        throw new AppError('parameter_invalid', 'from must be before to.', { param: 'from' });
      }
      const filter = {
        merchantId: principal.merchantId,
        isTest,
        from,
        to,
        status: query.status,
        chain: query.chain?.toLowerCase(),
        asset: query.asset?.toUpperCase(),
      };
      const rows = ((): AsyncGenerator<Row> => {
        switch (kind) {
          case 'payments':
            return paymentRows(filter);
          case 'deposits':
            return depositRows(filter);
          case 'sweeps':
            return sweepRows(filter);
          case 'refunds':
            return refundRows(filter);
          case 'events':
            return eventRows(filter);
        }
      })();
      const stamp = new Date().toISOString().slice(0, 10);
      const jsonl = query.format === 'jsonl';
      const header = columns[kind];
      // One chunk of text per page of rows (not an object per row through the stream): little for the collector to
      // keep. Readable.from reads the next page only when the client has taken the last one.
      const text = async function* (): AsyncGenerator<string> {
        if (!jsonl) yield stringify([], { header: true, columns: [...header] });
        for await (const page of pages(rows)) {
          yield jsonl
            ? page.map((row) => `${JSON.stringify(row)}\n`).join('')
            : stringify(page, { columns: [...header], cast: { boolean: String } });
        }
      };
      return {
        contentType: jsonl ? 'application/x-ndjson; charset=utf-8' : 'text/csv; charset=utf-8',
        filename: `${kind}-${isTest ? 'test' : 'live'}-${stamp}.${jsonl ? 'jsonl' : 'csv'}`,
        stream: Readable.from(text(), { objectMode: false, highWaterMark: 1 }),
      };
    },
  };

  async function* sweepRows(filter: {
    merchantId: string;
    isTest: boolean;
    from?: Date | undefined;
    to?: Date | undefined;
    chain?: string | undefined;
    asset?: string | undefined;
  }): AsyncGenerator<Row> {
    for await (const forward of keysetRows((after) =>
      deps.ledger.forwardsPage(deps.db, filter, pageSize, after),
    )) {
      const chain = chainOf(forward.chain);
      yield {
        sweep_id: forward.id,
        created_at: forward.createdAt.toISOString(),
        chain: forward.chain,
        asset: forward.asset,
        state: forward.state,
        amount_native: native(chain, forward.asset, forward.amount),
        fee_native: native(chain, chain.nativeAsset.code, forward.fee),
        native_asset: chain.nativeAsset.code,
        to_address: forward.toAddress,
        tx_hash: forward.txHash === '' ? null : forward.txHash,
        payments: forward.paymentIds.join(' '),
        final_at: iso(forward.finalAt),
        is_test: forward.isTest,
      };
    }
  }

  async function* refundRows(filter: Parameters<RefundsService['exportPage']>[0]): AsyncGenerator<Row> {
    for await (const refund of keysetRows((after) => deps.refunds.exportPage(filter, pageSize, after))) {
      const chain = chainOf(refund.chain);
      yield {
        refund_id: refund.id,
        payment_id: refund.paymentId,
        created_at: refund.createdAt.toISOString(),
        status: refund.status,
        chain: refund.chain,
        asset: refund.asset,
        amount_native: native(chain, refund.asset, refund.amount),
        currency: refund.currency,
        currency_amount: refund.currencyAmount,
        sent_amount_native: native(chain, refund.asset, refund.sentAmount),
        fee_native: native(chain, chain.nativeAsset.code, refund.fee),
        native_asset: chain.nativeAsset.code,
        source: refund.source,
        to_address: refund.toAddress,
        tx_hash: refund.txHash,
        reason: refund.reason,
        sent_at: iso(refund.sentAt),
        is_test: refund.isTest,
      };
    }
  }

  async function* eventRows(filter: Parameters<EventsService['exportPage']>[0]): AsyncGenerator<Row> {
    for await (const event of keysetRows((after) => deps.events.exportPage(filter, pageSize, after))) {
      yield {
        event_id: event.id,
        created_at: event.createdAt.toISOString(),
        type: event.type,
        payment_id: event.paymentId,
        is_test: event.isTest,
        payload: event.body,
      };
    }
  }
}
