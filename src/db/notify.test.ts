import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/harness.ts';
import type { Database } from './client.ts';
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

  it('refuses a channel name that is not a plain identifier', async () => {
    await expect(notify(database.db, 'x; drop table payments')).rejects.toThrow(
      /Invalid notification channel/,
    );
    await expect(listen(database, 'Robert"); --', () => {})).rejects.toThrow(/Invalid notification channel/);
  });
});
