import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../../src/app.ts';
import { queryRows } from '../../../src/db/client.ts';
import { openMigratedDatabase } from '../../../src/db/migrate.ts';
import { listen } from '../../../src/db/notify.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { EVENTS_COMMITTED_CHANNEL } from '../../../src/modules/webhooks/events/repo.ts';
import { streamRepo } from '../../../src/modules/webhooks/events/stream-repo.ts';
import { createStreamSequencer } from '../../../src/modules/webhooks/events/stream-sequencer.ts';
import { buildServices } from '../../../src/services.ts';
import { benchMerchant, benchServerConfig, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady } from '../lib/child.ts';
import { eventSnapshot } from '../lib/webhook-bench.ts';

export interface EventStreamTarget {
  kind: 'pglite' | 'postgres';
  location: string;
}

export interface EventStreamReady {
  ours: { url: string; headers: Record<string, string> };
  bare: { url: string };
}

export type EventStreamCommand =
  | { type: 'use'; which: 'ours' | 'bare' }
  | { type: 'stage'; count: number }
  | { type: 'emit'; rate: number; total: number };

export type EventStreamMessage =
  | { type: 'using' }
  | { type: 'staged' }
  | { type: 'emitted'; committed: Array<[string, number]>; achievedRate: number };

const now = () => performance.timeOrigin + performance.now();

/** How far back the bare stream looks at each wake-up. */
const WINDOW_MS = 1000;

/**
 * The event stream bench's server, in its own process: the real app (GET /v1/events/stream, with the real sequencer)
 * and a bare stream beside it on the same database (woken by the same commit notification, it reads the last moment's
 * rows and sends the new ones), and the writer of events both read (the events service's own outbox statement). The parent reads one stream over HTTP and times arrivals against the commit times this process reports.
 */
async function main(): Promise<void> {
  const target = JSON.parse(process.env.BENCH_TARGET ?? '{}') as EventStreamTarget;
  const config = benchServerConfig(
    target.kind === 'pglite' ? { dataDir: target.location } : { databaseUrl: target.location },
  );
  const logger = createLogger({ ...config, logLevel: 'silent' });
  const database = await openMigratedDatabase(config, undefined, logger);
  const services = buildServices({ config, database, clock: systemClock, checkWebhookUrl: async () => {} });
  const app = await buildApp({ config, database, services });
  const oursBase = await app.listen({ host: '127.0.0.1', port: 0 });
  const merchant = await benchMerchant(oursBase);
  const principal = await services.keys.authenticate(merchant.testKey);
  if (principal === null) throw new Error('the bench key does not authenticate');
  const merchantId = principal.merchantId;
  // Always running, as in `svc serve`: the baseline's turns pay for it too, as they would in the program.
  const sequencer = createStreamSequencer({ database, repo: streamRepo });
  await sequencer.start();

  // The bare stream: on the commit notification every event insert sends, it reads the merchant's rows created in
  // the last WINDOW_MS (a statement that commits a moment late is still in that window) and writes those it has not
  // sent yet. No positions, no resume, no per-merchant wake-ups: about the least a stream that loses nothing in a
  // bench's few milliseconds can do.
  const bareStreams = new Set<ServerResponse>();
  const sent = new Map<string, number>();
  let reading = false;
  let again = false;
  const read = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    do {
      again = false;
      const rows = await queryRows<{ id: string; type: string; body: string }>(
        database.db,
        sql`select id, type, body from events
            where merchant_id = ${merchantId} and is_test and created_at > now() - ${`${WINDOW_MS} milliseconds`}::interval
            order by created_at, id`,
      );
      const at = Date.now();
      for (const row of rows) {
        if (sent.has(row.id)) continue;
        sent.set(row.id, at);
        for (const response of bareStreams)
          response.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${row.body}\n\n`);
      }
      for (const [id, when] of sent) if (at - when > WINDOW_MS * 2) sent.delete(id);
    } while (again);
    reading = false;
  };
  await listen(database, EVENTS_COMMITTED_CHANNEL, () => {
    if (bareStreams.size > 0) void read();
  });
  const bare = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': open\n\n');
    bareStreams.add(response);
    response.on('close', () => bareStreams.delete(response));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  let serial = 0;
  const send = (message: EventStreamMessage) => process.send?.(message);
  process.on('message', (message: EventStreamCommand) => {
    void (async () => {
      if (message.type === 'use') {
        // A stream opens at the head: what the previous run left to sequence goes first, not into this run.
        await sequencer.drainNow();
        send({ type: 'using' });
      } else if (message.type === 'stage') {
        const occurredAt = new Date();
        await database.db.transaction(async (tx) => {
          const inputs = [];
          for (let n = 0; n < message.count; n++) {
            serial += 1;
            inputs.push({
              merchantId,
              type: 'payment.confirmed' as const,
              payment: eventSnapshot(serial),
              occurredAt,
            });
          }
          await services.events.recordPaymentEvents(tx, inputs);
        });
        send({ type: 'staged' });
      } else {
        const committed: Array<[string, number]> = [];
        const started = performance.now();
        const pending = new Set<Promise<void>>();
        let emitted = 0;
        while (emitted < message.total) {
          const due = Math.min(
            message.total,
            Math.floor(((performance.now() - started) * message.rate) / 1000),
          );
          for (; emitted < due; emitted++) {
            serial += 1;
            // The outbox write is one statement: alone, it commits as it returns.
            const job = services.events
              .recordPaymentEvent(database.db, {
                merchantId,
                type: 'payment.confirmed',
                payment: eventSnapshot(serial),
                occurredAt: new Date(),
              })
              .then(({ eventId }) => {
                committed.push([eventId, now()]);
              });
            pending.add(job);
            void job.finally(() => pending.delete(job));
          }
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        await Promise.all(pending);
        const seconds = (performance.now() - started) / 1000;
        send({ type: 'emitted', committed, achievedRate: message.total / seconds });
      }
    })().catch((error: unknown) => reportError(error));
  });

  exitWithParent([
    () => sequencer.stop(),
    () => new Promise((resolve) => bare.close(resolve)),
    () => app.close(),
    () => database.close(),
  ]);
  reportReady<EventStreamReady>({
    ours: { url: `${oursBase}/v1/events/stream`, headers: { 'x-api-key': merchant.testKey } },
    bare: { url: `${bareBase}/bare/stream` },
  });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
