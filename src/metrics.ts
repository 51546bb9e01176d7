/**
 * The Prometheus metrics of one svc process (prom-client), named `svc_*`. Counters and histograms are fed by the
 * parts as they work (HTTP answers, delivery attempts, sequenced events, chain rounds, sweeps); gauges of what is in
 * the database (outbox, stream backlog, open payments) are read when scraped, at most every few seconds. Labels are
 * bounded sets (route templates, status codes, chains, modes, event types): never a merchant, payment or endpoint.
 * Each process has its own; Prometheus adds them up across processes.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { SettlementObserver } from './modules/chains/jobs.ts';
import { getChain } from './modules/chains/registry.ts';
import type { DeliveryWorkerOptions } from './modules/webhooks/delivery/worker.ts';
import type { SequencedEvent } from './modules/webhooks/events/stream-repo.ts';
import type { Services } from './services.ts';

const mode = (isTest: boolean) => (isTest ? 'test' : 'live');

/** Database reads behind gauges are shared by a scrape's gauges and reused for this long. */
const SNAPSHOT_TTL_MS = 5000;

export interface Metrics {
  registry: Registry;
  /** The exposition text and its content type, for GET /metrics. */
  scrape(): Promise<{ contentType: string; body: string }>;
  httpRequest(input: { method: string; route: string; status: number; seconds: number }): void;
  onAttempt: NonNullable<DeliveryWorkerOptions['onAttempt']>;
  onSequenced(events: SequencedEvent[]): void;
  settlement: SettlementObserver;
}

export function createMetrics(services: Pick<Services, 'events' | 'payments' | 'eventStreams'>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_' });

  const http = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code, and how long they took',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const attempts = new Histogram({
    name: 'svc_webhook_attempt_duration_seconds',
    help: "Webhook delivery attempts by outcome (succeeded; pending: failed, retried later; failed: the last one failed) and the endpoint's response time",
    labelNames: ['outcome', 'status_class'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'svc_webhook_deliveries_total',
    help: 'Webhook deliveries finished, by outcome (succeeded, or failed after the last attempt)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const events = new Counter({
    name: 'svc_events_total',
    help: 'Events committed (counted once, when the event stream sequences them), by type, chain and mode',
    labelNames: ['type', 'chain', 'mode'] as const,
    registers: [registry],
  });
  const sequencingLag = new Histogram({
    name: 'svc_event_stream_sequencing_lag_seconds',
    help: 'From an event being written to its position in the live event stream',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [registry],
  });
  const headBlock = new Gauge({
    name: 'svc_chain_head_block',
    help: "The chain node's head block at the last scan",
    labelNames: ['chain', 'mode'] as const,
    registers: [registry],
  });
  const scannedBlock = new Gauge({
    name: 'svc_chain_scanned_block',
    help: 'The last block the watcher recorded',
    labelNames: ['chain', 'mode'] as const,
    registers: [registry],
  });
  const headLag = new Gauge({
    name: 'svc_chain_head_lag_blocks',
    help: "Blocks between the node's head and what the watcher recorded (0: caught up)",
    labelNames: ['chain', 'mode'] as const,
    registers: [registry],
  });
  const scanTime = new Histogram({
    name: 'svc_chain_scan_duration_seconds',
    help: "One round of a chain's watcher: the head, new blocks, their deposits and transitions",
    labelNames: ['chain', 'mode'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const watcherCounts = new Counter({
    name: 'svc_watcher_changes_total',
    help: 'What the watchers recorded, by chain, mode and kind (blocks, deposits, transitions, reorgs)',
    labelNames: ['chain', 'mode', 'kind'] as const,
    registers: [registry],
  });
  const sweeps = new Counter({
    name: 'svc_sweeps_total',
    help: 'Forwarding transactions to payout wallets, by chain, mode and outcome (broadcast, finalized, failed)',
    labelNames: ['chain', 'mode', 'outcome'] as const,
    registers: [registry],
  });
  const sweepFees = new Counter({
    name: 'svc_sweep_fees_total',
    help: "Network fees of finalized sweeps, in the chain's native coin (for dashboards: the exact amounts are in the database)",
    labelNames: ['chain', 'mode'] as const,
    registers: [registry],
  });

  let snapshot: Promise<Snapshot> | undefined;
  let snapshotAt = 0;
  const read = (): Promise<Snapshot> => {
    if (snapshot === undefined || Date.now() - snapshotAt > SNAPSHOT_TTL_MS) {
      snapshotAt = Date.now();
      snapshot = Promise.all([
        services.events.outboxStats(),
        services.events.streamBacklog(),
        services.payments.openCounts(),
      ]).then(([outbox, backlog, open]) => ({ outbox, backlog, open }));
      snapshot.catch(() => {
        snapshot = undefined;
      });
    }
    return snapshot;
  };
  const age = (oldest: Date | null) =>
    oldest === null ? 0 : Math.max(0, (Date.now() - oldest.getTime()) / 1000);

  new Gauge({
    name: 'svc_outbox_pending_deliveries',
    help: 'Webhook deliveries not done yet (due now or waiting for a retry)',
    registers: [registry],
    async collect() {
      this.set((await read()).outbox.pending);
    },
  });
  new Gauge({
    name: 'svc_outbox_oldest_pending_age_seconds',
    help: 'Age of the oldest webhook delivery not done yet (0: none)',
    registers: [registry],
    async collect() {
      this.set(age((await read()).outbox.oldest));
    },
  });
  new Gauge({
    name: 'svc_event_stream_backlog_events',
    help: 'Committed events still waiting for their position in the live event stream',
    registers: [registry],
    async collect() {
      this.set((await read()).backlog.count);
    },
  });
  new Gauge({
    name: 'svc_event_streams_open',
    help: 'Live event streams open in this process',
    registers: [registry],
    collect() {
      this.set(services.eventStreams.openCount());
    },
  });
  new Gauge({
    name: 'svc_payments_open',
    help: 'Payments still open (pending, confirming, underpaid), by chain, status and mode',
    labelNames: ['chain', 'status', 'mode'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of (await read()).open) {
        this.set({ chain: row.chain, status: row.status, mode: mode(row.isTest) }, row.count);
      }
    },
  });

  return {
    registry,
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    httpRequest({ method, route, status, seconds }) {
      http.observe({ method, route, status: String(status) }, seconds);
    },
    onAttempt({ status, statusCode, durationMs }) {
      const statusClass = statusCode === null ? 'none' : `${Math.floor(statusCode / 100)}xx`;
      attempts.observe({ outcome: status, status_class: statusClass }, durationMs / 1000);
      if (status !== 'pending') deliveries.inc({ outcome: status });
    },
    onSequenced(sequenced) {
      const now = Date.now();
      for (const event of sequenced) {
        events.inc({ type: event.type, chain: event.chain ?? '', mode: mode(event.isTest) });
        sequencingLag.observe(Math.max(0, (now - event.createdAt.getTime()) / 1000));
      }
    },
    settlement: {
      scanned({ chain, isTest, seconds, poll }) {
        const labels = { chain, mode: mode(isTest) };
        scanTime.observe(labels, seconds);
        if (poll.head !== null) headBlock.set(labels, poll.head);
        if (poll.scannedTo !== null) scannedBlock.set(labels, poll.scannedTo);
        if (poll.head !== null && poll.scannedTo !== null)
          headLag.set(labels, Math.max(0, poll.head - poll.scannedTo));
        for (const kind of ['blocks', 'deposits', 'transitions', 'reorgs'] as const) {
          if (poll[kind] > 0) watcherCounts.inc({ ...labels, kind }, poll[kind]);
        }
      },
      forwarded({ chain, isTest, result }) {
        const labels = { chain, mode: mode(isTest) };
        for (const outcome of ['broadcast', 'finalized', 'failed'] as const) {
          if (result[outcome] > 0) sweeps.inc({ ...labels, outcome }, result[outcome]);
        }
        if (result.fees > 0n) sweepFees.inc(labels, nativeUnits(chain, result.fees));
      },
    },
  };
}

interface Snapshot {
  outbox: { pending: number; oldest: Date | null };
  backlog: { count: number; oldest: Date | null };
  open: Array<{ chain: string; status: string; isTest: boolean; count: number }>;
}

/** Base units as whole coins for a dashboard figure (a float is fine here: nothing is paid from it). */
function nativeUnits(chain: string, baseUnits: bigint): number {
  const decimals = getChain(chain)?.nativeAsset.decimals ?? 0;
  const scale = 10n ** BigInt(decimals);
  return Number(baseUnits / scale) + Number(baseUnits % scale) / Number(scale);
}
