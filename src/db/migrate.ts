import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Logger } from 'pino';
import { type Database, drizzleOver, openDatabase, queryRows } from './client.ts';
import type { EmbeddedClient } from './engine-thread.ts';

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** Where the database is, as the configuration says (config.ts). */
export interface DatabaseSettings {
  /** PostgreSQL (DATABASE_URL); undefined: the embedded engine in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
}

/** Arbitrary but fixed: every process that migrates takes this advisory lock, so only one migrates at a time. */
const MIGRATION_LOCK = 7_300_001;

/** When the newest migration in the folder was made: drizzle records it as that migration's created_at once applied. */
function newestMigrationMillis(): number {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: Array<{ when: number }>;
  };
  return Math.max(...journal.entries.map((entry) => entry.when));
}

/**
 * Whether the newest migration is applied already, in one query: on a restart the migrator would create its schema
 * and table if missing, read the applied ones and commit an empty transaction, some 70 ms of a cold embedded engine's
 * time before anything else may run. A database without the table (a first start) is simply not up to date.
 */
async function upToDate(database: Database): Promise<boolean> {
  try {
    const [row] = await queryRows<{ newest: string | null }>(
      database.db,
      sql`select max(created_at)::text as newest from drizzle.__drizzle_migrations`,
    );
    return row?.newest != null && Number(row.newest) >= newestMigrationMillis();
  } catch {
    return false;
  }
}

export async function migrateDatabase(database: Database): Promise<void> {
  if (await upToDate(database)) return;
  if (database.embedded !== undefined) {
    // drizzle's PGlite migrator takes its PGlite database; the one over the embedded client is that.
    await migratePglite(drizzleOver(database.embedded) as Parameters<typeof migratePglite>[0], {
      migrationsFolder,
    });
    return;
  }
  if (database.pool === undefined) throw new Error('Database has neither an embedded engine nor a pool');
  const { migrateServer } = await import('./server.ts');
  await migrateServer(database.pool, migrationsFolder, MIGRATION_LOCK);
}

/**
 * The program's database as the configuration names it (the embedded engine already starting, if any), with its
 * migrations under way: `migrated` settles once they are done. The embedded engine may still be opening on its
 * thread meanwhile, so the caller can do what needs no database (build the services and the HTTP app) before it waits.
 */
export async function openMigratingDatabase(
  config: DatabaseSettings,
  engine: EmbeddedClient | undefined,
  logger: Logger,
): Promise<{ database: Database; migrated: Promise<void> }> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    engine,
  });
  const migrated = migrateDatabase(database).then(() =>
    logger.info({ database: database.kind }, 'database open'),
  );
  migrated.catch(() => {}); // the caller's to await
  return { database, migrated };
}

/** The program's database as the configuration names it (the embedded engine already starting, if any), migrated. */
export async function openMigratedDatabase(
  config: DatabaseSettings,
  engine: EmbeddedClient | undefined,
  logger: Logger,
): Promise<Database> {
  const { database, migrated } = await openMigratingDatabase(config, engine, logger);
  await migrated;
  return database;
}
