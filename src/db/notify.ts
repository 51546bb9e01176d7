import { sql } from 'drizzle-orm';
import type { PoolClient } from 'pg';
import type { Logger } from 'pino';
import type { Database, Db } from './client.ts';

/**
 * PostgreSQL's LISTEN/NOTIFY on either engine. A NOTIFY sent inside a transaction reaches the listeners only when
 * it commits, so a listener woken by it always finds the committed rows. Listeners treat a notification as a hint to
 * look, never as the work itself: a lost connection costs latency (they poll meanwhile), not correctness.
 */

/** Channel names are SQL identifiers written into LISTEN: only these characters, never from input. */
const channelPattern = /^[a-z_][a-z0-9_]*$/;

function checked(channel: string): string {
  if (!channelPattern.test(channel)) throw new Error(`Invalid notification channel: ${channel}`);
  return channel;
}

/** Sends a notification on `channel` (inside `db`'s transaction, if it is one: delivered at commit). */
export async function notify(db: Db, channel: string): Promise<void> {
  await db.execute(sql`select pg_notify(${checked(channel)}, '')`);
}

/** The payload `onNotify` gets when notifications may have been missed (the connection was lost): look at everything. */
export const MISSED_NOTIFICATIONS = '*';

/**
 * Calls `onNotify` with the payload of every notification on `channel` until the returned function stops listening.
 * On the embedded engine, through its own listen; on a server, on a connection held for it, taken again a second
 * after it is lost (`onNotify` then runs once with MISSED_NOTIFICATIONS, so nothing sent meanwhile waits for the
 * listener's next poll).
 */
export async function listen(
  database: Database,
  channel: string,
  onNotify: (payload: string) => void,
  logger?: Logger | undefined,
): Promise<() => Promise<void>> {
  const name = checked(channel);
  if (database.embedded !== undefined) return database.embedded.listen(name, (payload) => onNotify(payload));
  const pool = database.pool;
  if (pool === undefined) return async () => {};
  let client: { connection: PoolClient; release(error?: Error): void } | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const connect = async (): Promise<void> => {
    let fresh: PoolClient | undefined;
    retry = undefined;
    try {
      fresh = await pool.connect();
      const connection = fresh;
      const onNotification = (message: { payload?: string | undefined }) => onNotify(message.payload ?? '');
      // Given back to the pool exactly once, without our listeners: a second release throws (pg-pool), and an error
      // on a connection already given back (the server ending it at shutdown) is the pool's to handle, not ours.
      let released = false;
      const held = {
        connection,
        release(error?: Error): void {
          if (released) return;
          released = true;
          connection.removeListener('notification', onNotification);
          connection.removeListener('error', onError);
          if (client === held) client = undefined;
          connection.release(error);
        },
      };
      const onError = (error: Error) => {
        logger?.warn({ err: error, channel: name }, 'LISTEN connection lost; polling until it is back');
        held.release(error);
        if (!stopped) retry = setTimeout(() => void connect(), 1000);
      };
      client = held;
      connection.on('notification', onNotification);
      connection.on('error', onError);
      await connection.query(`listen ${name}`);
      onNotify(MISSED_NOTIFICATIONS);
    } catch (error) {
      logger?.warn({ err: error, channel: name }, 'LISTEN failed; polling');
      // A connection taken but not listening (its LISTEN failed) goes back too, once (an error event may have already).
      if (fresh !== undefined && client?.connection === fresh)
        client.release(error instanceof Error ? error : undefined);
      // Unless the connection's error event already took it back and scheduled the next try.
      if (!stopped && retry === undefined) retry = setTimeout(() => void connect(), 1000);
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry !== undefined) clearTimeout(retry);
    const held = client;
    if (held === undefined) return;
    await held.connection.query(`unlisten ${name}`).catch(() => {});
    held.release();
  };
}
