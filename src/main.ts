/**
 * `svc <role>`: checks the role and the configuration, then runs the program (program.ts).
 *
 * Start-up does two things side by side: the embedded PostgreSQL opens on a thread of its own (db/engine-thread.ts)
 * while this thread loads the rest of the program (program.ts is a chunk of its own in the bundle that `npm start`
 * runs, bin/bundle.mjs) and builds the HTTP app. On a restart the engine starts first of all, before the
 * configuration loads.
 * So this file imports only what it needs to get that far, and a bad role or configuration fails fast;
 * `npm run bench -- startup` measures the result. Add new start-up work to program.ts, not here.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DataDirLock } from './db/data-dir.ts';
import type { EngineThread } from './db/engine-thread.ts';

const roles = ['serve', 'api', 'worker', 'migrate', 'invite', 'reset-password'] as const;
type Role = (typeof roles)[number];

/** Developer commands: clients of a running svc (src/cli), loaded only when one is asked for. */
const developerCommands = ['login', 'listen', 'trigger', 'payments'];

const usage = `Usage: svc <role>
  serve    HTTP API and every background worker (default; the only sensible role on the embedded database)
  api      HTTP API only
  worker   background workers only
  migrate  apply database migrations and exit
  invite   print a one-time sign-up invite (SVC_SIGNUP=invite)
  reset-password EMAIL   print a one-time password-reset link for that account

       svc <command> [--json] (svc <command> --help for its options)
  login    check an API key and save it for the commands below
  listen   forward live events, signed, to a local URL (--forward-to http://localhost:3000/webhooks)
  trigger  make a test payment produce an event (svc trigger payment.confirmed)
  payments create | list | get`;

/** The embedded data directory, read from the environment exactly as loadConfig reads it; undefined with a server. */
function embeddedDir(env: NodeJS.ProcessEnv): string | undefined {
  const set = (value: string | undefined) => value !== undefined && value !== '';
  if (set(env.DATABASE_URL)) return undefined;
  return resolve(set(env.SVC_DATA_DIR) ? (env.SVC_DATA_DIR as string) : './data');
}

/**
 * Every role that opens the embedded data directory holds its lock for as long as it runs (db/data-dir.ts): a second
 * process on it exits at once, before it reads anything there, naming the directory and the holder's pid.
 */
async function lockEmbeddedDir(dir: string): Promise<DataDirLock> {
  const { DataDirLockedError, lockDataDir } = await import('./db/data-dir.ts');
  try {
    const lock = lockDataDir(dir);
    process.on('exit', () => lock.release());
    return lock;
  } catch (error) {
    if (error instanceof DataDirLockedError) {
      process.stderr.write(`svc: ${error.message}\n`);
      process.exit(75);
    }
    throw error;
  }
}

async function main(argv: string[]): Promise<void> {
  const roleArg = argv[0] ?? 'serve';
  if (roleArg === '--help' || roleArg === '-h') {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (developerCommands.includes(roleArg)) {
    const { runDeveloperCommand } = await import('./cli/main.ts');
    await runDeveloperCommand(argv, usage);
    return;
  }
  if (!(roles as readonly string[]).includes(roleArg)) {
    process.stderr.write(`Unknown role "${roleArg}".\n${usage}\n`);
    process.exit(2);
  }
  const role = roleArg as Role;

  const dataDir = embeddedDir(process.env);
  const lock = dataDir === undefined ? undefined : await lockEmbeddedDir(dataDir);
  // On a restart the engine starts before the configuration and the rest of the program even load; a first start
  // waits for a valid configuration, so a bad one never leaves a half-made database.
  const earlyDir =
    dataDir !== undefined && existsSync(join(dataDir, 'pg', 'PG_VERSION')) ? dataDir : undefined;
  let engine: EngineThread | undefined =
    earlyDir === undefined ? undefined : (await import('./db/embedded.ts')).startEmbeddedEngine(earlyDir);
  // While the engine opens on its thread and this one loads the program (the walk runs on libuv's thread pool). Files
  // the engine creates meanwhile are private already (umask, engine-worker.mjs).
  const tightening = lock?.tighten() ?? Promise.resolve(0);
  tightening.catch(() => {}); // handled below, once there is a logger

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
      await engine?.close().catch(() => {});
      process.exit(78);
    }
    throw error;
  }

  const logger = createLogger(config);
  for (const notice of config.notices) logger.warn(notice);
  // Not waited for: the program goes on loading while the walk ends. A directory svc cannot make private is fatal.
  void tightening.then(
    (tightened) => {
      if (lock !== undefined && tightened > 0) {
        logger.warn(
          { dir: lock.dir, tightened },
          'the data directory was open to other users: its directories are now 0700 and its files 0600',
        );
      }
    },
    (error: unknown) => {
      process.stderr.write(
        `svc failed to start: the data directory could not be made private: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exit(1);
    },
  );

  if (config.databaseUrl === undefined && config.dataDir !== dataDir) {
    // Cannot happen while embeddedDir reads the environment as loadConfig does; never open a directory unlocked.
    throw new Error(`the data directory ${config.dataDir} is not the one locked (${String(dataDir)})`);
  }
  if (engine !== undefined && (config.databaseUrl !== undefined || config.dataDir !== earlyDir)) {
    // Cannot happen while existingEmbeddedDir reads the environment as loadConfig does; never use the wrong one.
    await engine.close().catch(() => {});
    engine = undefined;
  }
  if (engine === undefined && config.databaseUrl === undefined) {
    const { startEmbeddedEngine } = await import('./db/embedded.ts');
    engine = startEmbeddedEngine(config.dataDir);
  }

  if (role === 'migrate') {
    const { openMigratedDatabase } = await import('./db/migrate.ts');
    const database = await openMigratedDatabase(config, engine, logger);
    logger.info('migrations applied');
    await database.close();
    return;
  }

  if (role === 'invite' || role === 'reset-password') {
    const { runAdminCommand } = await import('./admin.ts');
    process.exitCode = await runAdminCommand({ command: role, args: argv.slice(1), config, logger, engine });
    return;
  }

  const { runProgram } = await import('./program.ts');
  await runProgram({ role, config, logger, engine });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`svc failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
