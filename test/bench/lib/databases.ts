import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** A database a scenario runs on: the embedded default always, a PostgreSQL server when one answers. */
export type BenchDatabase =
  | { kind: 'pglite'; dataDir: string; dispose(): Promise<void> }
  | { kind: 'postgres'; url: string; dispose(): Promise<void> };

const defaultServer = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The server the bench may create databases on: BENCH_DATABASE_URL (any database on it; `none` turns PostgreSQL
 * off), else the local server on 127.0.0.1:5432 when it answers.
 */
async function reachableServer(): Promise<string | undefined> {
  const configured = process.env.BENCH_DATABASE_URL;
  if (configured === 'none') return undefined;
  const url = configured ?? defaultServer;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return url;
  } catch (error) {
    if (configured !== undefined) throw error;
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh, empty data directory for PGlite. */
function freshPglite(): BenchDatabase {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  return { kind: 'pglite', dataDir, dispose: async () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** A fresh database on the PostgreSQL server (dropped by dispose), or undefined when no server answers. */
export async function freshPostgres(): Promise<BenchDatabase | undefined> {
  const server = await reachableServer();
  if (server === undefined) return undefined;
  const name = `svc_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(server, `create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    kind: 'postgres',
    url: url.toString(),
    dispose: () => admin(server, `drop database if exists ${name} with (force)`),
  };
}

/** The databases a scenario should run on, each made fresh when its turn comes; the caller disposes of each. */
export async function* benchDatabases(): AsyncGenerator<BenchDatabase> {
  yield freshPglite();
  const postgres = await freshPostgres();
  if (postgres !== undefined) yield postgres;
}
