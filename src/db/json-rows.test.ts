import { asc, sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/harness.ts';
import { type Database, queryRows } from './client.ts';
import { jsonRowOf, jsonRowsOf, rowFromJson, rowsFromJson } from './json-rows.ts';

// Every column type the parts composed into other statements carry (deposits, events, chain cursors).
const probe = pgTable('json_rows_probe', {
  id: text('id').primaryKey(),
  groupId: uuid('group_id').notNull(),
  flag: boolean('flag').notNull(),
  position: integer('position').notNull(),
  height: bigint('height', { mode: 'number' }),
  amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
  seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  doneAt: timestamp('done_at', { withTimezone: true, mode: 'date' }),
  body: jsonb('body'),
  note: text('note'),
});

const group = '0194f0c2-7a1e-7c3b-9d2e-5f6a7b8c9d0e';
let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db.execute(sql`create table json_rows_probe (
    id text primary key, group_id uuid not null, flag boolean not null, position integer not null, height bigint,
    amount numeric(78, 0) not null, seen_at timestamptz not null, done_at timestamptz, body jsonb, note text)`);
  await database.db.insert(probe).values([
    {
      id: 'a',
      groupId: group,
      flag: true,
      position: 2,
      height: Number.MAX_SAFE_INTEGER,
      // Far past a float's 53 bits: only text keeps it whole.
      amount: (2n ** 255n + 1n).toString(),
      seenAt: new Date('2026-11-27T04:12:04.697Z'),
      doneAt: null,
      body: { nested: ['x', 1, null], amount: '0.1' },
      note: 'quotes " and \\ and ünïcode',
    },
    {
      id: 'b',
      groupId: group,
      flag: false,
      position: 1,
      height: null,
      amount: '0',
      seenAt: new Date('1999-12-31T23:59:59.999Z'),
      doneAt: new Date('2026-01-01T00:00:00.000Z'),
      body: null,
      note: null,
    },
    {
      id: 'c',
      groupId: '0194f0c2-7a1e-7c3b-9d2e-000000000000',
      flag: true,
      position: 0,
      height: 7,
      amount: '5',
      seenAt: new Date(),
      doneAt: null,
      body: [],
      note: '',
    },
  ]);
  // Microseconds, which a Date cannot hold: both reads must drop them alike.
  await database.db.execute(sql`update json_rows_probe set seen_at = seen_at + interval '123 microseconds'`);
});
afterAll(async () => {
  await database?.db.execute(sql`drop table if exists json_rows_probe`);
  await database?.close();
});

const readThroughJson = async (limit?: number) => {
  const part = jsonRowsOf(probe, {
    where: sql`${probe.groupId} = ${group}::uuid`,
    orderBy: [asc(probe.position)],
    limit,
  });
  const [row] = await queryRows<{ rows: unknown }>(database.db, sql`select ${part} as rows`);
  return rowsFromJson(probe, row?.rows);
};

it('reads rows back through JSON exactly as a plain select reads them, in order, within the limit', async () => {
  const direct = await database.db
    .select()
    .from(probe)
    .where(sql`${probe.groupId} = ${group}::uuid`)
    .orderBy(asc(probe.position));
  expect(direct.map((row) => row.id)).toEqual(['b', 'a']);
  expect(await readThroughJson()).toEqual(direct);
  expect(await readThroughJson(1)).toEqual(direct.slice(0, 1));
  expect(direct[1]?.amount).toBe((2n ** 255n + 1n).toString());
});

it('reads no rows as an empty list, and refuses what is not a list', async () => {
  const part = jsonRowsOf(probe, { where: sql`false`, orderBy: [asc(probe.id)] });
  const [row] = await queryRows<{ rows: unknown }>(database.db, sql`select ${part} as rows`);
  expect(rowsFromJson(probe, row?.rows)).toEqual([]);
  expect(() => rowsFromJson(probe, { not: 'a list' })).toThrow(/not a JSON array/);
});

it('reads one row as one JSON value exactly as a plain select reads it, nulls and wide numbers included', async () => {
  const direct = await database.db.select().from(probe).orderBy(asc(probe.id));
  const throughJson = await database.db
    .select({ row: jsonRowOf(probe) })
    .from(probe)
    .orderBy(asc(probe.id));
  expect(throughJson.map(({ row }) => rowFromJson(probe, row))).toEqual(direct);
  expect(() => rowFromJson(probe, 'null')).toThrow(/not a JSON array/);
});
