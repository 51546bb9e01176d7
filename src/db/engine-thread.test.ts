import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, fromEmbedded, fromPglite, queryRows } from './client.ts';
import { startEmbeddedEngine } from './embedded.ts';
import type { EngineThread } from './engine-thread.ts';

const probe = pgTable('thread_probe', {
  id: text('id').primaryKey(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
});

const typesProbe = sql`select '2026-01-02T03:04:05Z'::timestamptz as t, '1 day'::interval as i,
  '2026-01-02'::date as d, 7::int as n, true as b, 12345678901234567890::numeric as m,
  '{"a":[1,"x"]}'::jsonb as j, '\\x00ff'::bytea as y, array[1,2]::int[] as a, null::text as z,
  array['2026-01-02T03:04:05Z'::timestamptz] as ta`;

describe.skipIf(process.env.DATABASE_URL !== undefined)('the embedded engine on its own thread', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-engine-thread-'));
  let engine: EngineThread;
  let database: Database;

  beforeAll(async () => {
    engine = startEmbeddedEngine(dataDir);
    database = fromEmbedded(engine);
    // Sent before the engine has opened: it waits for it.
    await database.db.execute(sql`create table thread_probe (id text primary key, at timestamptz not null)`);
    await engine.ready;
  }, 60_000);
  afterAll(async () => {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every type as a PGlite on this thread does, in object and array row modes', async () => {
    const local = fromPglite(await PGlite.create());
    try {
      const [threaded] = await queryRows<Record<string, unknown>>(database.db, typesProbe);
      const [here] = await queryRows<Record<string, unknown>>(local.db, typesProbe);
      expect(threaded).toEqual(here);
      expect(threaded).toMatchObject({ t: '2026-01-02 03:04:05+00', m: '12345678901234567890', n: 7 });
      expect(threaded?.j).toEqual({ a: [1, 'x'] });
      expect(threaded?.y).toEqual(new Uint8Array([0, 255]));
      const asArrays = await engine.query<unknown[]>('select 1::int as one, $1::text as two', ['2'], {
        rowMode: 'array',
      });
      expect(asArrays.rows).toEqual([[1, '2']]);
      expect(asArrays.fields.map((field) => field.name)).toEqual(['one', 'two']);
    } finally {
      await local.close();
    }
  });

  it('maps columns through drizzle and commits a transaction, with savepoints inside', async () => {
    const at = new Date('2026-05-06T07:08:09.123Z');
    await database.db.transaction(async (tx) => {
      await tx.insert(probe).values({ id: 'committed', at });
      await tx
        .transaction(async (nested) => {
          await nested.insert(probe).values({ id: 'savepoint', at });
          nested.rollback();
        })
        .catch(() => {});
    });
    expect(await database.db.select().from(probe)).toEqual([{ id: 'committed', at }]);
  });

  it('rolls a transaction back when its callback throws, and other queries wait for it to end', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await expect(
      engine.transaction(async (tx) => {
        await tx.query(`insert into thread_probe values ('rolled back', now())`);
        outside = engine.query('select count(*)::int as n from thread_probe').then((result) => {
          order.push('outside');
          return result.rows;
        });
        await new Promise((resolve) => setTimeout(resolve, 50));
        order.push('transaction');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await outside).toEqual([{ n: 1 }]);
    expect(order).toEqual(['transaction', 'outside']);
  });

  it('notes when it last answered without an error', async () => {
    const before = engine.lastAnsweredAt?.();
    expect(before).toBeTypeOf('number'); // the engine has answered the set-up's statements
    await expect(engine.query('select nonsense')).rejects.toThrow();
    expect(engine.lastAnsweredAt?.()).toBe(before);
    const asked = performance.now();
    await engine.query('select 1');
    expect(engine.lastAnsweredAt?.()).toBeGreaterThanOrEqual(asked);
  });

  it('gives PostgreSQL errors with their fields, and stays usable', async () => {
    const error = await engine.query(`insert into thread_probe values ('committed', now())`).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: '23505', constraint: 'thread_probe_pkey' });
    expect((await engine.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  });

  it('delivers notifications to LISTEN callbacks until they stop', async () => {
    const payloads: string[] = [];
    const stop = await engine.listen('thread_probe_channel', (payload) => payloads.push(payload));
    await engine.query(`select pg_notify('thread_probe_channel', 'first')`);
    await vi.waitFor(() => expect(payloads).toEqual(['first']));
    await stop();
    await engine.query(`select pg_notify('thread_probe_channel', 'second')`);
    await engine.query('select 1');
    expect(payloads).toEqual(['first']);
  });

  it('reports an engine that cannot open to whoever asks, and a closed one', async () => {
    // A data directory of a PostgreSQL version this engine does not run.
    const foreign = join(dataDir, 'foreign');
    mkdirSync(join(foreign, 'pg'), { recursive: true });
    writeFileSync(join(foreign, 'pg', 'PG_VERSION'), '9\n');
    const broken = startEmbeddedEngine(foreign);
    await expect(broken.ready).rejects.toThrow();
    await expect(broken.query('select 1')).rejects.toThrow();
    expect(broken.lastAnsweredAt?.()).toBeUndefined();
    await broken.close();

    const other = startEmbeddedEngine(join(dataDir, 'other'));
    await other.ready;
    await other.query('select 1');
    await other.close();
    await expect(other.query('select 1')).rejects.toThrow('closed');
    expect(other.lastAnsweredAt?.()).toBeUndefined();
  }, 60_000);
});
