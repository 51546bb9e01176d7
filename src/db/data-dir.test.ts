import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE, lockDataDir, PRIVATE_MARK } from './data-dir.ts';

const moduleUrl = new URL('./data-dir.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-datadir-'));
  dirs.push(dir);
  return dir;
}

/** A process of its own that tries to lock `dir`, holds a lock it got for `holdMs`, and says which it was. */
function contender(dir: string, holdMs: number): Promise<string> {
  const script = `
    const { lockDataDir } = await import(${JSON.stringify(moduleUrl)});
    try { const lock = lockDataDir(${JSON.stringify(dir)}); console.log('won'); setTimeout(() => lock.release(), ${holdMs}); }
    catch (error) { console.log(error.name === 'DataDirLockedError' ? 'locked ' + error.pid : 'error ' + error.message); }`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('exit', () => resolve(out.trim()));
  });
}

/** A pid no process has now: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

describe('lockDataDir', () => {
  it('creates the directory 0700 with its lock naming this process, refuses a second holder, releases', async () => {
    const dir = join(tempDir(), 'data');
    const lock = lockDataDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const held = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number };
    expect(held.pid).toBe(process.pid);
    expect(statSync(join(dir, LOCK_FILE)).mode & 0o777).toBe(0o600);
    // This very process holds it: a second lock is refused like any other living holder's.
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(dir)).toThrow(`${dir} is in use by another svc process (pid ${process.pid})`);
    expect(await lock.tighten()).toBe(0);
    lock.release();
    // Made by this lock and empty again: gone, as a bad first start leaves nothing behind.
    expect(existsSync(dir)).toBe(false);
  });

  it('takes over a lock whose process is gone, and one whose pid now belongs to another process', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), start: '1' }));
    const lock = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    lock.release();

    // A living pid with another start time: the holder died and its pid was reused.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, start: '1' }));
    const again = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    again.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('of processes starting together on a stale lock, exactly one wins', async () => {
    for (let round = 0; round < 2; round++) {
      const dir = tempDir();
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), start: '1' }));
      const outcomes = await Promise.all([1, 2, 3, 4].map(() => contender(dir, 1500)));
      expect(outcomes.filter((outcome) => outcome === 'won')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.startsWith('locked '))).toHaveLength(3);
      // No claim file is left behind.
      expect(readdirSync(dir).filter((name) => name !== LOCK_FILE)).toEqual([]);
    }
  }, 60_000);

  it('tightens an existing directory left open to everyone, and says how much it changed', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    mkdirSync(join(dir, 'pg', 'base'), { recursive: true, mode: 0o777 });
    chmodSync(join(dir, 'pg'), 0o777);
    chmodSync(join(dir, 'pg', 'base'), 0o777);
    for (const file of ['secrets.json', 'pg/PG_VERSION', 'pg/base/1']) {
      writeFileSync(join(dir, file), 'x');
      chmodSync(join(dir, file), 0o666);
    }
    const lock = lockDataDir(dir);
    expect(await lock.tighten()).toBe(6);
    for (const path of [dir, join(dir, 'pg'), join(dir, 'pg', 'base')])
      expect(statSync(path).mode & 0o777).toBe(0o700);
    for (const file of ['secrets.json', 'pg/PG_VERSION', 'pg/base/1'])
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
    expect(await lock.tighten()).toBe(0);
    // Walked once: while the directory stays 0700 nobody else reaches inside, and the walk is not repeated.
    expect(existsSync(join(dir, PRIVATE_MARK))).toBe(true);
    chmodSync(join(dir, 'pg', 'base', '1'), 0o644);
    expect(await lock.tighten()).toBe(0);
    // Opened again: walked again, inside too.
    chmodSync(dir, 0o755);
    expect(await lock.tighten()).toBe(2);
    expect(statSync(join(dir, 'pg', 'base', '1')).mode & 0o777).toBe(0o600);
    lock.release();
  });

  it('tightens while the engine removes files of its own: an entry gone before it is reached is passed over', async () => {
    const dir = tempDir();
    const pg = join(dir, 'pg');
    mkdirSync(pg);
    const names = Array.from({ length: 3000 }, (_, n) => join(pg, `temp-${n}`));
    for (const name of names) writeFileSync(name, 'x');
    for (const path of [dir, pg, ...names]) chmodSync(path, statSync(path).isDirectory() ? 0o777 : 0o666);
    const lock = lockDataDir(dir);
    const walking = lock.tighten();
    // As PostgreSQL drops its temporary files while the walk is under way: once the walk has listed them, the last
    // ones go (this thread deletes while the thread pool works through the walk's lstat calls).
    while ((statSync(pg).mode & 0o777) !== 0o700) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    for (const name of names.slice(1000).reverse()) unlinkSync(name);
    expect(await walking).toBeGreaterThanOrEqual(1002);
    expect(statSync(names[0] as string).mode & 0o777).toBe(0o600);
    lock.release();
  });
});
