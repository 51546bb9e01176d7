import { type PGlite, types } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, SQL } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import pg from 'pg';
import { startEmbeddedEngine } from './embedded.ts';
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

/**
 * The parsers drizzle passes with every PGlite query: date and time types stay strings (drizzle's columns map them).
 * PGlite merges per-query parsers into its whole table of ~300 parsers on every query, about 100 µs each time, so
 * these are installed on the instance once instead (see withoutPerQueryParsers; src/db/client.test.ts checks that
 * results are the same).
 */
const keepAsString = (value: string) => value;
const drizzleParsers = {
  [types.TIMESTAMP]: keepAsString,
  [types.TIMESTAMPTZ]: keepAsString,
  [types.INTERVAL]: keepAsString,
  [types.DATE]: keepAsString,
  1231: keepAsString, // numeric[]
  1115: keepAsString, // timestamp[]
  1185: keepAsString, // timestamptz[]
  1187: keepAsString, // interval[]
  1182: keepAsString, // date[]
};

type Queryable = Pick<PGlite, 'query'>;

/** The client (or one of its transactions) as drizzle sees it: queries go without their per-query parsers. */
function withoutPerQueryParsers<T extends Queryable>(target: T): T {
  const query: PGlite['query'] = (text, params, options) => {
    if (options?.parsers === undefined) return target.query(text, params, options);
    const { parsers: _parsers, ...rest } = options;
    return target.query(text, params, rest);
  };
  return new Proxy(target, {
    get(object, property) {
      if (property === 'query') return query;
      if (property === 'transaction') {
        const transaction: PGlite['transaction'] = (callback) =>
          (object as unknown as PGlite).transaction((tx) => callback(withoutPerQueryParsers(tx)));
        return transaction;
      }
      // PGlite keeps its state in private fields, so its methods must run on the real object.
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

export function fromPglite(client: PGlite): Database {
  Object.assign(client.parsers, drizzleParsers);
  return {
    db: drizzlePglite({ client: withoutPerQueryParsers(client), schema }) as unknown as Db,
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
  /** The embedded engine, when the caller has already started it (see startEmbeddedEngine). */
  engine?: Promise<PGlite> | undefined;
}): Promise<Database> {
  if (options.databaseUrl !== undefined) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 20 });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    await pool.query('select 1');
    return fromPool(pool);
  }
  return fromPglite(await (options.engine ?? startEmbeddedEngine(options.dataDir)));
}

/**
 * Runs raw SQL (for what the query builder cannot say, such as `FOR UPDATE SKIP LOCKED`) and returns its rows.
 * Both drivers answer with `{ rows }`; the row type is the caller's promise about its own SELECT list.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
