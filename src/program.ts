import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { EmbeddedClient } from './db/engine-thread.ts';
import { openMigratingDatabase } from './db/migrate.ts';
import { startMetricsListener } from './http/metrics.ts';
import { systemClock } from './lib/clock.ts';
import { buildServices } from './services.ts';
import { backgroundWorkers } from './workers.ts';

export interface ProgramOptions {
  role: 'serve' | 'api' | 'worker';
  config: Config;
  logger: Logger;
  /** The embedded engine main.ts started while this module loaded; undefined with DATABASE_URL. */
  engine: EmbeddedClient | undefined;
}

/**
 * What `svc serve|api|worker` runs once main.ts has checked the role and the configuration: the database and its
 * migrations, the services, the HTTP API, the background workers, and a clean shutdown on SIGTERM/SIGINT.
 */
export async function runProgram({ role, config, logger, engine }: ProgramOptions): Promise<void> {
  // The embedded engine may still be opening on its thread: migrations wait for it, while this thread builds the
  // services and the HTTP app, which need no database yet. Nothing listens or runs before the migrations are done.
  const { database, migrated } = await openMigratingDatabase(config, engine, logger);

  const clock = systemClock;
  const services = buildServices({ config, database, clock, logger });
  // Kept only where something can read them (a token opens GET /metrics, or a listener of their own): otherwise
  // prom-client is not even loaded, and no request or worker round pays for recording what nobody will scrape.
  const metricsReadable = config.metrics.token !== undefined || config.metrics.port !== undefined;
  const metrics = metricsReadable ? (await import('./metrics.ts')).createMetrics(services) : undefined;
  const stopApi: Array<() => Promise<void>> = [];
  const stopWorkers: Array<() => Promise<void>> = [];
  const readinessChecks: Array<() => Promise<string | null>> = [];
  const withWorkers = role === 'serve' || role === 'worker';
  let workersStarted = false;
  if (withWorkers) readinessChecks.push(async () => (workersStarted ? null : 'workers are starting'));

  // The API listens first and the workers start right after it: their first rounds (a block on each simulated
  // chain, polls, expiry) would otherwise queue ahead of the migrations and the first requests on the embedded
  // engine's one connection. Readiness waits for both.
  const app =
    role === 'serve' || role === 'api'
      ? await buildApp({ config, database, services, logger, readinessChecks, metrics })
      : undefined;
  // Fastify's own start-up work (onReady hooks, what plugins left for ready) is done while the engine may still open.
  await app?.ready();
  await migrated;
  if (app !== undefined) {
    await app.listen({ port: config.port, host: config.host });
    logger.info({ url: config.publicUrl, docs: `${config.publicUrl}/docs` }, `svc ${role} listening`);
    stopApi.push(() => app.close());
  }
  if (config.metrics.port !== undefined && metrics !== undefined) {
    const listener = await startMetricsListener(metrics, config.metrics.host, config.metrics.port);
    logger.info({ url: `http://${config.metrics.host}:${config.metrics.port}/metrics` }, 'metrics listening');
    stopApi.push(
      () =>
        new Promise<void>((resolve) => {
          listener.close(() => resolve());
          // A scraper keeps its connection open between scrapes.
          listener.closeAllConnections();
        }),
    );
  }

  if (withWorkers) {
    // Side by side: each start is a LISTEN or a cursor read, and one after another each would queue behind the first
    // round of the worker before it on the embedded engine's one connection.
    const workers = backgroundWorkers({ config, database, clock, services, logger, metrics });
    const starts = await Promise.allSettled(workers.map((worker) => worker.start()));
    workers.forEach((worker, index) => {
      if (starts[index]?.status !== 'fulfilled') return;
      readinessChecks.push(() => worker.readiness());
      stopWorkers.push(() => worker.stop());
      logger.info(worker.started);
    });
    const failed = starts.find((start) => start.status === 'rejected');
    if (failed !== undefined) {
      for (const stop of [...stopWorkers].reverse()) await stop().catch(() => {});
      throw failed.reason;
    }
    workersStarted = true;
  }

  // Ready now; the derivation thread (some hundreds of ms to load, beside request handling) starts at once rather
  // than on the first payment, which would otherwise derive on this thread meanwhile.
  if (role !== 'worker') void services.derivation?.ready();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // New requests stop first, then the workers, last started first.
    for (const stop of [...stopApi, ...stopWorkers.reverse()])
      await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    await database.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
