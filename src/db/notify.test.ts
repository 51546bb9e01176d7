import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/harness.ts';
import { type Database, queryRows } from './client.ts';
import { listen, notify } from './notify.ts';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe(`LISTEN/NOTIFY (${process.env.DATABASE_URL === undefined ? 'PGlite' : 'PostgreSQL'})`, () => {
  it('wakes a listener when a notifying transaction commits, not before, and not after unlisten', async () => {
    let woken = 0;
    const unlisten = await listen(database, 'svc_notify_test', () => {
      woken += 1;
    });
    await settle();
    const atStart = woken; // a server connection wakes its listener once when it is (re)connected
    await database.db.transaction(async (tx) => {
      await notify(tx, 'svc_notify_test');
      await settle();
      expect(woken).toBe(atStart);
    });
    await settle();
    expect(woken).toBe(atStart + 1);

    await database.db
      .transaction(async (tx) => {
        await notify(tx, 'svc_notify_test');
        throw new Error('rolled back');
      })
      .catch(() => {});
    await notify(database.db, 'svc_notify_other');
    await settle();
    expect(woken).toBe(atStart + 1);

    await unlisten();
    await notify(database.db, 'svc_notify_test');
    await settle();
    expect(woken).toBe(atStart + 1);
  });

  it.skipIf(process.env.DATABASE_URL === undefined)(
    "a listening connection ended by the server after it was given back is the pool's, not released twice",
    async () => {
      // Before, the connection kept the listener's error handler after unlisten gave it back to the pool, and an
      // error then (the server ending it, as at shutdown) released it a second time: an uncaught exception.
      const unlisten = await listen(database, 'svc_notify_given_back', () => {});
      await settle();
      const [backend] = await queryRows<{ pid: number }>(
        database.db,
        sql`select pid from pg_stat_activity where query = 'listen svc_notify_given_back' and datname = current_database()`,
      );
      expect(backend?.pid).toBeTypeOf('number');
      await unlisten();
      // Ended from a connection other than the one given back (the pool would hand that one out first).
      const pool = database.pool;
      if (pool === undefined) throw new Error('a server database has a pool');
      const [a, b] = [await pool.connect(), await pool.connect()];
      const other = (a as unknown as { processID: number }).processID === backend?.pid ? b : a;
      (other === a ? b : a).release(); // idle in the pool again, as the given-back connection is
      await other.query('select pg_terminate_backend($1)', [backend?.pid]);
      other.release();
      await settle();
      // The pool still serves queries (it dropped the ended connection).
      expect(await queryRows<{ one: number }>(database.db, sql`select 1 as one`)).toEqual([{ one: 1 }]);
    },
  );

  it('refuses a channel name that is not a plain identifier', async () => {
    await expect(notify(database.db, 'x; drop table payments')).rejects.toThrow(
      /Invalid notification channel/,
    );
    await expect(listen(database, 'Robert"); --', () => {})).rejects.toThrow(/Invalid notification channel/);
  });
});
