import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { migrateDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { buildServices } from '../../../src/services.ts';
import { benchMerchant } from '../lib/bench-app.ts';
import { startChild } from '../lib/child.ts';
import { freshPostgres } from '../lib/databases.ts';
import { type LoadResult, runLoad } from '../lib/load.ts';
import { freePort } from '../lib/net.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { round } from '../lib/stats.ts';
import { type SvcProcess, startSvc } from '../lib/svc-process.ts';
import { benchEndpoints, deliveryStaging, drainHeldDeliveries, workerEnv } from '../lib/webhook-bench.ts';
import type { ReceiverReady } from '../servers/webhook-receiver.ts';

const receiverServer = fileURLToPath(new URL('../servers/webhook-receiver.ts', import.meta.url));

const PROCESS_COUNTS = [1, 2, 4] as const;
const CONNECTIONS = 100;
const MERCHANTS = 10;

/**
 * What a second (and a fourth) process buys on one PostgreSQL: POST /v1/payments requests/s with 1, 2 and 4
 * `svc api` processes sharing 100 connections, and webhook deliveries/s with 1, 2 and 4 `svc worker` processes
 * draining the same committed deliveries. The baseline of each row is the one-process figure of the same run, so
 * the ratio is the speed-up. No goal: the figures depend on the machine's CPUs (the load generator, the receiver
 * and PostgreSQL run here too), and the table is for an operator sizing a deployment.
 */
export default defineScenario({
  name: 'scale-out',
  description:
    'Scale-out on one PostgreSQL: payments/s with 1, 2, 4 `svc api` and deliveries/s with 1, 2, 4 `svc worker`',
  async run({ log, scale }) {
    const target = await freshPostgres();
    if (target === undefined || target.kind !== 'postgres') {
      log('scale-out: no PostgreSQL server answers; skipped');
      return [];
    }
    const duration = Math.max(2, Math.round(5 * scale));
    const batch = Math.max(1000, Math.round(6000 * scale));
    // One environment for every process: they share the secrets (master key, JWT secret, mnemonic) as a
    // deployment's machines would.
    const env = workerEnv(target.url, {
      SVC_RATE_LIMIT_PER_KEY: '0',
      SVC_RATE_LIMIT_PER_IP: '0',
      SVC_WEBHOOK_CONCURRENCY: '100',
      LOG_LEVEL: 'info',
    });
    const database = await openDatabase({ databaseUrl: target.url, dataDir: tmpdir(), poolSize: 5 });
    const receiver = await startChild<ReceiverReady>(receiverServer);
    const running: SvcProcess[] = [];
    const stopAll = async () => {
      await Promise.all(running.splice(0).map((svc) => svc.stop()));
    };
    const startApis = async (count: number) => {
      const bases: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        running.push(
          await startSvc(
            'api',
            { ...env, HOST: '127.0.0.1', PORT: String(port), SVC_PUBLIC_URL: base },
            'svc api listening',
          ),
        );
        bases.push(base);
      }
      return bases;
    };
    const measurements: Measurement[] = [];
    try {
      await migrateDatabase(database);

      // Payments: the merchant is made through the first process; every process serves its key.
      const [firstBase] = await startApis(1);
      const merchant = await benchMerchant(firstBase!);
      await stopAll();
      const body = JSON.stringify({ amount: '49.99', currency: 'USD', chain: 'ethereum', order_id: 'scale' });
      const headers = { 'x-api-key': merchant.testKey, 'content-type': 'application/json' };
      const paymentRates = new Map<number, { total: number; p99: number; perProcess: number[] }>();
      for (const count of PROCESS_COUNTS) {
        const bases = await startApis(count);
        const load = (seconds: number) =>
          Promise.all(
            bases.map((base) =>
              runLoad({
                url: `${base}/v1/payments`,
                method: 'POST',
                headers,
                body,
                duration: seconds,
                connections: Math.round(CONNECTIONS / count),
              }),
            ),
          );
        await load(1);
        const results: LoadResult[] = await load(duration);
        const failed = results.reduce((sum, r) => sum + r.non2xx + r.errors, 0);
        if (failed > 0)
          throw new Error(`POST /v1/payments with ${count} processes: ${failed} failed requests`);
        const perProcess = results.map((r) => round(r.requestsPerSecond, 0));
        const total = perProcess.reduce((sum, value) => sum + value, 0);
        paymentRates.set(count, { total, p99: Math.max(...results.map((r) => r.p99)), perProcess });
        log(`scale-out: ${count} api process(es): ${total} payments/s (${perProcess.join(' + ')})`);
        await stopAll();
      }

      // Deliveries: committed and held, then released at once to N workers claiming side by side.
      const config = loadConfig(env);
      const services = buildServices({ config, database, clock: systemClock });
      const { merchants } = await benchEndpoints(services, receiver.ready.base, MERCHANTS);
      const staging = deliveryStaging(database.db, merchants);
      const deliveryRates = new Map<number, { perSecond: number; duplicates: number }>();
      for (const count of PROCESS_COUNTS) {
        for (let index = 0; index < count; index += 1) {
          running.push(await startSvc('worker', env, 'webhook delivery worker started'));
        }
        const drain = async (size: number) => {
          await staging.stage(size);
          const { seconds, received } = await drainHeldDeliveries(
            database.db,
            receiver,
            size,
            `${count} workers`,
            180_000,
          );
          return { perSecond: size / seconds, duplicates: received - size };
        };
        await drain(Math.round(batch / 5));
        const result = await drain(batch);
        deliveryRates.set(count, { perSecond: round(result.perSecond, 0), duplicates: result.duplicates });
        log(
          `scale-out: ${count} worker process(es): ${round(result.perSecond, 0)} deliveries/s` +
            ` (${result.duplicates} duplicates)`,
        );
        await stopAll();
      }

      const onePayments = paymentRates.get(1)!.total;
      const oneDeliveries = deliveryRates.get(1)!.perSecond;
      for (const count of PROCESS_COUNTS) {
        const payments = paymentRates.get(count)!;
        measurements.push(
          measurement({
            name: `POST /v1/payments with ${count} \`svc api\` process(es), ${CONNECTIONS} connections [postgres] vs one process`,
            unit: 'req/s',
            ours: payments.total,
            baseline: onePayments,
            better: 'higher',
            details: { per_process: payments.perProcess, p99_ms: payments.p99, duration_s: duration },
          }),
        );
      }
      for (const count of PROCESS_COUNTS) {
        const deliveries = deliveryRates.get(count)!;
        measurements.push(
          measurement({
            name: `webhook deliveries with ${count} \`svc worker\` process(es) [postgres] vs one process`,
            unit: 'deliveries/s',
            ours: deliveries.perSecond,
            baseline: oneDeliveries,
            better: 'higher',
            details: { deliveries: batch, endpoints: MERCHANTS, duplicates: deliveries.duplicates },
          }),
        );
      }
    } finally {
      await stopAll();
      await receiver.stop();
      await database.close();
      await target.dispose();
    }
    return measurements;
  },
});
