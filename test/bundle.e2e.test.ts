/**
 * The production bundle `npm start` runs (bin/bundle.mjs, bin/svc.mjs): it is used only while every file it was built
 * from is unchanged, and the bundled program starts, migrates and serves like the sources do (files found beside
 * modules, PostgreSQL driver, API reference assets). On PGlite always; on PostgreSQL too when DATABASE_URL is set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from './support/net.ts';
import { spawnCollecting } from './support/program.ts';
import { createIsolatedDatabase } from './support/webhooks.ts';

interface BundleModule {
  root: string;
  buildBundle(dir?: string): Promise<{ dir: string; inputs: number }>;
  currentBundle(dir?: string): { entry: string | null; reason: string | null };
}

/** The BIP-39 test vector (as in support/harness.ts, which this file does not load: it runs no module in-process). */
const testMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const root = fileURLToPath(new URL('../', import.meta.url));
const bundle = (await import(join(root, 'bin', 'bundle.mjs'))) as BundleModule;
// Inside the repository: the bundle leaves packages such as PGlite to Node, which finds them from where it sits.
const scratch = join(root, 'dist', `bundle-test-${process.pid}`);
const tempDirs: string[] = [scratch];
const running = new Set<ChildProcess>();

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('which code runs', () => {
  const dir = join(scratch, 'manifest');
  const input = join(dir, 'input.ts');
  const relativeInput = input.slice(root.length);

  function writeManifest(inputs: Array<[string, number, number]>, manifestRoot = bundle.root): void {
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 1, root: manifestRoot, inputs }));
  }
  function recorded(): [string, number, number] {
    const stat = statSync(input);
    return [relativeInput, stat.size, stat.mtimeMs];
  }

  it('runs the bundle only while every input is as it was built', () => {
    mkdirSync(dir, { recursive: true });
    expect(bundle.currentBundle(dir)).toEqual({ entry: null, reason: 'no bundle built' });

    writeFileSync(input, 'export const a = 1;\n');
    writeManifest([recorded()]);
    expect(bundle.currentBundle(dir)).toEqual({
      entry: pathToFileURL(join(dir, 'main.js')).href,
      reason: null,
    });

    // An edit of the same length, then an older copy put back with its old time: neither may run stale code.
    const before = statSync(input);
    writeFileSync(input, 'export const a = 2;\n');
    utimesSync(input, before.atime, new Date(before.mtimeMs + 5000));
    expect(bundle.currentBundle(dir).reason).toBe(`${relativeInput} changed since the bundle was built`);
    utimesSync(input, before.atime, new Date(before.mtimeMs - 60_000));
    expect(bundle.currentBundle(dir).entry).toBeNull();

    writeManifest([recorded()]);
    expect(bundle.currentBundle(dir).entry).not.toBeNull();
    rmSync(input);
    expect(bundle.currentBundle(dir).reason).toBe(`${relativeInput} is gone since the bundle was built`);

    writeManifest([], '/elsewhere');
    expect(bundle.currentBundle(dir).entry).toBeNull();
  });
});

describe('the bundled program', () => {
  const dir = join(scratch, 'server');

  async function serve(
    env: Record<string, string>,
    command: string[] = [join(dir, 'main.js'), 'serve'],
    cwd = root,
  ): Promise<{ base: string; output(): string; stop(): Promise<void> }> {
    const port = await freePort();
    const clean: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (!/^(DATABASE_|SVC_|PORT$|HOST$|LOG_LEVEL$|NODE_OPTIONS$)/.test(name)) clean[name] = value;
    }
    const child = spawn(process.execPath, command, {
      cwd,
      env: { ...clean, ...env, PORT: String(port), HOST: '127.0.0.1' },
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
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`bundled svc exited with ${child.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`bundled svc not ready in 30 s:\n${output}`);
      const status = await fetch(`${base}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return {
      base,
      output: () => output,
      async stop() {
        child.kill('SIGTERM');
        await exited;
        running.delete(child);
      },
    };
  }

  /** Starts a receiver, lets `register` point an endpoint at it, and gives the first request it gets. */
  async function receiveOne(
    register: (url: string) => Promise<string>,
  ): Promise<{ secret: string; body: Buffer; headers: IncomingHttpHeaders }> {
    let arrived: (request: { body: Buffer; headers: IncomingHttpHeaders }) => void = () => {};
    const first = new Promise<{ body: Buffer; headers: IncomingHttpHeaders }>((resolve) => {
      arrived = resolve;
    });
    const receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.end('ok');
        arrived({ body: Buffer.concat(chunks), headers: request.headers });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      const secret = await register(`http://127.0.0.1:${port}/hooks`);
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('no webhook arrived within 20 s')), 20_000),
      );
      return { secret, ...(await Promise.race([first, timeout])) };
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  }

  async function checkServes(base: string): Promise<void> {
    const docs = await fetch(`${base}/docs/static/index.html`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
    const spec = (await fetch(`${base}/v1/openapi.json`).then((response) => response.json())) as {
      openapi: string;
    };
    expect(spec.openapi).toBe('3.1.0');
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `b${randomBytes(4).toString('hex')}@example.com`,
        password: 'correct horse 9',
      }),
    });
    expect(signup.status).toBe(201);
  }

  it('builds, names its inputs and is current', async () => {
    const { inputs } = await bundle.buildBundle(dir);
    expect(inputs).toBeGreaterThan(100);
    expect(bundle.currentBundle(dir).entry).toBe(pathToFileURL(join(dir, 'main.js')).href);
    // Our files one by one; dependencies by package (its package.json) and npm's record of the install.
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      inputs: Array<[string, number, number]>;
    };
    const paths = manifest.inputs.map(([path]) => path);
    expect(paths).toContain('src/main.ts');
    expect(paths).toContain('node_modules/fastify/package.json');
    expect(paths).toContain('node_modules/.package-lock.json');
    expect(
      paths.filter((path) => path.startsWith('node_modules/') && !path.endsWith('/package.json')),
    ).toEqual(['node_modules/.package-lock.json']);
    // A reinstalled package (its package.json other than recorded) makes the bundle stale.
    const original = readFileSync(join(dir, 'manifest.json'), 'utf8');
    const reinstalled = manifest.inputs.map(([path, size, mtimeMs]): [string, number, number] =>
      path === 'node_modules/fastify/package.json' ? [path, size, mtimeMs - 1000] : [path, size, mtimeMs],
    );
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, inputs: reinstalled }));
    expect(bundle.currentBundle(dir).reason).toBe(
      'node_modules/fastify/package.json changed since the bundle was built',
    );
    writeFileSync(join(dir, 'manifest.json'), original);
    expect(bundle.currentBundle(dir).entry).not.toBeNull();
  }, 120_000);

  it('starts on the embedded default: migrated, secrets generated, API and its reference served', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
    tempDirs.push(dataDir);
    const server = await serve({ SVC_DATA_DIR: dataDir });
    try {
      await checkServes(server.base);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('runs alone, without src/ or tsx: the derivation thread and the files beside modules come from the bundle', async () => {
    // An install of the program without its sources: bin/, the bundle, package.json and the packages less tsx.
    const installed = mkdtempSync(join(tmpdir(), 'svc-installed-'));
    tempDirs.push(installed);
    cpSync(join(root, 'bin'), join(installed, 'bin'), { recursive: true });
    cpSync(dir, join(installed, 'dist', 'server'), { recursive: true });
    cpSync(join(root, 'package.json'), join(installed, 'package.json'));
    mkdirSync(join(installed, 'node_modules'));
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name === 'tsx' || name === '.bin') continue;
      symlinkSync(join(root, 'node_modules', name), join(installed, 'node_modules', name));
    }
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bundle-'));
    tempDirs.push(dataDir);
    // An operator of the instance, whose test endpoints may be on loopback like the receiver below.
    const operatorEmail = `c${randomBytes(4).toString('hex')}@example.com`;
    const server = await serve(
      { SVC_DATA_DIR: dataDir, LOG_LEVEL: 'info', SVC_OPERATOR_EMAILS: operatorEmail },
      [join(installed, 'bin', 'svc.mjs'), 'serve'],
      installed,
    );
    try {
      await checkServes(server.base);
      const signup = await fetch(`${server.base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: operatorEmail,
          password: 'correct horse 9',
        }),
      });
      const { token } = (await signup.json()) as { token: string };
      const keypair = await fetch(`${server.base}/v1/keypairs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      const { test } = (await keypair.json()) as { test: { full_key: string } };
      // The thread starts once the program is ready; a payment after it is derived there.
      for (
        let waited = 0;
        !server.output().includes('derivation thread ready') && waited < 10_000;
        waited += 50
      ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const payment = await fetch(`${server.base}/v1/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': test.full_key },
        body: JSON.stringify({ amount: '5', currency: 'USD', chain: 'bitcoin' }),
      });
      expect(payment.status).toBe(201);
      const created = (await payment.json()) as { payment_id: string; address: string };
      expect(created.address).toMatch(/^tb1q/);
      // The hosted checkout, whose scripts and styles were read from the bundle's copy of its assets.
      const page = await fetch(`${server.base}/pay/${created.payment_id}`);
      expect(page.status).toBe(200);
      const script = /src="(\/pay\/assets\/[^"]+)"/.exec(await page.text())?.[1];
      expect(script).toBeDefined();
      expect((await fetch(`${server.base}${script}`)).status).toBe(200);
      // A signed webhook, sent through the packages the bundle loads at their first use (undici).
      const received = await receiveOne(async (receiverUrl) => {
        const endpoint = await fetch(`${server.base}/v1/webhooks`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': test.full_key },
          body: JSON.stringify({ url: receiverUrl }),
        });
        const created = await endpoint.text();
        expect(endpoint.status, created).toBe(201);
        const { id, signing_secret } = JSON.parse(created) as { id: string; signing_secret: string };
        const sent = await fetch(`${server.base}/v1/webhooks/${id}/test`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': test.full_key },
          body: '{}',
        });
        expect(sent.status, await sent.text()).toBe(201);
        return signing_secret;
      });
      const expected = createHmac('sha256', received.secret).update(received.body).digest('hex');
      expect(received.headers['x-service-signature']).toBe(`sha256=${expected}`);
      expect(server.output()).toContain('derivation thread ready');
      expect(server.output()).not.toMatch(/through tsx|derivation thread unusable/);
      // The developer commands come from the bundle too (with the SDK they use), against the bundled server.
      const cli = spawnCollecting(
        process.execPath,
        [
          join(installed, 'bin', 'svc.mjs'),
          'payments',
          'list',
          '--json',
          '--url',
          server.base,
          '--api-key',
          test.full_key,
        ],
        { cwd: installed, env: { PATH: process.env.PATH, HOME: installed } },
      );
      running.add(cli.child);
      cli.child.stdin?.end();
      const listed = await cli.done();
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as Array<{ payment_id: string }>).map((p) => p.payment_id)).toEqual([
        created.payment_id,
      ]);
      expect(listed.stderr).not.toMatch(/through tsx/);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it.skipIf(process.env.DATABASE_URL === undefined)(
    'starts on PostgreSQL',
    async () => {
      // A database of its own: its delivery worker would otherwise claim other files' deliveries.
      const isolated = await createIsolatedDatabase();
      onTestFinished(() => isolated.drop());
      const server = await serve({
        DATABASE_URL: isolated.url ?? '',
        SVC_SIGNUP: 'open',
        SVC_MASTER_KEY: randomBytes(32).toString('base64'),
        SVC_JWT_SECRET: randomBytes(32).toString('base64'),
        SVC_TEST_MNEMONIC: testMnemonic,
      });
      try {
        await checkServes(server.base);
      } finally {
        await server.stop();
      }
    },
    60_000,
  );
});
