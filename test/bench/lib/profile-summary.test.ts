import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summarizeProfiles } from './profile-summary.ts';

describe('summarizeProfiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names the function a real profiled process spent its time in, first', () => {
    // A process that spends ~300 ms in one named function and little else.
    const script =
      'function burnTheCpu(){const end=Date.now()+300;let x=0;while(Date.now()<end)x+=Math.sqrt(x+1);return x}burnTheCpu()';
    execFileSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', script]);
    const summary = summarizeProfiles(dir, process.cwd());
    expect(summary).toBe(join(dir, 'summary.txt'));
    const lines = readFileSync(summary ?? '', 'utf8').split('\n');
    expect(lines[0]).toMatch(/\.cpuprofile: \d+ ms sampled$/);
    const top = lines.slice(1, 4).join('\n');
    expect(top).toMatch(/burnTheCpu/);
  });

  it('says there is nothing to summarize for a directory without profiles', () => {
    expect(summarizeProfiles(join(dir, 'missing'), process.cwd())).toBeUndefined();
  });
});
