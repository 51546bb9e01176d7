/**
 * `svc <role>`: checks the role and the configuration, then runs the program (program.ts).
 *
 * Start-up does two things side by side: the embedded PostgreSQL boots (its WebAssembly compiles on background
 * threads) while the rest of the program's modules load (program.ts is a chunk of its own in the bundle that
 * `npm start` runs, bin/bundle.mjs). On a restart the engine starts first of all, before the configuration loads.
 * So this file imports only what it needs to get that far, and a bad role or configuration fails fast;
 * `npm run bench -- startup` measures the result. Add new start-up work to program.ts, not here.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

const roles = ['serve', 'api', 'worker', 'migrate'] as const;
type Role = (typeof roles)[number];

const usage = `Usage: svc <role>
  serve    HTTP API and every background worker (default; the only sensible role on the embedded database)
  api      HTTP API only
  worker   background workers only
  migrate  apply database migrations and exit`;

/**
 * The embedded data directory when it already holds a database (a restart), read from the environment exactly as
 * loadConfig reads it; otherwise undefined. On a restart the engine starts before the configuration and the rest of
 * the program even load; a first start waits for a valid configuration, so a bad one never leaves a half-made database.
 */
function existingEmbeddedDir(env: NodeJS.ProcessEnv): string | undefined {
  const set = (value: string | undefined) => value !== undefined && value !== '';
  if (set(env.DATABASE_URL)) return undefined;
  const dataDir = resolve(set(env.SVC_DATA_DIR) ? (env.SVC_DATA_DIR as string) : './data');
  return existsSync(join(dataDir, 'pg', 'PG_VERSION')) ? dataDir : undefined;
}

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

  const earlyDir = existingEmbeddedDir(process.env);
  let engine: Promise<PGlite> | undefined =
    earlyDir === undefined
      ? undefined
      : import('./db/embedded.ts').then(({ startEmbeddedEngine }) => startEmbeddedEngine(earlyDir));
  // Awaited (and its failure reported) once the program has loaded; until then it must not count as unhandled.
  engine?.catch(() => {});

  const [{ ConfigError, loadConfig }, { createLogger }] = await Promise.all([
    import('./config.ts'),
    import('./logger.ts'),
  ]);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      // An engine already opening is closed cleanly before the exit.
      await engine?.then((db) => db.close()).catch(() => {});
      process.exit(78);
    }
    throw error;
  }

  const logger = createLogger(config);
  for (const notice of config.notices) logger.warn(notice);

  if (engine !== undefined && (config.databaseUrl !== undefined || config.dataDir !== earlyDir)) {
    // Cannot happen while existingEmbeddedDir reads the environment as loadConfig does; never use the wrong one.
    await engine.then((db) => db.close()).catch(() => {});
    engine = undefined;
  }
  if (engine === undefined && config.databaseUrl === undefined) {
    const { startEmbeddedEngine } = await import('./db/embedded.ts');
    engine = startEmbeddedEngine(config.dataDir);
    engine.catch(() => {});
  }

  if (role === 'migrate') {
    const { openMigratedDatabase } = await import('./db/migrate.ts');
    const database = await openMigratedDatabase(config, engine, logger);
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
