import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** A database handle or an open transaction: repos accept either, so services decide transaction boundaries. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The embedded engine, when that is what runs (tests clone it). */
  pglite: PGlite | undefined;
  /** The server pool, when a PostgreSQL server is used. */
  pool: pg.Pool | undefined;
  close(): Promise<void>;
}

// NUMERIC and INT8 come back as strings so money never passes through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);

export function fromPool(pool: pg.Pool): Database {
  return {
    db: drizzlePg({ client: pool, schema }) as unknown as Db,
    kind: 'postgres',
    pglite: undefined,
    pool,
    close: () => pool.end(),
  };
}

export function fromPglite(client: PGlite): Database {
  return {
    db: drizzlePglite({ client, schema }) as unknown as Db,
    kind: 'pglite',
    pglite: client,
    pool: undefined,
    close: () => client.close(),
  };
}

export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
}): Promise<Database> {
  if (options.databaseUrl !== undefined) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 20 });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    await pool.query('select 1');
    return fromPool(pool);
  }
  const dir = join(options.dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  const client = await PGlite.create(dir);
  return fromPglite(client);
}

/**
 * Runs raw SQL (for what the query builder cannot say, such as `FOR UPDATE SKIP LOCKED`) and returns its rows.
 * Both drivers answer with `{ rows }`; the row type is the caller's promise about its own SELECT list.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
