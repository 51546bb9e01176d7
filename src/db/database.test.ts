import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/harness.ts';
import { type Database, queryRows } from './client.ts';
import { readSnapshot } from './database.ts';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table snapshot_probe (n int not null)`);
});
afterAll(async () => {
  await database?.db.execute(sql`drop table if exists snapshot_probe`);
  await database?.close();
});

const count = async (db: Database['db']) =>
  Number((await queryRows<{ n: string | number }>(db, sql`select count(*) as n from snapshot_probe`))[0]?.n);

it('reads one snapshot: a commit landing between two of its statements is seen by neither, and by what follows', async () => {
  let write: Promise<unknown> | undefined;
  const [before, after] = await readSnapshot(database.db, async (tx) => {
    const first = await count(tx);
    // On a server the insert commits on another connection meanwhile; on the embedded engine it waits its turn.
    write = database.db.execute(sql`insert into snapshot_probe (n) values (1)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return [first, await count(tx)];
  });
  await write;
  expect(after).toBe(before);
  expect(await count(database.db)).toBe(before + 1);
  await expect(
    readSnapshot(database.db, (tx) => tx.execute(sql`insert into snapshot_probe (n) values (2)`)),
  ).rejects.toMatchObject({ cause: { code: '25006' } }); // read_only_sql_transaction
});
