import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { Database, Db } from './database.ts';
import * as schema from './schema/index.ts';

/**
 * A PostgreSQL server as the database: pg and drizzle's driver for it. The embedded default never loads this module
 * (client.ts and migrate.ts import it when DATABASE_URL is set), so a start on PGlite does not compile pg, nor the
 * fetch implementation Node loads when pg looks for a Cloudflare runtime.
 */

// NUMERIC and INT8 come back as strings so money never passes through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);

function ignoreIdleClientError(): void {}

export function fromPool(pool: pg.Pool): Database {
  // An idle client that errors (the server ended it: a restart, an administrator) must not crash the process; the
  // pool drops it and opens another when needed.
  if (!pool.listeners('error').includes(ignoreIdleClientError)) pool.on('error', ignoreIdleClientError);
  return {
    db: drizzle({ client: pool, schema }) as unknown as Db,
    kind: 'postgres',
    embedded: undefined,
    pool,
    close: () => pool.end(),
  };
}

export async function openServerDatabase(databaseUrl: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  await pool.query('select 1');
  return fromPool(pool);
}

/** Applies the migrations under a session advisory lock, so that only one process migrates at a time. */
export async function migrateServer(pool: pg.Pool, migrationsFolder: string, lockKey: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [lockKey]);
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock($1)', [lockKey]).catch(() => {});
    client.release();
  }
}

/** A connection of its own (not one of the pool's), to the pool's server with the pool's settings. */
export function dedicatedConnection(pool: pg.Pool): pg.Client {
  return new pg.Client(pool.options);
}
