import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { EmbeddedClient } from './engine-thread.ts';
import type * as schema from './schema/index.ts';

type Schema = typeof schema;
/** A database handle or an open transaction: repos accept either, so services decide transaction boundaries. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/** The database the program runs on, embedded or a server: what client.ts and server.ts both hand out. */
export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** The embedded engine, when that is what runs: its thread in the program, a PGlite of their own in tests. */
  embedded: EmbeddedClient | undefined;
  /** The server pool, when a PostgreSQL server is used. */
  pool: pg.Pool | undefined;
  close(): Promise<void>;
}
