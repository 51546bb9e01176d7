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
    // Everything the migrator or the up-to-date check sends, by whichever door.
    const query = client.query.bind(client);
    client.query = ((text: string, ...rest: unknown[]) => {
      statements.push(text);
      return (query as (...args: unknown[]) => unknown)(text, ...rest);
    }) as PGlite['query'];
    const exec = client.exec.bind(client);
    client.exec = ((text: string, ...rest: unknown[]) => {
      statements.push(text);
      return (exec as (...args: unknown[]) => unknown)(text, ...rest);
    }) as PGlite['exec'];
    const transaction = client.transaction.bind(client);
    client.transaction = ((callback) =>
      transaction((tx) => {
        const txQuery = tx.query.bind(tx);
        tx.query = ((text: string, ...rest: unknown[]) => {
          statements.push(text);
          return (txQuery as (...args: unknown[]) => unknown)(text, ...rest);
        }) as typeof tx.query;
        const txExec = tx.exec.bind(tx);
        tx.exec = ((text: string, ...rest: unknown[]) => {
          statements.push(text);
          return (txExec as (...args: unknown[]) => unknown)(text, ...rest);
        }) as typeof tx.exec;
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
