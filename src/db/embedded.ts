import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/**
 * How the program (and the tests) run the embedded engine: PGlite's own start parameters with a buffer pool of
 * 16 MB instead of its default 128 MB. PGlite sets the pool up inside its WebAssembly memory at every open, at about
 * 4 ms a megabyte here: 128 MB was some 450 ms of a one-second restart, and memory the process kept for good.
 * 16 MB holds about 2,000 pages of hot tables and indexes; other pages come through the operating system's file
 * cache, as with a PostgreSQL server run with a small shared_buffers.
 */
export const embeddedEngineOptions: PGliteOptions = {
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
};

/**
 * Starts the embedded PostgreSQL (PGlite) in `$dataDir/pg`. Kept apart from client.ts, which loads drizzle and the
 * PostgreSQL driver, so the program can start the engine first and load the rest of itself while the engine boots.
 */
export async function startEmbeddedEngine(dataDir: string): Promise<PGlite> {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  return PGlite.create(dir, embeddedEngineOptions);
}
