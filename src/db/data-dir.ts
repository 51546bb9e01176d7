import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { access, chmod, lstat, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The embedded data directory is one process's and its user's alone. Two processes on one PGlite directory each run
 * their own PostgreSQL over the same files: both hand out the same deposit indices and overwrite each other's pages,
 * and acknowledged payments are lost. And the directory holds the secrets and every merchant's data, so no other user
 * of the machine may read or change it.
 */

export const LOCK_FILE = 'svc.lock';

/**
 * Left by a walk that found or made everything under the directory private. From then on every file there is made
 * private as it is created (umask 077; engine-worker.mjs for the engine's own modes), and while the directory itself
 * is 0700 nobody else can reach what is inside it anyway: so while both hold, a restart skips the walk (over a
 * thousand entries of the engine's, 80 ms of this thread's time and the thread pool's, taken from the start-up).
 */
export const PRIVATE_MARK = 'svc.private';

/** Who holds a lock: the pid, and when that process started (so a reused pid is not mistaken for the holder). */
interface Holder {
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/<pid>/stat field 22); null where /proc is absent. */
  start: string | null;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `the data directory ${dir} is in use by another svc process (pid ${pid}); stop that process first, or give ` +
        'this one another SVC_DATA_DIR',
    );
    this.name = 'DataDirLockedError';
  }
}

function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count the fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists, it is another user's.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.start === null) return true;
  const start = processStart(holder.pid);
  // Where /proc says nothing of it, the pid alone decides; a different start time is a reused pid.
  return start === null || start === holder.start;
}

function readHolder(path: string): { holder: Holder; text: string } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { pid?: unknown; start?: unknown };
    if (typeof parsed.pid === 'number' && Number.isInteger(parsed.pid) && parsed.pid > 0) {
      return {
        holder: { pid: parsed.pid, start: typeof parsed.start === 'string' ? parsed.start : null },
        text,
      };
    }
  } catch {
    // Not a lock this program wrote (locks are complete from their first moment): it holds nothing.
  }
  return { holder: { pid: 0, start: null }, text };
}

/**
 * Creates `path` holding `text` only if it does not exist; true when this call created it. The text is written to a
 * file of this process first and linked into place, so no one ever reads a lock that is there but still empty.
 */
function createExclusive(path: string, text: string): boolean {
  const own = `${path}.${process.pid}.tmp`;
  const fd = openSync(own, 'w', 0o600);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(own, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(own);
  }
}

/**
 * Takes `path` as an exclusive lock holding `text`, or throws DataDirLockedError naming its living holder.
 *
 * A lock left by a dead process is taken over; the takeover itself is guarded by a claim file named after that dead
 * holder (`<path>.takeover-<pid>-<start>`), created exclusively, so of several processes that find the same stale lock
 * exactly one removes it: the others find the claim held, or, once it is released, a lock that is no longer the stale
 * one. A claim left by a process killed during its takeover is itself a stale lock, taken over the same way.
 */
function acquire(dir: string, path: string, text: string): void {
  for (let attempt = 0; attempt < 10; attempt++) {
    if (createExclusive(path, text)) return;
    const found = readHolder(path);
    if (found === undefined) continue;
    if (found.holder.pid !== 0 && isAlive(found.holder)) throw new DataDirLockedError(dir, found.holder.pid);
    const claim = `${path}.takeover-${found.holder.pid}-${found.holder.start ?? 'x'}`;
    acquire(dir, claim, text);
    try {
      // Still the stale lock we saw? Another process may have taken it over and released its claim meanwhile.
      if (readHolder(path)?.text === found.text) unlinkSync(path);
    } finally {
      unlinkSync(claim);
    }
  }
  throw new Error(`could not take the lock ${path}: it keeps changing`);
}

/**
 * Tightens group and other bits off everything under `dir` (symlinks are left alone); how many it changed. Through
 * libuv's thread pool, a directory's entries at once: a thousand lstat calls on this thread took 15-30 ms of every
 * start, during which the program could have been loading.
 */
async function tightenModes(dir: string): Promise<number> {
  const marked = await access(join(dir, PRIVATE_MARK)).then(
    () => true,
    () => false,
  );
  if (marked && ((await lstat(dir)).mode & 0o777) === 0o700) return 0;
  let fixed = 0;
  const visit = async (path: string, isDir: boolean): Promise<void> => {
    // The engine may be opening meanwhile (a restart starts it first) and removes files of its own as it goes
    // (global/pg_internal.init, temporary files): one gone before it is reached needs no tightening.
    const stat = await lstat(path).catch(unlessGone);
    if (stat === undefined) return;
    const mode = stat.mode & 0o777;
    const wanted = isDir ? 0o700 : 0o600;
    if ((mode & 0o077) !== 0 || (mode & wanted) !== wanted) {
      const changed = await chmod(path, wanted).then(() => true, unlessGone);
      if (!changed) return;
      fixed++;
    }
    if (!isDir) return;
    const entries = await readdir(path, { withFileTypes: true }).catch(unlessGone);
    if (entries === undefined) return;
    await Promise.all(
      entries
        .filter((entry) => entry.isDirectory() || entry.isFile())
        .map((entry) => visit(join(path, entry.name), entry.isDirectory())),
    );
  };
  await visit(dir, true);
  await writeFile(join(dir, PRIVATE_MARK), 'everything here was private when this was written\n', {
    mode: 0o600,
  });
  return fixed;
}

/** For a file-system call on an entry that may vanish: undefined if it has, the error rethrown otherwise. */
function unlessGone(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw error;
}

export interface DataDirLock {
  dir: string;
  /**
   * Tightens whatever an older version or a copy left looser than 0700/0600; how many entries it changed. Apart from
   * taking the lock since it reads every entry, off this thread, so that the engine opens and the program loads
   * meanwhile.
   */
  tighten(): Promise<number>;
  /** Removes the lock (and the directory, if this start made it and nothing else was written there). */
  release(): void;
}

/**
 * Opens the embedded data directory for this process: every file it and the engine thread create from now on is
 * private to the user (umask 077: it is process-wide, and no other file the program writes is meant for others), the
 * directory exists with mode 0700, and this process holds its lock. Throws DataDirLockedError while another living
 * process holds it.
 */
export function lockDataDir(dir: string): DataDirLock {
  process.umask(0o077);
  let created: string | undefined;
  try {
    created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const path = join(dir, LOCK_FILE);
  const text = `${JSON.stringify({ pid: process.pid, start: processStart(process.pid) })}\n`;
  acquire(dir, path, text);
  let released = false;
  return {
    dir,
    tighten: () => tightenModes(dir),
    release() {
      if (released) return;
      released = true;
      try {
        if (readFileSync(path, 'utf8') === text) unlinkSync(path);
        // A first start that stopped before writing anything (a bad configuration) leaves no directory behind.
        if (created !== undefined && readdirSync(dir).every((name) => name === PRIVATE_MARK)) {
          rmSync(join(dir, PRIVATE_MARK), { force: true });
          rmdirSync(dir);
        }
      } catch {
        // Already gone, or not ours: nothing to release.
      }
    },
  };
}
