import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedEngine } from './embedded.ts';

describe.skipIf(process.env.DATABASE_URL !== undefined)('the embedded engine', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs with its small buffer pool and PGlite’s own start parameters, on a first start and a restart', async () => {
    for (let start = 0; start < 2; start++) {
      const engine = await startEmbeddedEngine(dataDir);
      const { rows } = await engine.query<{ shared_buffers: string; search_path: string }>(
        "select current_setting('shared_buffers') as shared_buffers, current_setting('search_path') as search_path",
      );
      expect(rows[0]).toEqual({ shared_buffers: '16MB', search_path: 'public' });
      await engine.close();
    }
  }, 60_000);
});
