/**
 * GET /metrics of the real running program: behind its token on the API's port and alone on SVC_METRICS_PORT, with
 * what an operator needs after a payment's whole life (HTTP, events, chain rounds, deliveries, the sweep), no
 * merchant or payment in any label, and every metric the Grafana dashboard (examples/grafana-dashboard.json) plots.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Svc } from '../packages/sdk/src/index.ts';
import { freePort } from './support/net.ts';
import { type ServedProgram, signUpMerchant, startServe, stopProgram } from './support/program.ts';
import { type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

const token = 'metrics-token-0123456789abcdef';
let program: ServedProgram;
let base: string;
let metricsPort: number;
let receiver: Receiver;

beforeAll(async () => {
  const port = await freePort();
  metricsPort = await freePort();
  program = await startServe({
    port,
    dataDirPrefix: 'svc-metrics-',
    env: {
      SVC_SIM_BLOCK_MS: '100',
      SVC_SIM_CONFIRMATIONS: '1',
      SVC_METRICS_TOKEN: token,
      SVC_METRICS_PORT: String(metricsPort),
    },
  });
  base = `http://127.0.0.1:${port}`;
  receiver = await startReceiver();
}, 90_000);

afterAll(async () => {
  await receiver?.close();
  await stopProgram(program?.process);
});

/** The value of one series (name and exact labels) in Prometheus text, or undefined. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const found = /^[^{ ]+(?:\{(.*)\})? (\S+)/.exec(line);
    const seriesLabels = Object.fromEntries(
      [...(found?.[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]),
    );
    if (Object.entries(labels).every(([key, wanted]) => seriesLabels[key] === wanted))
      return Number(found?.[2]);
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('is refused without the token on the API port and served with it, and alone on its own port', async () => {
    const refused = await fetch(`${base}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'authentication_required' } });
    expect(
      (await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } }))
        .status,
    ).toBe(401);
    const served = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain('svc_process_resident_memory_bytes');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/chains`)).status).toBe(404);
    const spec = (await (await fetch(`${base}/v1/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    expect(Object.keys(spec.paths)).not.toContain('/metrics');
  });

  it("counts a payment's whole life without a merchant or payment in any label, and has what the dashboard plots", async () => {
    const merchant = await signUpMerchant(base, 'metrics');
    const svc = new Svc({ apiKey: merchant.testKey, baseUrl: base });
    const endpoint = await svc.webhookEndpoints.create({ url: receiver.url });
    const payment = await svc.payments.create({ amount: '10', currency: 'USD', chain: 'ethereum' });
    await svc.payments.simulate(payment.payment_id, { outcome: 'paid' });
    await waitFor(
      'the payment swept',
      async () => (await svc.payments.retrieve(payment.payment_id)).forwarded_at !== null,
      30_000,
    );
    await waitFor('two deliveries', () => receiver.requests.length >= 2, 20_000);
    const scrape = async () =>
      (await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((response) => response.text())) as string;
    // Outcomes are counted once the worker has recorded them, and events once the stream's sequencer has numbered
    // them: both follow the same commit's NOTIFY, so a delivery can be counted before its event is. The backlog gauge
    // is read from the database at most every 5 s, so its 0 can be older than the events: the counters themselves
    // are waited for.
    const counted = (current: string, type: string) =>
      value(current, 'svc_events_total', { type, chain: 'ethereum', mode: 'test' }) !== undefined;
    const text = await waitFor(
      'the deliveries and events counted',
      async () => {
        const current = await scrape();
        return (
          (value(current, 'svc_webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) >= 2 &&
          counted(current, 'payment.confirmed') &&
          counted(current, 'payment.completed') &&
          value(current, 'svc_event_stream_backlog_events') === 0 &&
          current
        );
      },
      30_000, // the database gauges are read at most every 5 s
    );

    expect(
      value(text, 'svc_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/payments',
        status: '201',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(text, 'svc_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1/payments/:id',
        status: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    for (const type of ['payment.confirmed', 'payment.completed']) {
      expect(value(text, 'svc_events_total', { type, chain: 'ethereum', mode: 'test' }), type).toBe(1);
    }
    expect(value(text, 'svc_chain_head_block', { chain: 'ethereum', mode: 'test' })).toBeGreaterThan(0);
    expect(value(text, 'svc_chain_head_lag_blocks', { chain: 'ethereum', mode: 'test' })).toBe(0);
    expect(
      value(text, 'svc_chain_scan_duration_seconds_count', { chain: 'ethereum', mode: 'test' }),
    ).toBeGreaterThan(0);
    expect(
      value(text, 'svc_watcher_changes_total', { chain: 'ethereum', mode: 'test', kind: 'transitions' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(text, 'svc_sweeps_total', { chain: 'ethereum', mode: 'test', outcome: 'finalized' })).toBe(
      1,
    );
    expect(value(text, 'svc_sweep_fees_total', { chain: 'ethereum', mode: 'test' })).toBeGreaterThan(0);
    expect(
      value(text, 'svc_webhook_attempt_duration_seconds_count', {
        outcome: 'succeeded',
        status_class: '2xx',
      }),
    ).toBe(2);
    expect(value(text, 'svc_outbox_pending_deliveries')).toBe(0);
    expect(value(text, 'svc_event_stream_backlog_events')).toBe(0);
    expect(
      value(text, 'svc_payments_open', { chain: 'ethereum', status: 'pending', mode: 'test' }) ?? 0,
    ).toBe(0);

    for (const id of [merchant.merchantId, payment.payment_id, endpoint.id, payment.address ?? '']) {
      expect(id).not.toBe('');
      expect(text.includes(id), id).toBe(false);
    }

    const dashboard = JSON.parse(
      readFileSync(new URL('../examples/grafana-dashboard.json', import.meta.url), 'utf8'),
    ) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const plotted = new Set(
      dashboard.panels.flatMap((panel) =>
        panel.targets.flatMap((target) =>
          [...target.expr.matchAll(/\b(svc_[a-z0-9_]+)/g)].map((match) => match[1] ?? ''),
        ),
      ),
    );
    expect(plotted.size).toBeGreaterThan(10);
    // Declared by the process (a gauge with nothing to count has no series yet: no payment is open now).
    for (const name of plotted) {
      const family = name.replace(/_(bucket|count|sum)$/, '');
      expect(text, `${name} (plotted by the dashboard)`).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
    }
  }, 90_000);
});
