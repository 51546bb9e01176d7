import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { fromPglite } from '../../src/db/client.ts';
import { embeddedEngineOptions } from '../../src/db/embedded.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { fromPool } from '../../src/db/server.ts';
import { PROGRAM_DATA_TEMPLATE } from './program.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteDump: string;
  }
}

/**
 * Migrates one database for the whole run. On PGlite (the default) it migrates one instance and dumps its data
 * directory; each test file starts from that dump instead of migrating again. With DATABASE_URL the tests share
 * that (fresh) database and keep apart by creating their own merchants.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const cleanUp = async () => rmSync(dir, { recursive: true, force: true });
  // The engine of a data directory as a program's first start leaves it, initialised and migrated: startServe copies
  // it (test/support/program.ts) rather than have each spawned program run PGlite's initdb, some 4 s of CPU each.
  // The variable reaches the test processes, which are forked after this runs.
  const template = join(dir, 'program-data');
  mkdirSync(template, { mode: 0o700 });
  const client = await PGlite.create(join(template, 'pg'), embeddedEngineOptions(PGlite.defaultStartParams));
  await migrateDatabase(fromPglite(client));
  process.env[PROGRAM_DATA_TEMPLATE] = template;
  if (process.env.DATABASE_URL) {
    await client.close();
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
    await migrateDatabase(fromPool(pool));
    await pool.end();
    project.provide('pgliteDump', '');
    return cleanUp;
  }
  const dump = await client.dumpDataDir('none');
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await client.close();
  project.provide('pgliteDump', file);
  return cleanUp;
}
