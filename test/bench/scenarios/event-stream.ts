import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createServerSentEventParser } from '../../../packages/sdk/src/sse.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { buildServices } from '../../../src/services.ts';
import { benchServerConfig } from '../lib/bench-app.ts';
import { ipcAsker, startChild } from '../lib/child.ts';
import { benchDatabases } from '../lib/databases.ts';
import { createEventWriter } from '../lib/event-writer.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { median, percentile, round } from '../lib/stats.ts';
import type {
  EventStreamCommand,
  EventStreamMessage,
  EventStreamReady,
  EventStreamTarget,
} from '../servers/event-stream.ts';

const server = fileURLToPath(new URL('../servers/event-stream.ts', import.meta.url));

/** One open stream, read in this process: each event's arrival time by id. */
async function openStream(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { ...headers, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (response.status !== 200 || response.body === null) throw new Error(`${url}: ${response.status}`);
  const arrivals = new Map<string, number>();
  const parser = createServerSentEventParser({
    onEvent: (event) => {
      if (event.id !== undefined) arrivals.set(event.id, performance.timeOrigin + performance.now());
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
    } catch {
      // closed
    }
  })();
  return { arrivals, close: () => controller.abort() };
}

/** The bench's own writer on a PostgreSQL database (the services over a pool of its own). */
async function localWriter(url: string, merchantId: string) {
  const config = benchServerConfig({ databaseUrl: url });
  const database = await openDatabase({ databaseUrl: url, dataDir: tmpdir(), poolSize: 20 });
  const services = buildServices({ config, database, clock: systemClock });
  return { writer: createEventWriter(database, services.events, merchantId), close: () => database.close() };
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`event-stream: ${what} not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * The live event stream (GET /v1/events/stream), on PGlite and on PostgreSQL, beside a bare stream in the same server
 * process on the same database (the writer's NOTIFY names each committed event; read by primary key and written out):
 *  - events/s through one stream: a batch of events committed at once, from the commit to the last arrival;
 *  - p99 from each event's commit (the events service's own statement) to its arrival on the stream, at a steady
 *    rate: its goal is absolute (<= 50 ms, as for webhooks), so the "baseline" column is that budget and the bare
 *    stream's own p99 is in the details. As for webhooks (a PostgreSQL-only scenario), the goal holds on PostgreSQL;
 *    PGlite's figure is for information: at 500 commits/s, one transaction each, the embedded engine is saturated and
 *    the bare stream itself is several times over the budget there.
 * Ours adds what the bare one cannot do: positions given after commit (nothing skipped when a transaction commits
 * late), per-merchant wake-ups, resume by Last-Event-ID.
 */
export default defineScenario({
  name: 'event-stream',
  description:
    'Live event stream: events/s through one SSE stream vs a bare NOTIFY+SELECT stream; p99 commit→stream',
  async run({ log, scale }) {
    const measurements: Measurement[] = [];
    const batch = Math.max(1000, Math.round(5000 * scale));
    const rate = 500;
    const total = Math.max(500, Math.round(rate * 5 * scale));
    for await (const database of benchDatabases()) {
      const target: EventStreamTarget =
        database.kind === 'pglite'
          ? { kind: 'pglite', location: database.dataDir }
          : { kind: 'postgres', location: database.url };
      const child = await startChild<EventStreamReady>(server, {
        env: { BENCH_TARGET: JSON.stringify(target) },
      });
      const ask = ipcAsker<EventStreamCommand, EventStreamMessage>(child, 'event stream server');
      // On PostgreSQL the events are written from this process, so the server's one thread only serves the streams;
      // the embedded engine lives in the server's process, so on PGlite the server writes them.
      const local =
        database.kind === 'postgres' ? await localWriter(database.url, child.ready.merchantId) : undefined;
      const stage = async (count: number) => {
        if (local === undefined) await ask({ type: 'stage', count }, 'staged', 120_000);
        else await local.writer.stage(count);
      };
      const emit = async (eventsPerSecond: number, count: number) =>
        local === undefined
          ? ask({ type: 'emit', rate: eventsPerSecond, total: count }, 'emitted', 120_000)
          : local.writer.emit(eventsPerSecond, count);
      try {
        const streamOf = (which: 'ours' | 'bare') =>
          which === 'ours'
            ? openStream(child.ready.ours.url, child.ready.ours.headers)
            : openStream(child.ready.bare.url, {});

        const throughput = async (which: 'ours' | 'bare'): Promise<number> => {
          await ask({ type: 'use', which }, 'using', 120_000);
          const stream = await streamOf(which);
          try {
            await new Promise((resolve) => setTimeout(resolve, 50));
            // From the request to write the batch (the same insert for both) to the last arrival.
            const asked = performance.timeOrigin + performance.now();
            await stage(batch);
            await until(() => stream.arrivals.size >= batch, 120_000, `${batch} events on ${which}`);
            const last = Math.max(...stream.arrivals.values());
            const perSecond = batch / ((last - asked) / 1000);
            log(`event-stream [${database.kind}]: ${which} ${batch} events at ${Math.round(perSecond)}/s`);
            return perSecond;
          } finally {
            stream.close();
          }
        };

        const latency = async (which: 'ours' | 'bare') => {
          await ask({ type: 'use', which }, 'using', 120_000);
          const stream = await streamOf(which);
          try {
            await new Promise((resolve) => setTimeout(resolve, 50));
            const { committed, achievedRate } = await emit(rate, total);
            await until(() => stream.arrivals.size >= total, 60_000, `${total} events on ${which}`);
            const samples = committed.map(([id, at]) =>
              Math.max(0, (stream.arrivals.get(id) ?? Number.NaN) - at),
            );
            log(
              `event-stream [${database.kind}]: ${which} at ${Math.round(achievedRate)} events/s: ` +
                `p50 ${round(percentile(samples, 50), 2)} ms, p99 ${round(percentile(samples, 99), 2)} ms`,
            );
            return { samples, achievedRate };
          } finally {
            stream.close();
          }
        };

        await throughput('bare');
        await throughput('ours');
        const runs = { ours: [] as number[], bare: [] as number[] };
        for (const which of ['bare', 'ours', 'ours', 'bare', 'bare', 'ours'] as const) {
          runs[which].push(await throughput(which));
        }
        const samples = { ours: [] as number[], bare: [] as number[] };
        const rates = { ours: [] as number[], bare: [] as number[] };
        for (const which of ['bare', 'ours', 'ours', 'bare'] as const) {
          const result = await latency(which);
          samples[which].push(...result.samples);
          rates[which].push(round(result.achievedRate, 0));
        }
        measurements.push(
          measurement({
            name: `event stream [${database.kind}] events/s through one stream`,
            unit: 'events/s',
            ours: round(median(runs.ours), 0),
            baseline: round(median(runs.bare), 0),
            better: 'higher',
            goal: { atLeast: 0.5 },
            details: {
              batch,
              ours: runs.ours.map((r) => round(r, 0)),
              bare: runs.bare.map((r) => round(r, 0)),
            },
          }),
          measurement({
            name: `event stream [${database.kind}] p99 commit→stream at ${rate}/s (baseline: ${goals.eventStreamP99Ms} ms budget)`,
            unit: 'ms',
            ours: round(percentile(samples.ours, 99), 2),
            baseline: goals.eventStreamP99Ms,
            better: 'lower',
            ...(database.kind === 'postgres' ? { goal: { atMost: 1 } } : {}),
            details: {
              oursP50: round(percentile(samples.ours, 50), 2),
              bareP50: round(percentile(samples.bare, 50), 2),
              bareP99: round(percentile(samples.bare, 99), 2),
              achievedRates: rates,
            },
          }),
        );
      } finally {
        await local?.close();
        await child.stop();
        await database.dispose();
      }
    }
    return measurements;
  },
});
