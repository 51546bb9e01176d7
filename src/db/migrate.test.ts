import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, fromPglite, queryRows } from './client.ts';
import { migrateDatabase } from './migrate.ts';

describe('migrateDatabase', () => {
  let client: PGlite;
  let database: Database;
  const statements: string[] = [];

  beforeAll(async () => {
    client = await PGlite.create();
    // Everything the migrator or the up-to-date check sends, by whichever door (query or exec, in a transaction or not).
    const recorded = <F>(send: F): F =>
      ((text: string, ...rest: unknown[]) => {
        statements.push(text);
        return (send as (...args: unknown[]) => unknown)(text, ...rest);
      }) as F;
    client.query = recorded(client.query.bind(client));
    client.exec = recorded(client.exec.bind(client));
    const transaction = client.transaction.bind(client);
    client.transaction = ((callback) =>
      transaction((tx) => {
        tx.query = recorded(tx.query.bind(tx));
        tx.exec = recorded(tx.exec.bind(tx));
        return callback(tx);
      })) as PGlite['transaction'];
    database = fromPglite(client);
  }, 60_000);
  afterAll(() => database.close());

  it('migrates a new database, then finds it up to date in one query and changes nothing', async () => {
    await migrateDatabase(database);
    expect(statements.some((text) => /create table/i.test(text))).toBe(true);
    const [applied] = await queryRows<{ count: number }>(
      database.db,
      sql`select count(*)::int as count from drizzle.__drizzle_migrations`,
    );
    expect(applied?.count).toBeGreaterThan(10);

    statements.length = 0;
    await migrateDatabase(database);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select max\(created_at\)/);
  }, 60_000);
});
