import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits } from '../../lib/money.ts';
import type { exportLedger } from '../chains/ledger.ts';
import { getAsset, getChain } from '../chains/registry.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import type { EventsService } from '../webhooks/events/service.ts';
import type { ReportView } from './schemas.ts';

export interface ReportsDeps {
  db: Db;
  clock: Clock;
  payments: Pick<PaymentsService, 'reportDaily' | 'paidCreationTimes'>;
  events: Pick<EventsService, 'firstPaidAt'>;
  ledger: Pick<typeof exportLedger, 'sweepFeesByMonth'>;
}

const DAY_MS = 24 * 3600_000;
/** The longest period one report covers: beyond it, use the exports. */
const MAX_PERIOD_MS = 400 * DAY_MS;
/** Paid payments timed per query. */
const PAGE = 2000;

/** The middle value (the mean of the two middle ones for an even count); null for none. */
export function median(values: Float64Array): number | null {
  if (values.length === 0) return null;
  const sorted = values.slice().sort();
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The figures of the dashboard's reports page, the same over the API: volume per day by chain and asset, conversion
 * (paid / created), the median time to confirmation, sweep fees per month. Each module counts its own rows (payments,
 * events, sweeps); nothing here reads a table.
 */
export function createReportsService(deps: ReportsDeps) {
  async function medianSecondsToConfirmation(filter: {
    merchantId: string;
    isTest: boolean;
    from: Date;
    to: Date;
  }): Promise<number | null> {
    const seconds: number[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await deps.payments.paidCreationTimes(filter, PAGE, after);
      const paidAt = await deps.events.firstPaidAt(
        filter.merchantId,
        page.map((payment) => payment.id),
      );
      for (const payment of page) {
        const at = paidAt.get(payment.id);
        if (at !== undefined) seconds.push(Math.max(0, (at.getTime() - payment.createdAt.getTime()) / 1000));
      }
      const last = page.at(-1);
      if (page.length < PAGE || last === undefined) break;
      after = last.id;
    }
    const found = median(Float64Array.from(seconds));
    return found === null ? null : Math.round(found * 10) / 10;
  }

  return {
    async report(
      principal: Principal,
      query: { from?: string | undefined; to?: string | undefined; is_test?: boolean | undefined },
    ): Promise<ReportView> {
      const isTest = modeForWrite(principal, query.is_test);
      const to = query.to === undefined ? deps.clock.now() : new Date(query.to);
      const from = query.from === undefined ? new Date(to.getTime() - 30 * DAY_MS) : new Date(query.from);
      if (from >= to) throw new AppError('parameter_invalid', 'from must be before to.', { param: 'from' });
      if (to.getTime() - from.getTime() > MAX_PERIOD_MS) {
        throw new AppError('parameter_invalid', 'A report covers at most 400 days; use the exports beyond.', {
          param: 'from',
        });
      }
      const filter = { merchantId: principal.merchantId, isTest, from, to };
      const [daily, medianSeconds, fees] = await Promise.all([
        deps.payments.reportDaily(filter),
        medianSecondsToConfirmation(filter),
        deps.ledger.sweepFeesByMonth(deps.db, filter),
      ]);
      const created = daily.reduce((sum, row) => sum + row.created, 0);
      const paid = daily.reduce((sum, row) => sum + row.paid, 0);
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        is_test: isTest,
        volume_by_day: daily.map((row) => {
          const chain = getChain(row.chain);
          const decimals = (chain === undefined ? undefined : getAsset(chain, row.asset))?.decimals ?? 0;
          return {
            day: row.day,
            chain: row.chain,
            asset: row.asset,
            received_native: fromBaseUnits(BigInt(row.received), decimals),
            paid: row.paid,
            created: row.created,
          };
        }),
        conversion: {
          created,
          paid,
          ratio: created === 0 ? null : Math.round((paid / created) * 10_000) / 10_000,
        },
        median_seconds_to_confirmation: medianSeconds,
        sweep_fees_by_month: fees.map((row) => {
          const chain = getChain(row.chain);
          return {
            month: row.month,
            chain: row.chain,
            native_asset: chain?.nativeAsset.code ?? '',
            fee_native: fromBaseUnits(BigInt(row.fee), chain?.nativeAsset.decimals ?? 0),
            sweeps: row.sweeps,
          };
        }),
      };
    },
  };
}
