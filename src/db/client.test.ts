import { PGlite, type QueryOptions } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, fromPglite, queryRows } from './client.ts';

const probe = pgTable('client_probe', {
  id: text('id').primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
});

describe('PGlite through drizzle', () => {
  let client: PGlite;
  let database: Database;
  const optionsSeen: Array<QueryOptions | undefined> = [];

  beforeAll(async () => {
    client = await PGlite.create();
    const spy = (query: PGlite['query']) =>
      ((text: string, params?: unknown[], options?: QueryOptions) => {
        optionsSeen.push(options);
        return query(text, params, options);
      }) as PGlite['query'];
    client.query = spy(client.query.bind(client));
    const transaction = client.transaction.bind(client);
    client.transaction = ((callback) =>
      transaction((tx) => {
        tx.query = spy(tx.query.bind(tx));
        return callback(tx);
      })) as PGlite['transaction'];
    database = fromPglite(client);
    await database.db.execute(sql`create table client_probe (id text primary key, at timestamptz not null)`);
  });
  afterAll(() => database.close());

  const rawProbe = sql`select '2026-01-02T03:04:05Z'::timestamptz as t, '1 day'::interval as i,
    '2026-01-02'::date as d, 7::int as n, true as b, 12345678901234567890::numeric as m`;

  it('answers raw SQL as drizzle always did: date and time types as strings, others parsed', async () => {
    const [row] = await queryRows<Record<string, unknown>>(database.db, rawProbe);
    expect(row).toEqual({
      t: '2026-01-02 03:04:05+00',
      i: '1 day',
      d: '2026-01-02',
      n: 7,
      b: true,
      m: '12345678901234567890',
    });
  });

  it('maps timestamp columns to Dates, in and out of transactions', async () => {
    const at = new Date('2026-05-06T07:08:09.123Z');
    await database.db.transaction(async (tx) => {
      await tx.insert(probe).values({ id: 'a', at });
      const [inside] = await tx.select().from(probe);
      expect(inside?.at).toEqual(at);
      const [raw] = await queryRows<Record<string, unknown>>(tx, rawProbe);
      expect(raw?.t).toBe('2026-01-02 03:04:05+00');
    });
    const prepared = database.db
      .select()
      .from(probe)
      .where(sql`${probe.id} = ${sql.placeholder('id')}`)
      .prepare('client_probe_find');
    expect(await prepared.execute({ id: 'a' })).toEqual([{ id: 'a', at }]);
  });

  it('never hands PGlite per-query parsers (merging them costs ~100 µs a query)', () => {
    expect(optionsSeen.length).toBeGreaterThanOrEqual(6);
    expect(optionsSeen.filter((options) => options?.parsers !== undefined)).toEqual([]);
  });
});
