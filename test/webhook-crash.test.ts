import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, queryRows } from '../src/db/client.ts';
import { fromPool } from '../src/db/server.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createConfiguredDeliveryWorker } from '../src/modules/webhooks/delivery/worker.ts';
import type { PaymentEventSnapshot } from '../src/modules/webhooks/events/payload.ts';
import { createConfiguredSsrfGuard } from '../src/modules/webhooks/ssrf.ts';
import {
  apiKey,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
  testMnemonic,
} from './support/harness.ts';
import { createIsolatedDatabase, type Receiver, sleep, startReceiver, waitFor } from './support/webhooks.ts';

/**
 * Crash safety of delivery on a real PostgreSQL server: a worker process killed with SIGKILL at arbitrary moments
 * loses nothing, and re-sends at most what it had claimed and not yet recorded. Needs DATABASE_URL.
 */
const serverUrl = process.env.DATABASE_URL;
const reason = serverUrl ? '' : ' (skipped: set DATABASE_URL to a PostgreSQL server to run it)';
if (!serverUrl) process.stderr.write(`test/webhook-crash.test.ts:${reason}\n`);

const EVENTS = 5000;
const CONCURRENCY = 100;
const secrets = {
  SVC_MASTER_KEY: randomBytes(32).toString('base64'),
  SVC_JWT_SECRET: randomBytes(32).toString('hex'),
};

describe.skipIf(!serverUrl)(`webhook delivery on PostgreSQL${reason}`, () => {
  let t: TestApp;
  let url = '';
  let drop: () => Promise<void> = async () => {};
  const receivers: Receiver[] = [];
  const children = new Set<ChildProcess>();
  let workerErrors = '';

  beforeAll(async () => {
    const isolated = await createIsolatedDatabase();
    url = isolated.url ?? '';
    drop = isolated.drop;
    t = await createTestApp({ database: isolated.database, env: { ...secrets } });
  });

  afterAll(async () => {
    for (const child of children) killGroup(child, 'SIGKILL');
    for (const receiver of receivers) await receiver.close();
    await t?.close();
    await drop();
  });

  function snapshot(index: number): PaymentEventSnapshot {
    return {
      payment_id: `00000000-0000-7000-8000-${index.toString().padStart(12, '0')}`,
      status: 'completed',
      amount: `${index}.99`,
      currency: 'USD',
      chain: 'ethereum',
      tx_hash: `0x${index.toString(16).padStart(64, '0')}`,
      received_amount_native: '0.01',
      expected_amount_native: '0.01',
      is_test: true,
    };
  }

  async function emitMany(merchant: Merchant, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < count; start += 250) {
      await t.database.db.transaction(async (tx) => {
        for (let index = start; index < Math.min(count, start + 250); index += 1) {
          const { eventId } = await t.services.events.recordPaymentEvent(tx, {
            merchantId: merchant.merchantId,
            type: 'payment.confirmed',
            payment: snapshot(index),
            occurredAt: new Date(),
          });
          ids.push(eventId);
        }
      });
    }
    return ids;
  }

  async function countingReceiver(delayMs: number) {
    const counts = new Map<string, number>();
    const receiver = await startReceiver((request) => {
      const id = String(request.headers['webhook-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
      return { status: 200, delayMs };
    });
    receivers.push(receiver);
    return { receiver, counts };
  }

  async function newEndpoint(merchant: Merchant, target: string): Promise<string> {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: apiKey(merchant.testKey),
      payload: { url: target },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id;
  }

  function startWorkerProcess(): ChildProcess {
    // The `svc` command itself (bin/svc.mjs: the bundle when current, else the sources through tsx in-process), not
    // the tsx CLI: that one runs the program in a child and SIGKILLs it unless the child reports a signal within
    // 30 ms, which a busy worker does not always manage, so a clean SIGTERM exit showed up as 143.
    const child = spawn(process.execPath, ['bin/svc.mjs', 'worker'], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        DATABASE_URL: url,
        DATABASE_POOL_SIZE: '10',
        SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-worker-')),
        ...secrets,
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        SVC_WEBHOOK_TIMEOUT_MS: '1000',
        SVC_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        SVC_WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: 'warn',
      },
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      workerErrors += chunk.toString();
    });
    children.add(child);
    child.on('exit', () => children.delete(child));
    return child;
  }

  /** The worker runs detached, in a process group of its own: the whole group goes. */
  function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  }

  async function exited(child: ChildProcess): Promise<number | null> {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Claims not yet recorded (delivery id and lease): what a worker killed now may have sent unrecorded. */
  async function leases(): Promise<Set<string>> {
    const rows = await queryRows<{ id: string; lease_token: string }>(
      t.database.db,
      sql`select id, lease_token from webhook_deliveries where lease_token is not null`,
    );
    return new Set(rows.map((row) => `${row.id}/${row.lease_token}`));
  }

  // Generous waits: the whole suite runs two files at once on a 2-CPU machine, beside live chain tests; what is
  // tested is that nothing is lost or sent twice, not how fast.
  it(`delivers all ${EVENTS} events across three SIGKILLs of the worker process`, {
    timeout: 420_000,
  }, async () => {
    const merchant = await createMerchant(t.app);
    const { receiver, counts } = await countingReceiver(3);
    const endpointId = await newEndpoint(merchant, receiver.url);
    const started = Date.now();
    const eventIds = await emitMany(merchant, EVENTS);
    const emitted = Date.now();

    const inFlightAtKill: number[] = [];
    let before = new Set<string>();
    for (const threshold of [EVENTS * 0.15, EVENTS * 0.4, EVENTS * 0.65]) {
      const worker = startWorkerProcess();
      await waitFor(`${threshold} receipts`, () => counts.size >= threshold, 90_000).catch((error: Error) => {
        throw new Error(`${error.message}; worker stderr: ${workerErrors.slice(-2000)}`);
      });
      killGroup(worker, 'SIGKILL');
      await exited(worker);
      await sleep(50);
      // The leases of an earlier kill may not have run out yet: only the new ones were this process's batch.
      const now = await leases();
      inFlightAtKill.push([...now].filter((lease) => !before.has(lease)).length);
      before = now;
    }
    const last = startWorkerProcess();
    await waitFor('every event', () => counts.size >= EVENTS, 90_000);
    await waitFor(
      'every delivery recorded',
      async () => {
        const [row] = await queryRows<{ open: string | number }>(
          t.database.db,
          sql`select count(*) as open from webhook_deliveries where endpoint_id = ${endpointId} and status <> 'succeeded'`,
        );
        return Number(row?.open) === 0;
      },
      30_000,
    );
    killGroup(last, 'SIGTERM');
    expect(await exited(last)).toBe(0);

    const total = [...counts.values()].reduce((sum, n) => sum + n, 0);
    const duplicates = total - counts.size;
    const summary = {
      events: EVENTS,
      received: total,
      unique: counts.size,
      duplicates,
      inFlightAtKill,
      emitSeconds: (emitted - started) / 1000,
      deliverSeconds: (Date.now() - emitted) / 1000,
    };
    process.stderr.write(`webhook crash test: ${JSON.stringify(summary)}\n`);
    // Zero lost: every event reached the receiver.
    expect(new Set(counts.keys())).toEqual(new Set(eventIds));
    // Duplicates only from what was claimed and unrecorded at each kill, never more than the in-flight batch.
    expect(duplicates).toBeLessThanOrEqual(inFlightAtKill.reduce((sum, n) => sum + n, 0));
    for (const inFlight of inFlightAtKill) expect(inFlight).toBeLessThanOrEqual(CONCURRENCY);
    // The attempts log says which attempts were cut short by a kill.
    const [lost] = await queryRows<{ count: string | number }>(
      t.database.db,
      sql`select count(*) as count from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
          where d.endpoint_id = ${endpointId} and a.error like 'The worker sending this attempt stopped%'`,
    );
    expect(Number(lost?.count)).toBe(inFlightAtKill.reduce((sum, n) => sum + n, 0));
  });

  it('shares the work between two workers on one database without sending anything twice', {
    timeout: 180_000,
  }, async () => {
    const merchant = await createMerchant(t.app);
    const { receiver, counts } = await countingReceiver(1);
    await newEndpoint(merchant, receiver.url);
    const second = await createMerchant(t.app);
    const other = await countingReceiver(1);
    await newEndpoint(second, other.receiver.url);
    const databases: Database[] = [0, 1].map(() => fromPool(new pg.Pool({ connectionString: url, max: 5 })));
    const workers = databases.map((database) =>
      createConfiguredDeliveryWorker({
        config: { ...t.config, webhookEndpointConcurrency: 20 },
        database,
        clock: systemClock,
        signingSecrets: t.services.webhookEndpoints.signingSecrets,
        guard: createConfiguredSsrfGuard({ ...t.config, allowPrivateWebhookTargets: true }),
        operatorIds: t.services.operators.ids,
        events: t.services.events,
      }),
    );
    try {
      for (const worker of workers) await worker.start();
      const ids = [...(await emitMany(merchant, 1000)), ...(await emitMany(second, 1000))];
      await waitFor('every event', () => counts.size + other.counts.size >= ids.length, 150_000);
      await sleep(300);
      const stats = workers.map((worker) => worker.stats());
      expect(stats.every((s) => s.sent > 0)).toBe(true);
      expect(receiver.requests.length + other.receiver.requests.length).toBe(ids.length);
    } finally {
      for (const worker of workers) await worker.stop();
      for (const database of databases) await database.close();
    }
  });
});
