import { fileURLToPath } from 'node:url';
import { type Child, startChild } from '../lib/child.ts';
import { benchDatabases } from '../lib/databases.ts';
import { goals } from '../lib/goals.ts';
import { type LoadResult, mergeLoads, runLoad } from '../lib/load.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { round } from '../lib/stats.ts';
import type { WebhooksGetReady, WebhooksGetTarget } from '../servers/webhooks-get.ts';

const server = fileURLToPath(new URL('../servers/webhooks-get.ts', import.meta.url));

/**
 * Authenticated `GET /v1/webhooks/{id}` (x-api-key) on the real app against a bare Fastify route doing one
 * primary-key SELECT on the same database, in the same process, in the same run. The server runs in a child process
 * (see lib/child.ts); autocannon runs here. Order A-B-B-A (bare, ours, ours, bare) so drift in the machine's load
 * falls on both alike.
 */
export default defineScenario({
  name: 'webhooks-get',
  description: 'Authenticated GET /v1/webhooks/{id} vs a bare Fastify primary-key SELECT, same database',
  async run({ log, scale }) {
    const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
    const duration = Math.max(1, Math.round(Number(process.env.BENCH_DURATION ?? 3) * scale));
    const measurements: Measurement[] = [];
    for await (const database of benchDatabases()) {
      const target: WebhooksGetTarget =
        database.kind === 'pglite'
          ? { kind: 'pglite', location: database.dataDir }
          : { kind: 'postgres', location: database.url };
      log(`webhooks-get [${database.kind}]: starting the server`);
      let child: Child<WebhooksGetReady> | undefined;
      try {
        child = await startChild<WebhooksGetReady>(server, {
          env: { BENCH_TARGET: JSON.stringify(target) },
        });
        const { ours, bare } = child.ready;
        for (const [name, url, headers] of [
          ['ours', ours.url, ours.headers],
          ['bare', bare.url, {}],
        ] as const) {
          const response = await fetch(url, { headers });
          if (response.status !== 200)
            throw new Error(`${name} answered ${response.status}: ${await response.text()}`);
        }
        const load = (which: 'ours' | 'bare', seconds: number) =>
          runLoad({
            url: which === 'ours' ? ours.url : bare.url,
            headers: which === 'ours' ? ours.headers : {},
            duration: seconds,
            connections,
          });
        log(`webhooks-get [${database.kind}]: warming up`);
        await load('bare', 1);
        await load('ours', 1);
        const runs: Record<'ours' | 'bare', LoadResult[]> = { ours: [], bare: [] };
        // Server CPU per request: steadier than requests/s on a machine others are using too.
        const cpu = { ours: 0, bare: 0 };
        for (const which of ['bare', 'ours', 'ours', 'bare'] as const) {
          log(`webhooks-get [${database.kind}]: ${which}, ${duration} s x ${connections} connections`);
          const before = await child.cpuMicros();
          runs[which].push(await load(which, duration));
          cpu[which] += (await child.cpuMicros()) - before;
        }
        const o = mergeLoads(runs.ours);
        const b = mergeLoads(runs.bare);
        if (o.non2xx + o.errors > 0 || b.non2xx + b.errors > 0) {
          throw new Error(
            `failed requests under load: ours ${o.non2xx} non-2xx/${o.errors} errors, bare ${b.non2xx}/${b.errors}`,
          );
        }
        const cpuPerRequest = {
          ours: round(cpu.ours / o.total, 0),
          bare: round(cpu.bare / b.total, 0),
        };
        const details = {
          connections,
          duration_s_per_run: duration,
          order: 'bare, ours, ours, bare',
          ours: { ...o, requestsPerSecond: round(o.requestsPerSecond, 0) },
          bare: { ...b, requestsPerSecond: round(b.requestsPerSecond, 0) },
        };
        measurements.push(
          measurement({
            name: `GET /v1/webhooks/{id} [${database.kind}] requests/s`,
            unit: 'req/s',
            ours: round(o.requestsPerSecond, 0),
            baseline: round(b.requestsPerSecond, 0),
            better: 'higher',
            goal: { atLeast: goals.authenticatedGet },
            details,
          }),
          measurement({
            name: `GET /v1/webhooks/{id} [${database.kind}] p99 latency`,
            unit: 'ms',
            ours: o.p99,
            baseline: b.p99,
            better: 'lower',
          }),
          measurement({
            name: `GET /v1/webhooks/{id} [${database.kind}] server CPU per request`,
            unit: 'µs',
            ours: cpuPerRequest.ours,
            baseline: cpuPerRequest.bare,
            better: 'lower',
          }),
        );
      } finally {
        await child?.stop();
        await database.dispose();
      }
    }
    return measurements;
  },
});
