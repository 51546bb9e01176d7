import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../../src/app.ts';
import { pgArray } from '../../../src/db/arrays.ts';
import { queryRows } from '../../../src/db/client.ts';
import { openMigratedDatabase } from '../../../src/db/migrate.ts';
import { listen } from '../../../src/db/notify.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { streamRepo } from '../../../src/modules/webhooks/events/stream-repo.ts';
import { createStreamSequencer } from '../../../src/modules/webhooks/events/stream-sequencer.ts';
import { buildServices } from '../../../src/services.ts';
import { benchMerchant, benchServerConfig, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady } from '../lib/child.ts';
import { BARE_CHANNEL, createEventWriter } from '../lib/event-writer.ts';

export interface EventStreamTarget {
  kind: 'pglite' | 'postgres';
  location: string;
}

export interface EventStreamReady {
  /** The merchant whose events both streams send (a writer in the bench's process writes them on PostgreSQL). */
  merchantId: string;
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

/**
 * The event stream bench's server, in its own process: the real app (GET /v1/events/stream, with the real sequencer)
 * and a bare stream beside it on the same database (the writer's NOTIFY names each committed event, read by primary
 * key and written out), and on PGlite the writer of events both read (bench/lib/event-writer.ts; on PostgreSQL the
 * bench writes from its own process). The parent reads one stream over HTTP and times arrivals against the commit times this process reports.
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

  // The bare stream: the writer's NOTIFY names each event once it committed; the ids of one tick are read by primary
  // key together and written out. No positions, no resume, no per-merchant wake-ups: the least a stream can do.
  const bareStreams = new Set<ServerResponse>();
  let waiting: string[] = [];
  let scheduled = false;
  const flush = async (): Promise<void> => {
    scheduled = false;
    const ids = waiting;
    waiting = [];
    const rows = await queryRows<{ id: string; type: string; body: string }>(
      database.db,
      sql`select id, type, body from events where id = any(${pgArray(ids)}::text[])`,
    );
    for (const row of rows) {
      for (const response of bareStreams)
        response.write(`id: ${row.id}\nevent: ${row.type}\ndata: ${row.body}\n\n`);
    }
  };
  await listen(database, BARE_CHANNEL, (id) => {
    if (bareStreams.size === 0) return;
    waiting.push(id);
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void flush());
    }
  });
  const bare = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(': open\n\n');
    bareStreams.add(response);
    response.on('close', () => bareStreams.delete(response));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareBase = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const writer = createEventWriter(database, services.events, merchantId);
  const send = (message: EventStreamMessage) => process.send?.(message);
  process.on('message', (message: EventStreamCommand) => {
    void (async () => {
      if (message.type === 'use') {
        // A stream opens at the head: what the previous run left to sequence goes first, not into this run.
        await sequencer.drainNow();
        send({ type: 'using' });
      } else if (message.type === 'stage') {
        await writer.stage(message.count);
        send({ type: 'staged' });
      } else {
        send({ type: 'emitted', ...(await writer.emit(message.rate, message.total)) });
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
    merchantId,
    ours: { url: `${oursBase}/v1/events/stream`, headers: { 'x-api-key': merchant.testKey } },
    bare: { url: `${bareBase}/bare/stream` },
  });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
