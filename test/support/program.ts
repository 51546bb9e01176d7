import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Names the environment variable through which the test run's global setup hands the test processes a data directory
 * whose engine is initialised and migrated (global-setup.ts).
 */
export const PROGRAM_DATA_TEMPLATE = 'SVC_TESTS_PROGRAM_DATA_TEMPLATE';

/**
 * A data directory of its own for a program a test spawns (`prefix` names it). On the embedded engine it starts as a
 * copy of the run's migrated engine, as if the program had started once already, so no program pays PGlite's initdb
 * and the migrations again; the start itself (a first one, a restart) is what program.e2e and bundle.e2e test.
 */
export function programDataDir(prefix: string, options: { embedded: boolean }): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const template = process.env[PROGRAM_DATA_TEMPLATE];
  if (options.embedded && template !== undefined) cpSync(template, dir, { recursive: true });
  return dir;
}

/**
 * The real program as `npm start` runs it (bin/svc.mjs: the production bundle while it is current, else the sources
 * through tsx), spawned in its own process group, answering /readyz.
 */
export interface ServedProgram {
  process: ChildProcess;
  /** The last 16 KB of what it printed (stdout and stderr), for failure messages. */
  output(): string;
}

/**
 * Spawns `svc serve` on 127.0.0.1:`port` with a data directory of its own and fresh secrets, `env` on top, and
 * waits until /readyz answers 200 (throws with the program's output otherwise). The caller stops it by its process
 * group (`process.kill(-pid, …)`), as the live tests and the benches do.
 */
export async function startServe(options: {
  port: number;
  env: Record<string, string | undefined>;
  /** Prefix of the temporary data directory's name. */
  dataDirPrefix: string;
  readyTimeoutMs?: number;
}): Promise<ServedProgram> {
  let output = '';
  const dataDir = programDataDir(options.dataDirPrefix, {
    embedded: options.env.DATABASE_URL === undefined && options.env.SVC_DATA_DIR === undefined,
  });
  const program = spawn(process.execPath, ['bin/svc.mjs', 'serve'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: dataDir,
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
      SVC_JWT_SECRET: randomBytes(32).toString('hex'),
      ...options.env,
    },
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-16_000);
  };
  program.stdout?.on('data', keep);
  program.stderr?.on('data', keep);
  const served: ServedProgram = { process: program, output: () => output };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${options.port}/readyz`)
      .then((response) => response.status === 200)
      .catch(() => false);
    if (ready) return served;
    if (Date.now() > deadline || program.exitCode !== null) {
      try {
        if (program.pid !== undefined) process.kill(-program.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      throw new Error(`the program never answered /readyz:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops a program started by startServe: SIGTERM to its process group, then SIGKILL after `graceMs`. */
export async function stopProgram(program: ChildProcess | undefined, graceMs = 500): Promise<void> {
  const pid = program?.pid;
  if (pid === undefined) return;
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, graceMs));
  signal('SIGKILL');
}

/**
 * A JSON call to the program's /v1 API with an API key: the parsed answer, or an error naming the call, its status and
 * body. `base` is read at each call (the tests learn it in their beforeAll).
 */
export function keyedApi(
  base: () => string,
): <T>(method: string, path: string, key: string, body?: unknown) => Promise<T> {
  return async <T>(method: string, path: string, key: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base()}/v1${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
}

/** A child process whose output is kept as it comes. */
export interface CollectingChild {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once it exited: its code and everything it printed. */
  done(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Spawns `command` with pipes and collects what it prints (for commands of the program run to their end). */
export function spawnCollecting(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): CollectingChild {
  const child = spawn(command, args, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    done: async () => ({ code: await exited, stdout, stderr }),
  };
}

/** A merchant signed up through a running program's API, with a keypair. */
export async function signUpMerchant(
  base: string,
  prefix = 'merchant',
): Promise<{ token: string; merchantId: string; testKey: string }> {
  const signup = await fetch(`${base}/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `${prefix}-${randomBytes(6).toString('hex')}@example.com`,
      password: 'correct horse battery staple',
    }),
  });
  if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${await signup.text()}`);
  const session = (await signup.json()) as { token: string; merchant: { id: string } };
  const keypair = await fetch(`${base}/v1/keypairs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session.token}` },
  });
  if (keypair.status !== 201) throw new Error(`keypair: ${keypair.status} ${await keypair.text()}`);
  const pair = (await keypair.json()) as { test: { full_key: string } };
  return { token: session.token, merchantId: session.merchant.id, testKey: pair.test.full_key };
}
