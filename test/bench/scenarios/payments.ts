import { fileURLToPath } from 'node:url';
import { type Child, startChild } from '../lib/child.ts';
import { benchDatabases } from '../lib/databases.ts';
import { goals } from '../lib/goals.ts';
import { type LoadOptions, type LoadResult, mergeLoads, runLoad } from '../lib/load.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { round } from '../lib/stats.ts';
import type { PaymentsReady } from '../servers/payments.ts';
import type { PaymentsBareReady } from '../servers/payments-bare.ts';

const server = fileURLToPath(new URL('../servers/payments.ts', import.meta.url));
const bareServer = fileURLToPath(new URL('../servers/payments-bare.ts', import.meta.url));

/**
 * POST /v1/payments, the public GET /v1/payments/checkout/{id} and the merchant's GET /v1/payments/{id} under 100
 * connections on PostgreSQL, each beside a bare Fastify route doing one INSERT (resp. one primary-key SELECT) on the same database in the same run. The
 * real app and the bare routes run in two processes (each with a pool of the same size), so a CPU profile of one
 * (BENCH_PROFILE=<dir>) is not mixed with the other; only the one under load is busy. Order A-B-B-A per pair so
 * drift in the machine's load falls on both alike. PGlite is skipped: the goal is about a server database under
 * concurrency, which the single-connection embedded engine does not have.
 */
export default defineScenario({
  name: 'payments',
  description:
    'POST /v1/payments vs a bare INSERT; the checkout read and GET /v1/payments/{id} vs a bare primary-key SELECT (PostgreSQL)',
  async run({ log, scale }) {
    const connections = Number(process.env.BENCH_CONNECTIONS ?? 100);
    const duration = Math.max(1, Math.round(Number(process.env.BENCH_DURATION ?? 3) * scale));
    const measurements: Measurement[] = [];
    for await (const database of benchDatabases()) {
      if (database.kind !== 'postgres') {
        await database.dispose();
        continue;
      }
      log('payments [postgres]: starting the servers');
      let child: Child<PaymentsReady> | undefined;
      let bareChild: Child<PaymentsBareReady> | undefined;
      try {
        child = await startChild<PaymentsReady>(server, {
          env: { BENCH_DATABASE_URL_TARGET: database.url },
        });
        bareChild = await startChild<PaymentsBareReady>(bareServer, {
          env: { BENCH_DATABASE_URL_TARGET: database.url, BENCH_POOL_SIZE: String(child.ready.poolSize) },
        });
        const { ours } = child.ready;
        const bare = {
          insertUrl: bareChild.ready.insertUrl,
          selectUrl: `${bareChild.ready.selectBase}/${child.ready.paymentId}`,
          body: ours.body,
        };
        const processes = { ours: child, bare: bareChild };
        const pairs: Array<{ label: string; ours: LoadOptions; bare: LoadOptions; goal: number }> = [
          {
            label: 'POST /v1/payments',
            ours: {
              url: ours.createUrl,
              method: 'POST',
              headers: ours.headers,
              body: ours.body,
              duration,
              connections,
            },
            bare: {
              url: bare.insertUrl,
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: bare.body,
              duration,
              connections,
            },
            goal: goals.paymentsPost,
          },
          {
            label: 'GET /v1/payments/checkout/{id}',
            ours: { url: ours.checkoutUrl, duration, connections },
            bare: { url: bare.selectUrl, duration, connections },
            goal: goals.checkoutGet,
          },
          {
            label: 'GET /v1/payments/{id}',
            ours: {
              url: ours.detailUrl,
              headers: { 'x-api-key': ours.headers['x-api-key'] ?? '' },
              duration,
              connections,
            },
            bare: { url: bare.selectUrl, duration, connections },
            goal: goals.authenticatedGet,
          },
        ];
        for (const pair of pairs) {
          log(`payments [postgres]: ${pair.label}: warming up`);
          await runLoad({ ...pair.bare, duration: 1 });
          await runLoad({ ...pair.ours, duration: 1 });
          const runs: Record<'ours' | 'bare', LoadResult[]> = { ours: [], bare: [] };
          // Server CPU per request (µs): where the time goes when the ratio alone does not say.
          const cpu = { ours: 0, bare: 0 };
          for (const which of ['bare', 'ours', 'ours', 'bare'] as const) {
            log(`payments [postgres]: ${pair.label}: ${which}, ${duration} s x ${connections} connections`);
            const before = await processes[which].cpuMicros();
            runs[which].push(await runLoad(pair[which]));
            cpu[which] += (await processes[which].cpuMicros()) - before;
          }
          const o = mergeLoads(runs.ours);
          const b = mergeLoads(runs.bare);
          if (o.non2xx + o.errors > 0 || b.non2xx + b.errors > 0) {
            throw new Error(
              `${pair.label}: failed requests: ours ${o.non2xx}/${o.errors}, bare ${b.non2xx}/${b.errors}`,
            );
          }
          measurements.push(
            measurement({
              name: `${pair.label} [postgres] requests/s`,
              unit: 'req/s',
              ours: round(o.requestsPerSecond, 0),
              baseline: round(b.requestsPerSecond, 0),
              better: 'higher',
              goal: { atLeast: pair.goal },
              details: {
                connections,
                duration_s_per_run: duration,
                server_cpu_us_per_request: {
                  ours: round(cpu.ours / o.total, 0),
                  bare: round(cpu.bare / b.total, 0),
                },
                ours: o,
                bare: b,
              },
            }),
            measurement({
              name: `${pair.label} [postgres] p99 latency`,
              unit: 'ms',
              ours: o.p99,
              baseline: b.p99,
              better: 'lower',
            }),
          );
          if (pair.label.startsWith('POST')) {
            measurements.push(
              measurement({
                name: `${pair.label} [postgres] p99 latency vs the ${goals.paymentsPostP99Ms} ms budget`,
                unit: 'ms',
                ours: o.p99,
                baseline: goals.paymentsPostP99Ms,
                better: 'lower',
                goal: { atMost: 1 },
                details: { baseline: 'the budget, not a measurement' },
              }),
            );
          }
        }
      } finally {
        await bareChild?.stop();
        await child?.stop();
        await database.dispose();
      }
    }
    return measurements;
  },
});
