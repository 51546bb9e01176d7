import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from './client.ts';

/**
 * Leader election per job name with PostgreSQL advisory locks, held on ONE dedicated connection per process (not a
 * pool connection): whoever holds `pg_try_advisory_lock(namespace, key(name))` runs the job. If the process dies or
 * its connection drops, PostgreSQL releases the locks and another process takes over on its next try. On the
 * embedded database there is one process, which always leads.
 */
export interface LeaderElector {
  /** True while this process leads `name` (tries to become leader when it does not). */
  lead(name: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The advisory-lock namespace of svc's jobs (the migration lock uses a different, single-key lock). */
const NAMESPACE = 7_300_002;
const HEARTBEAT_MS = 5000;

function lockKey(name: string): number {
  return createHash('sha256').update(name).digest().readInt32BE(0);
}

export function createLeaderElector(database: Database, logger?: Logger): LeaderElector {
  const { pool } = database;
  if (pool === undefined) {
    return { lead: async () => true, close: async () => {} };
  }
  const serverPool: pg.Pool = pool;
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let lastBeat = 0;
  const held = new Set<string>();
  // Every chain's loop asks at its own pace; their statements take turns on the one connection (pg 9 refuses a query
  // sent while another is running on the same client).
  let turn: Promise<unknown> = Promise.resolve();
  function query<Row extends pg.QueryResultRow>(
    conn: pg.Client,
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<Row>> {
    const result = turn.then(() => conn.query<Row>(text, values));
    turn = result.catch(() => {});
    return result;
  }

  function lost(reason: unknown): void {
    if (held.size > 0)
      logger?.warn({ err: String(reason), jobs: [...held] }, 'leader connection lost; leadership given up');
    held.clear();
    const old = client;
    client = null;
    old?.end().catch(() => {});
  }

  async function connection(): Promise<pg.Client> {
    if (client !== null) return client;
    connecting ??= (async () => {
      const { dedicatedConnection } = await import('./server.ts');
      const next = dedicatedConnection(serverPool);
      next.on('error', (error) => lost(error));
      await next.connect();
      client = next;
      lastBeat = Date.now();
      return next;
    })().finally(() => {
      connecting = null;
    });
    return connecting;
  }

  return {
    async lead(name) {
      try {
        const conn = await connection();
        if (held.has(name)) {
          if (Date.now() - lastBeat >= HEARTBEAT_MS) {
            await query(conn, 'select 1');
            lastBeat = Date.now();
          }
          return held.has(name);
        }
        const result = await query<{ ok: boolean }>(conn, 'select pg_try_advisory_lock($1, $2) as ok', [
          NAMESPACE,
          lockKey(name),
        ]);
        if (result.rows[0]?.ok === true) {
          held.add(name);
          logger?.info({ job: name }, 'leading');
          return true;
        }
        return false;
      } catch (error) {
        lost(error);
        return false;
      }
    },
    async close() {
      held.clear();
      const old = client;
      client = null;
      await old?.end().catch(() => {});
    },
  };
}
