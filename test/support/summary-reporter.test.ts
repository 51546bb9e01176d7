import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/** Vitest itself, on a project of three tests (one passes, one fails, one is skipped) reported by the CI reporter. */
describe('the summary reporter CI reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-reporter-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('ends with the counts and a line per failure, and writes what each failure said in full where CI asks', async () => {
    symlinkSync(join(process.cwd(), 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { include: ['*.check.mjs'], reporters: [${JSON.stringify(
        join(process.cwd(), 'test/support/summary-reporter.ts'),
      )}] } };\n`,
    );
    writeFileSync(
      join(dir, 'three.check.mjs'),
      [
        "import { it } from 'vitest';",
        "it('passes', () => {});",
        'it(\'waits in vain\', () => { throw new Error(\'Timed out waiting for x\\nlast seen: {"status":"pending"}\\nthe log\'); });',
        "it.skip('is skipped', () => {});",
      ].join('\n'),
    );
    const details = join(dir, 'failures.txt');
    const run = await promisify(execFile)(
      process.execPath,
      [join(process.cwd(), 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir],
      { cwd: dir, env: { ...process.env, CI_FAILURE_DETAILS: details, NO_COLOR: '1' } },
    ).then(
      () => {
        throw new Error('a run with a failed test exited 0');
      },
      (error: { code: number; stdout: string }) => error,
    );
    expect(run.code).toBe(1);
    const tail = run.stdout.trimEnd().split('\n').slice(-2);
    expect(tail).toEqual([
      'Failed: three.check.mjs > waits in vain: Error: Timed out waiting for x',
      'Tests: 1 passed, 1 failed, 1 skipped',
    ]);
    const written = readFileSync(details, 'utf8');
    expect(written).toContain(
      '--- three.check.mjs > waits in vain\nError: Timed out waiting for x\nlast seen: {"status":"pending"}\nthe log\n',
    );
    expect(written).toMatch(/ {4}at .*three\.check\.mjs:3:\d+/);
    expect(written).not.toMatch(/node_modules/);
  });
});
