import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { migrateDatabase } from './db/migrate.ts';
import { systemClock } from './lib/clock.ts';
import { createLogger } from './logger.ts';
import { evmReadiness } from './modules/chains/evm/index.ts';
import { createSettlementJobs } from './modules/settlement/jobs.ts';
import { createConfiguredDeliveryWorker } from './modules/webhooks/jobs.ts';
import { buildServices } from './services.ts';

const roles = ['serve', 'api', 'worker', 'migrate'] as const;
type Role = (typeof roles)[number];

const usage = `Usage: svc <role>
  serve    HTTP API and every background worker (default; the only sensible role on the embedded database)
  api      HTTP API only
  worker   background workers only
  migrate  apply database migrations and exit`;

async function main(argv: string[]): Promise<void> {
  const roleArg = argv[0] ?? 'serve';
  if (roleArg === '--help' || roleArg === '-h') {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (!(roles as readonly string[]).includes(roleArg)) {
    process.stderr.write(`Unknown role "${roleArg}".\n${usage}\n`);
    process.exit(2);
  }
  const role = roleArg as Role;

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }

  const logger = createLogger(config);
  for (const notice of config.notices) logger.warn(notice);

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  logger.info({ database: database.kind }, 'database open');
  await migrateDatabase(database);
  if (role === 'migrate') {
    logger.info('migrations applied');
    await database.close();
    return;
  }

  const clock = systemClock;
  const services = buildServices({ config, database, clock, logger });
  const stops: Array<() => Promise<void>> = [];
  const readinessChecks: Array<() => Promise<string | null>> = [];

  if (role === 'serve' || role === 'worker') {
    const deliveryWorker = createConfiguredDeliveryWorker({
      config,
      database,
      clock,
      signingSecrets: services.webhookEndpoints.signingSecrets,
      logger: logger.child({ worker: 'webhooks' }),
    });
    await deliveryWorker.start();
    readinessChecks.push(() => deliveryWorker.readiness());
    stops.push(() => deliveryWorker.stop());
    logger.info('webhook delivery worker started');

    const settlementJobs = createSettlementJobs({
      database,
      clock,
      adapters: services.chainAdapters,
      payments: services.payments,
      settings: services.settings,
      simBlockMs: config.simBlockMs,
      lateWatchDays: config.lateWatchDays,
      logger: logger.child({ worker: 'settlement' }),
    });
    await settlementJobs.start();
    readinessChecks.push(() => settlementJobs.readiness());
    readinessChecks.push(evmReadiness(services.chainAdapters.all()));
    stops.push(() => settlementJobs.stop());
    logger.info(
      { simBlockMs: config.simBlockMs },
      'settlement started: watchers, forwarding and expiry (test mode on the simulated chains)',
    );
  }

  if (role === 'serve' || role === 'api') {
    const app = await buildApp({ config, database, services, logger, readinessChecks });
    await app.listen({ port: config.port, host: config.host });
    logger.info({ url: config.publicUrl, docs: `${config.publicUrl}/docs` }, `svc ${role} listening`);
    stops.push(() => app.close());
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    for (const stop of stops.reverse())
      await stop().catch((error: unknown) => logger.error({ err: error }, 'stop failed'));
    await database.close().catch(() => {});
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
