/**
 * The real program, as a newcomer runs it: `node --import tsx src/main.ts <role>` in a child process, on a temporary
 * data directory and a free port, driven over real HTTP. On PGlite always; on PostgreSQL too when DATABASE_URL is
 * set for the test run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { PRIVATE_MARK } from '../src/db/data-dir.ts';
import { testMnemonic } from './support/harness.ts';
import { freePort } from './support/net.ts';
import { createIsolatedDatabase } from './support/webhooks.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const tempDirs: string[] = [];
const running = new Set<ChildProcess>();

afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  tempDirs.push(dir);
  return dir;
}

/** The child's environment: this machine's, without anything of ours (so the embedded default applies), plus env. */
function programEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(DATABASE_|SVC_|PORT$|HOST$|LOG_LEVEL$)/.test(name)) continue;
    clean[name] = value;
  }
  return { ...clean, ...env };
}

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the program to its end (for roles that exit, and for start-up failures). */
function runToExit(args: string[], env: Record<string, string>, timeoutMs = 30_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      cwd: root,
      env: programEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`svc ${args.join(' ')} still running after ${timeoutMs} ms:\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Server {
  base: string;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  pid: number;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash: no shutdown runs. */
  kill(): Promise<void>;
}

/** Starts `svc serve` and waits for GET /readyz to answer 200. */
async function serve(env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    env: programEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  // A first start initialises PostgreSQL's data directory: seconds on an idle machine, much longer on a busy one.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc serve exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`svc serve not ready in 90 s:\n${output}`);
    }
    const status = await fetch(`${base}/readyz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    base,
    pid: child.pid ?? 0,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

async function call(
  base: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface Account {
  email: string;
  password: string;
  token: string;
  testKey: string;
  liveKey: string;
  endpointId: string;
  signingSecret: string;
}

/** Signs up, makes a keypair and registers a test-mode webhook endpoint, all over HTTP. */
async function onboard(base: string): Promise<Account> {
  const email = `e2e-${randomBytes(5).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const signup = await call(base, 'POST', '/v1/auth/signup', { body: { email, password } });
  expect(signup.status).toBe(201);
  const token = signup.body.token as string;
  const keypair = await call(base, 'POST', '/v1/keypairs', { headers: { authorization: `Bearer ${token}` } });
  expect(keypair.status).toBe(201);
  const testKey = (keypair.body.test as { full_key: string }).full_key;
  const liveKey = (keypair.body.live as { full_key: string }).full_key;
  expect(testKey).toMatch(/^svc_test_/);
  const endpoint = await call(base, 'POST', '/v1/webhooks', {
    headers: { 'x-api-key': testKey },
    body: { url: 'http://127.0.0.1:9/hooks', description: 'e2e' },
  });
  expect(endpoint.status).toBe(201);
  expect(endpoint.body.is_test).toBe(true);
  return {
    email,
    password,
    token,
    testKey,
    liveKey,
    endpointId: endpoint.body.id as string,
    signingSecret: endpoint.body.signing_secret as string,
  };
}

/** After a restart: the password still logs in, the key still authenticates and still sees its endpoint. */
async function expectSurvived(base: string, account: Account): Promise<void> {
  const login = await call(base, 'POST', '/v1/auth/login', {
    body: { email: account.email, password: account.password },
  });
  expect(login.status).toBe(200);
  const list = await call(base, 'GET', '/v1/webhooks', { headers: { 'x-api-key': account.testKey } });
  expect(list.status).toBe(200);
  expect((list.body.data as Array<{ id: string }>).map((endpoint) => endpoint.id)).toContain(
    account.endpointId,
  );
  const one = await call(base, 'GET', `/v1/webhooks/${account.endpointId}`, {
    headers: { authorization: `Bearer ${login.body.token as string}` },
  });
  expect(one.status).toBe(200);
  expect(one.body).not.toHaveProperty('signing_secret');
}

function expectNoSecrets(log: string, secrets: Record<string, string>): void {
  for (const [name, value] of Object.entries(secrets)) {
    expect(value.length, name).toBeGreaterThan(8);
    expect(log.includes(value), `the log contains the ${name}`).toBe(false);
  }
}

const journal = JSON.parse(readFileSync(join(root, 'drizzle/meta/_journal.json'), 'utf8')) as {
  entries: unknown[];
};

describe('svc on the embedded default', () => {
  it('starts, serves, keeps its data and secrets over a restart, and logs no secret', async () => {
    const dataDir = tempDir();
    const first = await serve({ SVC_DATA_DIR: dataDir, SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    const account = await onboard(first.base);
    expect(await first.stop()).toBe(0);

    const secretsFile = join(dataDir, 'secrets.json');
    expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
    const secrets = JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(secrets).sort()).toEqual(['SVC_JWT_SECRET', 'SVC_MASTER_KEY', 'SVC_TEST_MNEMONIC']);
    expect(first.output()).toMatch(
      /Generated SVC_MASTER_KEY, SVC_JWT_SECRET, SVC_TEST_MNEMONIC into .*secrets\.json/,
    );

    // A restart with a bad configuration (the engine opens early on an existing database) exits 78, naming the
    // variable, and leaves the database as it was.
    const refused = await runToExit(['serve'], { SVC_DATA_DIR: dataDir, PORT: 'abc' });
    expect(refused.code, refused.stderr).toBe(78);
    expect(refused.stderr).toContain('PORT');

    const second = await serve({ SVC_DATA_DIR: dataDir, SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true' });
    await expectSurvived(second.base, account);
    // The derivation thread starts once the program is ready, without waiting for a first payment.
    await vi.waitFor(() => expect(second.output()).toContain('derivation thread ready'), { timeout: 20_000 });
    expect(await second.stop()).toBe(0);
    expect(second.output()).not.toMatch(/Generated/);
    // One access-log line per request, when it completes, with what an operator looks for.
    const accessLines = second
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"request completed"'));
    expect(accessLines.length).toBeGreaterThan(0);
    expect(JSON.parse(accessLines[0] ?? '{}')).toMatchObject({
      reqId: expect.stringMatching(/^req_/),
      method: expect.any(String),
      url: expect.any(String),
      statusCode: expect.any(Number),
      responseTime: expect.any(Number),
    });
    expect(second.output()).not.toContain('"msg":"incoming request"');
    // The same secrets, not new ones: a new master key could not open the stored signing secrets.
    expect(JSON.parse(readFileSync(secretsFile, 'utf8'))).toEqual(secrets);

    expectNoSecrets(first.output() + second.output(), {
      'master key': secrets.SVC_MASTER_KEY!,
      'JWT secret': secrets.SVC_JWT_SECRET!,
      mnemonic: secrets.SVC_TEST_MNEMONIC!,
      'test API key': account.testKey,
      'live API key': account.liveKey,
      'signing secret': account.signingSecret,
      password: account.password,
      'dashboard token': account.token,
    });
  }, 240_000);

  it('`migrate` applies the migrations to a fresh data directory and exits 0', async () => {
    const dataDir = tempDir();
    // A fresh directory is initdb plus every migration through tsx: on a loaded 2-CPU machine that took over 30 s.
    const result = await runToExit(['migrate'], { SVC_DATA_DIR: dataDir }, 180_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/migrations applied/);
    const db = await PGlite.create(join(dataDir, 'pg'));
    try {
      const applied = await db.query<{ count: number }>(
        'select count(*)::int as count from drizzle.__drizzle_migrations',
      );
      expect(applied.rows[0]?.count).toBe(journal.entries.length);
    } finally {
      await db.close();
    }
  }, 240_000);
});

describe('the embedded data directory belongs to one process and its user', () => {
  it('a second process on it exits at once naming the directory and the holder; a crashed holder is replaced', async () => {
    const dataDir = tempDir();
    const first = await serve({ SVC_DATA_DIR: dataDir });
    const held = JSON.parse(readFileSync(join(dataDir, 'svc.lock'), 'utf8')) as { pid: number };
    expect(held.pid).toBe(first.pid);
    // Every role that opens the directory is refused, not only serve, and at once (before the engine opens).
    const started = Date.now();
    const refusals = await Promise.all(
      ['serve', 'migrate', 'worker', 'api'].map((role) => runToExit([role], { SVC_DATA_DIR: dataDir })),
    );
    for (const second of refusals) {
      expect(second.code, second.stderr).toBe(75);
      expect(second.stderr).toContain(
        `the data directory ${dataDir} is in use by another svc process (pid ${first.pid})`,
      );
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect((await fetch(`${first.base}/readyz`)).status).toBe(200);

    // Killed: its lock stays behind, and the next start takes it over.
    await first.kill();
    expect(existsSync(join(dataDir, 'svc.lock'))).toBe(true);
    const next = await serve({ SVC_DATA_DIR: dataDir });
    expect(JSON.parse(readFileSync(join(dataDir, 'svc.lock'), 'utf8')).pid).toBe(next.pid);
    expect(await next.stop()).toBe(0);
    // A clean shutdown releases it.
    expect(existsSync(join(dataDir, 'svc.lock'))).toBe(false);
  }, 240_000);

  it('its directories are 0700 and its files 0600, also when it existed open to everyone (and the log says so)', async () => {
    const dataDir = join(tempDir(), 'data');
    mkdirSync(join(dataDir, 'old'), { recursive: true });
    chmodSync(dataDir, 0o777);
    chmodSync(join(dataDir, 'old'), 0o777);
    writeFileSync(join(dataDir, 'old', 'notes.txt'), 'x');
    chmodSync(join(dataDir, 'old', 'notes.txt'), 0o666);
    const server = await serve({ SVC_DATA_DIR: dataDir });
    expect(await server.stop()).toBe(0);
    expect(server.output()).toMatch(/"tightened":3.*the data directory was open to other users/);
    const loose: string[] = [];
    const visit = (path: string) => {
      const stat = statSync(path);
      const mode = stat.mode & 0o777;
      if (mode !== (stat.isDirectory() ? 0o700 : 0o600)) loose.push(`${path} ${mode.toString(8)}`);
      if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    };
    visit(dataDir);
    // PGlite's own files included, written by its thread after the start.
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(loose).toEqual([]);

    // A database an older version left open (the engine starts early on a restart, the tightening meanwhile). Such a
    // version left no mark of a walk: with one, and the directory itself 0700, nobody else could reach inside anyway.
    expect(existsSync(join(dataDir, PRIVATE_MARK))).toBe(true);
    rmSync(join(dataDir, PRIVATE_MARK));
    chmodSync(join(dataDir, 'pg'), 0o777);
    chmodSync(join(dataDir, 'pg', 'PG_VERSION'), 0o666);
    const again = await serve({ SVC_DATA_DIR: dataDir });
    expect(await again.stop()).toBe(0);
    expect(again.output()).toMatch(/"tightened":2.*the data directory was open to other users/);
    visit(dataDir);
    expect(loose).toEqual([]);
  }, 240_000);
});

describe('deposit indices after a crash', () => {
  it('a SIGKILLed process leaves at most 19 indices unused, and a payment after the gap is watched', async () => {
    const dataDir = tempDir();
    const env = { SVC_DATA_DIR: dataDir, SVC_SIM_BLOCK_MS: '100', SVC_SIM_CONFIRMATIONS: '1' };
    const create = async (base: string, key: string) => {
      const created = await call(base, 'POST', '/v1/payments', {
        headers: { 'x-api-key': key },
        body: { amount: '0.01', currency: 'ETH', chain: 'ethereum' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body.payment_id as string;
    };
    const first = await serve(env);
    const account = await onboard(first.base);
    for (let n = 0; n < 3; n++) await create(first.base, account.testKey);
    // As a crash: the engine in this process gets no chance to write anything more.
    await first.kill();

    const second = await serve(env);
    const after = await create(second.base, account.testKey);
    const simulated = await call(second.base, 'POST', `/v1/payments/${after}/simulate`, {
      headers: { 'x-api-key': account.testKey },
      body: { outcome: 'paid' },
    });
    expect(simulated.status).toBe(202);
    // Watched: the deposit to the address after the gap is seen and the payment completes.
    await vi.waitFor(
      async () => {
        const view = await call(second.base, 'GET', `/v1/payments/${after}`, {
          headers: { 'x-api-key': account.testKey },
        });
        expect(view.body.status).toBe('completed');
      },
      { timeout: 20_000, interval: 200 },
    );
    expect(await second.stop()).toBe(0);

    const db = await PGlite.create(join(dataDir, 'pg'));
    try {
      const { rows } = await db.query<{ derivation_index: number }>(
        'select derivation_index from payments where is_test order by created_at',
      );
      const indices = rows.map((row) => row.derivation_index);
      expect(indices.slice(0, 3)).toEqual([0, 1, 2]);
      // Unused between the last payment before the crash and the first after it: at most 19 (the gap limit is 20).
      const unused = (indices[3] ?? 0) - 2 - 1;
      expect(unused).toBeLessThanOrEqual(19);
    } finally {
      await db.close();
    }
  }, 240_000);
});

describe('svc refuses to start on a bad configuration, naming the variable', () => {
  it.each([
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['SVC_MASTER_KEY too short', { SVC_MASTER_KEY: 'short' }, 'SVC_MASTER_KEY'],
    [
      'DATABASE_URL without SVC_MASTER_KEY',
      { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      'SVC_MASTER_KEY',
    ],
  ])('%s', async (_name, env, variable) => {
    const dataDir = join(tempDir(), 'data');
    const result = await runToExit(['serve'], { SVC_DATA_DIR: dataDir, ...env });
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(result.stderr).toContain(variable);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(existsSync(dataDir)).toBe(false); // nothing was created before the configuration was checked
  });

  it('an unknown role exits 2 with the usage', async () => {
    const result = await runToExit(['frobnicate'], { SVC_DATA_DIR: join(tempDir(), 'data') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown role "frobnicate"');
    expect(result.stderr).toMatch(/Usage: svc <role>[\s\S]*serve[\s\S]*migrate/);
  });
});

describe.runIf(process.env.DATABASE_URL)('svc on PostgreSQL (DATABASE_URL)', () => {
  it('migrates, serves, and keeps its data over a restart with the secrets given', async () => {
    // A database of its own: its delivery worker would otherwise claim other files' deliveries.
    const isolated = await createIsolatedDatabase();
    onTestFinished(() => isolated.drop());
    const env = {
      DATABASE_URL: isolated.url!,
      SVC_SIGNUP: 'open',
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
      SVC_JWT_SECRET: randomBytes(32).toString('hex'),
      SVC_TEST_MNEMONIC: testMnemonic,
      SVC_DATA_DIR: join(tempDir(), 'data'),
      SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
      // Accounts on a shared database: each test's is an operator, so its loopback receiver is allowed.
      SVC_OPERATOR_EMAILS: '@example.com',
    };
    const migrate = await runToExit(['migrate'], env);
    expect(migrate.code, migrate.stderr).toBe(0);

    const first = await serve(env);
    const account = await onboard(first.base);
    expect(await first.stop()).toBe(0);
    const second = await serve(env);
    await expectSurvived(second.base, account);
    expect(await second.stop()).toBe(0);

    const log = migrate.stdout + migrate.stderr + first.output() + second.output();
    expect(log).not.toMatch(/Generated/);
    expect(existsSync(env.SVC_DATA_DIR)).toBe(false); // with a server, nothing is written locally
    expectNoSecrets(log, {
      'master key': env.SVC_MASTER_KEY,
      'JWT secret': env.SVC_JWT_SECRET,
      'test API key': account.testKey,
      'live API key': account.liveKey,
      'signing secret': account.signingSecret,
      password: account.password,
      'dashboard token': account.token,
    });
  }, 240_000);
});
