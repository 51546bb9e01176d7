import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * Starts the embedded PostgreSQL (PGlite) in `$dataDir/pg`. Kept apart from client.ts, which loads drizzle and the
 * PostgreSQL driver, so the program can start the engine first and load the rest of itself while the engine boots.
 */
export async function startEmbeddedEngine(dataDir: string): Promise<PGlite> {
  const dir = join(dataDir, 'pg');
  mkdirSync(dir, { recursive: true });
  return PGlite.create(dir);
}
