import { useState } from 'preact/hooks';
import { api, authorization, buildUrl } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader } from '../components/ui.tsx';
import { useApp, useResource } from '../state.tsx';

interface Report {
  from: string;
  to: string;
  volume_by_day: Array<{
    day: string;
    chain: string;
    asset: string;
    received_native: string;
    paid: number;
    created: number;
  }>;
  conversion: { created: number; paid: number; ratio: number | null };
  median_seconds_to_confirmation: number | null;
  sweep_fees_by_month: Array<{
    month: string;
    chain: string;
    native_asset: string;
    fee_native: string;
    sweeps: number;
  }>;
}

interface Bar {
  label: string;
  value: number;
  /** The exact figure shown beside the bar (amounts stay decimal strings). */
  text: string;
}

/**
 * A bar chart in plain SVG: one bar per label, scaled to the largest, its exact figure written on it. Drawing uses
 * numbers; every figure shown is the API's exact decimal string.
 */
function BarChart({ title, bars, testId }: { title: string; bars: Bar[]; testId: string }) {
  const width = 640;
  const rowHeight = 26;
  const labelWidth = 120;
  const max = Math.max(...bars.map((bar) => bar.value), 0);
  const height = bars.length * rowHeight + 8;
  return (
    <figure class="chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" role="img" aria-label={title}>
        {bars.map((bar, index) => {
          const y = index * rowHeight + 4;
          const length = max === 0 ? 0 : ((width - labelWidth - 150) * bar.value) / max;
          return (
            <g key={bar.label}>
              <text x={0} y={y + 16} font-size="13" fill="currentColor">
                {bar.label}
              </text>
              <rect
                x={labelWidth}
                y={y + 3}
                width={Math.max(length, 2)}
                height={rowHeight - 8}
                rx={3}
                fill="#3b6ef5"
              />
              <text x={labelWidth + Math.max(length, 2) + 6} y={y + 16} font-size="13" fill="currentColor">
                {bar.text}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

const exportKinds = ['payments', 'deposits', 'sweeps', 'refunds', 'events'] as const;

/** Downloads an export with the dashboard token (a plain link could not send it). */
async function download(kind: string, format: 'csv' | 'jsonl', isTest: boolean): Promise<void> {
  const response = await fetch(buildUrl(`/exports/${kind}`, { format, is_test: isTest }), {
    headers: authorization(),
  });
  if (!response.ok) throw new Error(`The export failed (HTTP ${response.status}).`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = `${kind}-${isTest ? 'test' : 'live'}.${format}`;
  link.click();
  URL.revokeObjectURL(url);
}

export function ReportsPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const [days, setDays] = useState(30);
  const report = useResource(async () => {
    const to = new Date();
    const from = new Date(to.getTime() - days * 24 * 3600_000);
    return (await api('/reports', {
      query: { is_test: isTest, from: from.toISOString(), to: to.toISOString() },
    })) as Report;
  }, [isTest, days]);
  const [exportError, setExportError] = useState<unknown>(null);

  const data = report.data;
  const series = new Map<string, Bar[]>();
  for (const row of data?.volume_by_day ?? []) {
    const key = `${row.chain} · ${row.asset}`;
    const bars = series.get(key) ?? [];
    bars.push({
      label: row.day,
      value: Number(row.received_native),
      text: `${row.received_native} ${row.asset}`,
    });
    series.set(key, bars);
  }
  const fees = (data?.sweep_fees_by_month ?? []).map((row) => ({
    label: `${row.month} ${row.chain}`,
    value: Number(row.fee_native),
    text: `${row.fee_native} ${row.native_asset} (${row.sweeps} sweeps)`,
  }));

  return (
    <section>
      <PageHeader
        title="Reports"
        description={`What your ${isTest ? 'test' : 'live'} payments brought in, how many were paid, how fast, and what sweeps cost.`}
        actions={
          <label>
            Period{' '}
            <select value={String(days)} onChange={(event) => setDays(Number(event.currentTarget.value))}>
              <option value="7">Last 7 days</option>
              <option value="30">Last 30 days</option>
              <option value="90">Last 90 days</option>
              <option value="365">Last 365 days</option>
            </select>
          </label>
        }
      />
      {report.state === 'loading' && <Loading label="Loading the report…" />}
      {report.state === 'error' && <ErrorNotice error={report.error} onRetry={() => void report.reload()} />}
      {data !== null && (
        <>
          <div class="stat-grid" data-testid="report-figures">
            <div class="card stat">
              <p class="stat-label">Conversion</p>
              <p class="stat-value" data-testid="conversion">
                {data.conversion.ratio === null ? '—' : `${(data.conversion.ratio * 100).toFixed(1)} %`}
              </p>
              <p class="muted small">
                {data.conversion.paid} paid of {data.conversion.created} created
              </p>
            </div>
            <div class="card stat">
              <p class="stat-label">Median time to confirmation</p>
              <p class="stat-value" data-testid="median-confirmation">
                {data.median_seconds_to_confirmation === null
                  ? '—'
                  : duration(data.median_seconds_to_confirmation)}
              </p>
              <p class="muted small">from creation to paid</p>
            </div>
          </div>
          <section class="card" aria-labelledby="volume-title">
            <h2 id="volume-title">Volume per day</h2>
            {series.size === 0 ? (
              <Empty title="No payments in this period" />
            ) : (
              [...series.entries()].map(([key, bars]) => (
                <BarChart key={key} title={key} bars={bars} testId="volume-chart" />
              ))
            )}
          </section>
          <section class="card" aria-labelledby="fees-title">
            <h2 id="fees-title">Sweep fees per month</h2>
            {fees.length === 0 ? (
              <Empty title="No sweeps in this period" />
            ) : (
              <BarChart title="Network fees of final sweeps" bars={fees} testId="fees-chart" />
            )}
          </section>
        </>
      )}
      <section class="card" aria-labelledby="exports-title">
        <h2 id="exports-title">Exports</h2>
        <p class="muted small">
          Every {isTest ? 'test' : 'live'} record for your accountant, streamed whatever its size: exact
          amounts, values at each payment’s locked rate, sweep and refund fees.
        </p>
        <div class="button-row">
          {exportKinds.map((kind) => (
            <button
              key={kind}
              type="button"
              class="button button-secondary"
              onClick={() => download(kind, 'csv', isTest).catch(setExportError)}
            >
              {kind} (CSV)
            </button>
          ))}
        </div>
        {exportError !== null && <ErrorNotice error={exportError} compact />}
      </section>
    </section>
  );
}
