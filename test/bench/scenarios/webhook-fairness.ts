import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { migrateDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { buildServices } from '../../../src/services.ts';
import { startChild } from '../lib/child.ts';
import { freshPostgres } from '../lib/databases.ts';
import { defineScenario, measurement } from '../lib/scenario.ts';
import { percentile, round } from '../lib/stats.ts';
import { eventSnapshot, receiverAsker, workerEnv } from '../lib/webhook-bench.ts';
import type { ReceiverCommand, ReceiverReady } from '../servers/webhook-receiver.ts';

const receiverServer = fileURLToPath(new URL('../servers/webhook-receiver.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

const HANGING_ENDPOINTS = 30;
const RATE_B = 200;
/** A's own events per second; each goes to all 30 of its endpoints, every one of which hangs. */
const RATE_A = 20;

/**
 * Fairness of webhook delivery on PostgreSQL, one `svc worker` process with its defaults (100 slots, 20 per
 * merchant, 10 per endpoint, 5 s timeout): merchant B's single healthy endpoint at 200 events/s, p99 from commit to
 * receipt, first alone and then while merchant A's 30 endpoints all hang (A emitting 20 events/s, 600 deliveries/s
 * that each hold a slot until the timeout). Goal: B's p99 beside A <= 2x its p99 alone.
 */
export default defineScenario({
  name: 'webhook-fairness',
  description: "Webhook fairness: one merchant's p99 commit→receipt beside another's 30 hanging endpoints",
  async run({ log, scale }) {
    const target = await freshPostgres();
    if (target === undefined || target.kind !== 'postgres') {
      log('webhook-fairness: no PostgreSQL server answers; skipped');
      return [];
    }
    const seconds = Math.max(3, Math.round(10 * scale));
    const env = workerEnv(target.url, { SVC_WEBHOOK_MAX_ENDPOINTS: String(HANGING_ENDPOINTS) });
    const config = loadConfig(env);
    const database = await openDatabase({ databaseUrl: target.url, dataDir: tmpdir(), poolSize: 20 });
    const children: ChildProcess[] = [];
    // A's endpoints: a server that reads each request and never answers.
    const held = new Set<ServerResponse>();
    let receivedA = 0;
    const hang = createServer((request, response) => {
      request.resume();
      receivedA += 1;
      held.add(response);
      response.on('close', () => held.delete(response));
    });
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    const hangBase = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    const receiver = await startChild<ReceiverReady>(receiverServer);
    const ask = receiverAsker(receiver);

    try {
      await migrateDatabase(database);
      const services = buildServices({ config, database, clock: systemClock });
      const signup = async () =>
        (
          await services.accounts.signup(
            `bench-${randomBytes(6).toString('hex')}@example.com`,
            'bench horse battery staple',
          )
        ).merchant.id;
      const merchantB = await signup();
      const merchantA = await signup();
      await services.webhookEndpoints.create(
        { via: 'jwt', merchantId: merchantB, isTest: undefined },
        { url: `${receiver.ready.base}/b`, is_test: true },
      );
      for (let index = 0; index < HANGING_ENDPOINTS; index += 1) {
        await services.webhookEndpoints.create(
          { via: 'jwt', merchantId: merchantA, isTest: undefined },
          { url: `${hangBase}/a${index}`, is_test: true },
        );
      }

      log('webhook-fairness: starting `svc worker`');
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'worker'], {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      });
      children.push(worker);
      await new Promise<void>((resolve, reject) => {
        let buffer = '';
        const timer = setTimeout(() => reject(new Error('svc worker did not start within 60 s')), 60_000);
        worker.stdout?.on('data', (chunk: Buffer) => {
          buffer += chunk.toString();
          if (buffer.includes('webhook delivery worker started')) {
            clearTimeout(timer);
            resolve();
          }
          if (buffer.length > 100_000) buffer = buffer.slice(-1000);
        });
        worker.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`svc worker exited with ${code}`));
        });
      });

      let serial = 0;
      const record = (merchantId: string) => {
        serial += 1;
        return services.events.recordPaymentEvent(database.db, {
          merchantId,
          type: 'payment.confirmed',
          payment: eventSnapshot(serial),
          occurredAt: new Date(),
        });
      };

      /** B at RATE_B events/s (A at RATE_A beside it when `withA`); B's commit→receipt samples. */
      const run = async (label: string, withA: boolean) => {
        receiver.process.send({ type: 'reset' } satisfies ReceiverCommand);
        const receivedBefore = receivedA;
        let mostHeld = 0;
        const sampler = setInterval(() => {
          mostHeld = Math.max(mostHeld, held.size);
        }, 20);
        const total = RATE_B * seconds;
        const committed = new Map<string, number>();
        const arrived = ask({ type: 'expect', count: total }, 'arrived', 60_000 + seconds * 1000);
        const pending = new Set<Promise<void>>();
        const started = performance.now();
        let emittedB = 0;
        let emittedA = 0;
        while (emittedB < total) {
          const elapsed = performance.now() - started;
          const dueB = Math.min(total, Math.floor((elapsed * RATE_B) / 1000));
          for (; emittedB < dueB; emittedB += 1) {
            const job = record(merchantB).then(({ eventId }) => {
              committed.set(eventId, performance.timeOrigin + performance.now());
            });
            pending.add(job);
            void job.finally(() => pending.delete(job));
          }
          const dueA = withA ? Math.floor((elapsed * RATE_A) / 1000) : 0;
          for (; emittedA < dueA; emittedA += 1) {
            const job = record(merchantA).then(() => {});
            pending.add(job);
            void job.finally(() => pending.delete(job));
          }
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        await Promise.all(pending);
        await arrived;
        clearInterval(sampler);
        const arrivals = new Map((await ask({ type: 'collect' }, 'collected', 30_000)).arrivals);
        const samples: number[] = [];
        for (const [id, at] of committed) {
          const arrival = arrivals.get(id);
          if (arrival !== undefined) samples.push(Math.max(0, arrival - at));
        }
        const result = {
          events_b: total,
          events_a: emittedA,
          a_requests_received: receivedA - receivedBefore,
          a_requests_open_at_most: mostHeld,
          p50: round(percentile(samples, 50), 2),
          p99: round(percentile(samples, 99), 2),
          max: round(Math.max(...samples), 2),
        };
        log(`webhook-fairness: ${label} ${JSON.stringify(result)}`);
        return result;
      };

      await run('warm-up', false);
      const alone = await run('B alone', false);
      const beside = await run('B beside A', true);
      return [
        measurement({
          name: `webhook p99 commit→receipt of B (${RATE_B} events/s) beside A's ${HANGING_ENDPOINTS} hanging endpoints vs B alone [postgres]`,
          unit: 'ms',
          ours: beside.p99,
          baseline: alone.p99,
          better: 'lower',
          goal: { atMost: 2 },
          details: { alone, beside, a_events_per_second: RATE_A, seconds },
        }),
      ];
    } finally {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      for (const response of held) response.destroy();
      hang.closeAllConnections();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
      await receiver.stop();
      await database.close();
      await target.dispose();
    }
  },
});
