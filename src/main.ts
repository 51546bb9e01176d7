/**
 * `svc <role>`: checks the role and the configuration, then runs the program (program.ts).
 *
 * Start-up does two things side by side: the embedded PostgreSQL boots (its WebAssembly compiles on background
 * threads) while the rest of the program's modules load (program.ts is a chunk of its own in the bundle that
 * `npm start` runs, bin/bundle.mjs).
 * So this file imports only what it needs to get that far, and a bad role or configuration fails fast;
 * `npm run bench -- startup` measures the result. Add new start-up work to program.ts, not here.
 */
import { ConfigError, loadConfig } from './config.ts';
import { startEmbeddedEngine } from './db/embedded.ts';
import { createLogger } from './logger.ts';

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

  const engine = config.databaseUrl === undefined ? startEmbeddedEngine(config.dataDir) : undefined;
  // Awaited (and its failure reported) once the program has loaded; until then it must not count as unhandled.
  engine?.catch(() => {});

  if (role === 'migrate') {
    const [{ openDatabase }, { migrateDatabase }] = await Promise.all([
      import('./db/client.ts'),
      import('./db/migrate.ts'),
    ]);
    const database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      engine,
    });
    logger.info({ database: database.kind }, 'database open');
    await migrateDatabase(database);
    logger.info('migrations applied');
    await database.close();
    return;
  }

  const { runProgram } = await import('./program.ts');
  await runProgram({ role, config, logger, engine });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
