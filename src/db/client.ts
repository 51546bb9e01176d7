import type { PGlite } from '@electric-sql/pglite';
import { type Placeholder, type Query, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, Db } from './database.ts';
import { keepAsTextTypes, startEmbeddedEngine } from './embedded.ts';
import type { EmbeddedClient } from './engine-thread.ts';
import * as schema from './schema/index.ts';

export type { Database, Db };

/**
 * The parsers drizzle passes with every PGlite query leave date and time types as strings (drizzle's columns map
 * them): keepAsTextTypes. PGlite merges per-query parsers into its whole table of ~300 parsers on every query, about
 * 100 µs each time, so these are installed on the instance once instead (see withoutPerQueryParsers;
 * src/db/client.test.ts checks that results are the same). The engine thread installs the same ones on its side.
 */
const keepAsString = (value: string) => value;

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

/** drizzle over an embedded engine: its PGlite driver asks only for `query` and `transaction`, which both offer. */
export function drizzleOver(client: EmbeddedClient): Db {
  return drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db;
}

/** The engine thread (or any EmbeddedClient that parses values as the program's engine does) as the database. */
export function fromEmbedded(client: EmbeddedClient): Database {
  return {
    db: drizzleOver(client),
    kind: 'pglite',
    embedded: client,
    pool: undefined,
    close: () => client.close(),
  };
}

/** A PGlite of this thread (the tests' engines) as the database, with the program's parsers installed on it. */
export function fromPglite(client: PGlite): Database {
  for (const oid of keepAsTextTypes) client.parsers[oid] = keepAsString;
  return fromEmbedded(withoutPerQueryParsers(client));
}

export async function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** The embedded engine, when the caller has already started it (see startEmbeddedEngine). */
  engine?: EmbeddedClient | undefined;
}): Promise<Database> {
  if (options.databaseUrl !== undefined) {
    const { openServerDatabase } = await import('./server.ts');
    return openServerDatabase(options.databaseUrl, options.poolSize ?? 20);
  }
  // Not waiting for the engine to open: queries wait for it, and the caller can meanwhile do what needs no database.
  return fromEmbedded(options.engine ?? startEmbeddedEngine(options.dataDir));
}

/**
 * Runs raw SQL (for what the query builder cannot say, such as `FOR UPDATE SKIP LOCKED`) and returns its rows.
 * Both drivers answer with `{ rows }`; the row type is the caller's promise about its own SELECT list.
 */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

const rawDialect = new PgDialect();

/**
 * Raw SQL (as queryRows runs it) as a named prepared statement, for a statement run so often that PostgreSQL's parse
 * and plan of it each time would cost more than running it: the webhook worker's claim took 2.6 ms to plan and under
 * 1 ms to run. `statement` writes the SQL once, each value where it goes as `value(name)`, a name of `Values`; the
 * text is then the same on every run (a server keeps one statement per name and connection, parsed once). The
 * embedded engine runs it as it runs any query.
 */
export function preparedStatement<Values extends Record<string, unknown>>(
  name: string,
  statement: (value: (name: keyof Values & string) => Placeholder) => SQL,
) {
  let built: Query | undefined;
  return async function run<T>(db: Db, values: Values): Promise<T[]> {
    built ??= rawDialect.sqlToQuery(statement((valueName) => sql.placeholder(valueName)));
    const result = await db._.session.prepareQuery(built, undefined, name, false).execute(values);
    return (result as { rows: T[] }).rows;
  };
}
