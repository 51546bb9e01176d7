import Fastify from 'fastify';
import { destination } from 'pino';
import { buildApp } from '../../../src/app.ts';
import { openMigratedDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { buildServices } from '../../../src/services.ts';
import { apiCaller, benchMerchant, benchServerConfig, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady, serveCpuUsage } from '../lib/child.ts';

export interface WebhooksGetTarget {
  kind: 'pglite' | 'postgres';
  /** PGlite's data directory, or the PostgreSQL URL. */
  location: string;
}

export interface WebhooksGetReady {
  ours: { url: string; headers: Record<string, string> };
  bare: { url: string };
}

async function main(): Promise<void> {
  const target = JSON.parse(process.env.BENCH_TARGET ?? '{}') as WebhooksGetTarget;
  const config = benchServerConfig(
    target.kind === 'pglite' ? { dataDir: target.location } : { databaseUrl: target.location },
  );
  // Requests are logged as in production (level info), into /dev/null so the terminal stays readable.
  const logger = createLogger(config, destination({ dest: '/dev/null', sync: false }));
  const database = await openMigratedDatabase(config, undefined, logger);
  // The URL check resolves names over the network; the registered URL does not matter to a GET.
  const services = buildServices({ config, database, clock: systemClock, checkWebhookUrl: async () => {} });
  const app = await buildApp({ config, database, services, logger });
  const oursBase = await app.listen({ host: '127.0.0.1', port: 0 });

  const call = apiCaller(oursBase);
  const merchant = await benchMerchant(oursBase);
  const endpoint = (await call('/v1/webhooks', {
    headers: { 'x-api-key': merchant.testKey },
    body: { url: 'https://example.com/bench-hook' },
  })) as { id: string };

  // The baseline: no auth, no validation, no logging, the driver's own query; one primary-key SELECT, on PostgreSQL
  // as a named prepared statement (parsed once per connection), the fastest way the driver offers.
  const bare = Fastify({ logger: false });
  const selectById = 'select * from webhook_endpoints where id = $1';
  bare.get<{ Params: { id: string } }>('/bare/webhooks/:id', async (request, reply) => {
    const { rows } =
      database.embedded !== undefined
        ? await database.embedded.query(selectById, [request.params.id])
        : await database.pool!.query({ name: 'bare_select', text: selectById, values: [request.params.id] });
    if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
    return rows[0];
  });
  const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 });

  exitWithParent([() => bare.close(), () => app.close(), () => database.close()]);

  serveCpuUsage();
  reportReady<WebhooksGetReady>({
    ours: { url: `${oursBase}/v1/webhooks/${endpoint.id}`, headers: { 'x-api-key': merchant.testKey } },
    bare: { url: `${bareBase}/bare/webhooks/${endpoint.id}` },
  });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
