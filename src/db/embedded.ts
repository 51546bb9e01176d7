import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';
import { type EngineThread, startEngineThread } from './engine-thread.ts';

/**
 * What the program (and the tests) add to PGlite's own start parameters: a buffer pool of 16 MB instead of its
 * default 128 MB. PGlite sets the pool up inside its WebAssembly memory at every open, at about
 * 4 ms a megabyte here: 128 MB was some 450 ms of a one-second restart, and memory the process kept for good.
 * 16 MB holds about 2,000 pages of hot tables and indexes; other pages come through the operating system's file
 * cache, as with a PostgreSQL server run with a small shared_buffers.
 */
export const extraStartParams: readonly string[] = ['-c', 'shared_buffers=16MB'];

/**
 * The options of a PGlite the program would run, given PGlite's own start parameters (`PGlite.defaultStartParams`:
 * this module does not load PGlite, so that the program can start its thread before anything else).
 */
export function embeddedEngineOptions(defaultStartParams: readonly string[]): PGliteOptions {
  return { startParams: [...defaultStartParams, ...extraStartParams] };
}

/**
 * Types whose values the program reads as the text PostgreSQL sends, as drizzle's columns expect: timestamp (1114),
 * timestamptz (1184), interval (1186), date (1082) and arrays of them (1115, 1185, 1187, 1182), and numeric[] (1231).
 */
export const keepAsTextTypes: readonly number[] = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182];

/**
 * Starts the embedded PostgreSQL (PGlite) in `$dataDir/pg` on its own thread (engine-thread.ts) and returns its
 * client at once: queries wait for the engine to open. Kept apart from client.ts, which loads drizzle and the
 * PostgreSQL driver, so the program can start the engine first and load the rest of itself while the engine opens.
 */
export function startEmbeddedEngine(dataDir: string): EngineThread {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  return startEngineThread({ dataDir: dir, extraStartParams, keepAsText: keepAsTextTypes });
}
