import { fileURLToPath } from 'node:url';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Logger } from 'pino';
import { type Database, drizzleOver, openDatabase } from './client.ts';
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

export async function migrateDatabase(database: Database): Promise<void> {
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
