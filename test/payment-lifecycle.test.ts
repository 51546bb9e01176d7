import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.ts';
import {
  createIsolatedDatabase,
  type Receiver,
  seedPayloadFields,
  startReceiver,
  waitFor,
} from './support/webhooks.ts';

/**
 * The payment lifecycle through the running program: `node --import tsx src/main.ts serve` as a child process with
 * fast simulated blocks, a real HTTP receiver on 127.0.0.1, a test key that creates payments and simulates each
 * outcome. The receiver must get payment.confirmed (status completed), payment.underpaid, payment.overpaid,
 * payment.expired and payment.completed, each signed with the endpoint's secret and with exactly the seed's fields.
 */

const repoRoot = fileURLToPath(new URL('../', import.meta.url));

let child: ChildProcess | undefined;
let output = '';
let base = '';
let receiver: Receiver;
let dataDir = '';
let dropDatabase: (() => Promise<void>) | undefined;

async function api(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
  at: string = base,
): Promise<{ status: number; json: Record<string, unknown> & { [key: string]: unknown } }> {
  const response = await request(`${at}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
}

interface Program {
  process: ChildProcess;
  base: string;
  output(): string;
  /** SIGKILL: a crash, nothing flushed or closed. */
  kill(): Promise<void>;
}

/** Starts `svc serve` on a free port with `env`, and waits until it answers. */
async function startProgram(
  env: Record<string, string>,
  role: 'serve' | 'api' | 'worker' = 'serve',
): Promise<Program> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', role], {
    cwd: repoRoot,
    // A worker has no HTTP port: it is ready when its log says the settlement jobs started.
    env: { ...env, PORT: String(port), ...(role === 'worker' ? { LOG_LEVEL: 'info' } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  proc.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  await waitFor(
    'the program to answer /healthz',
    async () => {
      if (proc.exitCode !== null) throw new Error(`svc exited early:\n${log}`);
      if (role === 'worker') return log.includes('settlement started');
      try {
        const response = await request(`${url}/healthz`);
        await response.body.text();
        return response.statusCode === 200;
      } catch {
        return false;
      }
    },
    60_000,
  );
  return {
    process: proc,
    base: url,
    output: () => log,
    kill: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

let baseEnv: Record<string, string> = {};

beforeAll(async () => {
  receiver = await startReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
    SVC_SIM_BLOCK_MS: '100',
    SVC_SIM_CONFIRMATIONS: '3',
    SVC_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms,100ms',
    SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    // Accounts on a shared database: each test's is an operator, so its loopback receiver is allowed.
    SVC_OPERATOR_EMAILS: '@example.com',
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_RATE_LIMIT_PER_IP: '0',
    LOG_LEVEL: 'warn',
  };
  if (process.env.DATABASE_URL) {
    // The program's workers act on every row of their database: give it one of its own.
    const isolated = await createIsolatedDatabase();
    dropDatabase = isolated.drop;
    env.DATABASE_URL = isolated.url ?? '';
    env.SVC_SIGNUP = 'open';
    env.SVC_MASTER_KEY = randomBytes(32).toString('base64');
    env.SVC_JWT_SECRET = randomBytes(32).toString('hex');
    env.SVC_TEST_MNEMONIC =
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  }
  baseEnv = { ...env };
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitFor(
    'the program to answer /healthz',
    async () => {
      if (child?.exitCode !== null) throw new Error(`svc exited early:\n${output}`);
      try {
        const response = await request(`${base}/healthz`);
        await response.body.text();
        return response.statusCode === 200;
      } catch {
        return false;
      }
    },
    60_000,
  );
}, 90_000);

afterAll(async () => {
  if (child !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child?.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await receiver?.close();
  await dropDatabase?.();
  if (dataDir !== '') rmSync(dataDir, { recursive: true, force: true });
});

function signatureValid(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const given = Buffer.from(header.slice('sha256='.length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('payment lifecycle through the running program', () => {
  it('delivers confirmed, underpaid, overpaid, expired and completed, signed and in the seed shape', async () => {
    const email = `e2e-${randomBytes(6).toString('hex')}@example.com`;
    const signup = await api(
      'POST',
      '/v1/auth/signup',
      {},
      { email, password: 'correct horse battery staple' },
    );
    expect(signup.status, JSON.stringify(signup.json)).toBe(201);
    const token = signup.json.token as string;
    const keypair = await api('POST', '/v1/keypairs', { authorization: `Bearer ${token}` });
    expect(keypair.status).toBe(201);
    const testKey = (keypair.json.test as { full_key: string }).full_key;
    const key = { 'x-api-key': testKey };

    const endpoint = await api('POST', '/v1/webhooks', key, { url: receiver.url, is_test: true });
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    const secret = endpoint.json.signing_secret as string;

    const wallets = await api(
      'PUT',
      '/v1/settings/payout-wallets?is_test=true',
      { authorization: `Bearer ${token}` },
      {
        ethereum: '0x52908400098527886E0F7030069857D2E4169EE7',
      },
    );
    expect(wallets.status, JSON.stringify(wallets.json)).toBe(200);

    const create = async () => {
      const created = await api('POST', '/v1/payments', key, {
        amount: '0.05',
        currency: 'ETH',
        chain: 'ethereum',
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      return created.json.payment_id as string;
    };
    const outcomes = ['paid', 'underpaid', 'overpaid', 'expired'] as const;
    const ids: Record<(typeof outcomes)[number], string> = {
      paid: await create(),
      underpaid: await create(),
      overpaid: await create(),
      expired: await create(),
    };
    for (const outcome of outcomes) {
      const simulated = await api('POST', `/v1/payments/${ids[outcome]}/simulate`, key, { outcome });
      expect(simulated.status, JSON.stringify(simulated.json)).toBe(202);
    }

    const wanted = [
      ['payment.confirmed', ids.paid, 'completed'],
      ['payment.completed', ids.paid, 'completed'],
      ['payment.underpaid', ids.underpaid, 'underpaid'],
      ['payment.overpaid', ids.overpaid, 'overpaid'],
      ['payment.completed', ids.overpaid, 'overpaid'],
      ['payment.expired', ids.expired, 'expired'],
    ] as const;
    const received = () =>
      receiver.requests.map((req) => ({
        req,
        body: JSON.parse(req.body.toString('utf8')) as Record<string, unknown>,
      }));
    await waitFor(
      'every lifecycle webhook',
      () =>
        wanted.every(([type, id]) =>
          received().some(({ body }) => body.event === type && body.payment_id === id),
        ),
      60_000,
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}; got ${JSON.stringify(received().map(({ body }) => [body.event, body.payment_id]))}\n${output}`,
      );
    });

    for (const [type, id, status] of wanted) {
      const matches = received().filter(({ body }) => body.event === type && body.payment_id === id);
      expect(matches, `${type} for ${id}`).toHaveLength(1);
      const [{ req, body }] = matches as [(typeof matches)[number]];
      expect(signatureValid(secret, req.body, req.headers['x-service-signature']), type).toBe(true);
      expect(req.headers['x-service-timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(req.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(body)).toEqual(seedPayloadFields);
      expect(body).toMatchObject({
        event: type,
        payment_id: id,
        status,
        currency: 'ETH',
        chain: 'ethereum',
        is_test: true,
      });
      expect(body.amount).toBe(0.05);
      expect(typeof body.received_amount_native).toBe('string');
      expect(body.expected_amount_native).toBe('0.05');
      expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(body.amount_decimal).toBe('0.05');
      if (type === 'payment.expired') expect(body.tx_hash).toBe('');
      else expect(body.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    }

    const paid = await api('GET', `/v1/payments/${ids.paid}`, key);
    expect(paid.json).toMatchObject({
      status: 'completed',
      received_amount_native: '0.05',
      confirmations: { seen: 3, required: 3 },
      forward_tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      forwarded_at: expect.any(String),
    });
    expect((paid.json.deposits as unknown[]).length).toBe(1);
    expect((paid.json.events as Array<{ type: string }>).map((event) => event.type)).toEqual([
      'payment.confirmed',
      'payment.completed',
    ]);
    const checkout = await api('GET', `/v1/payments/checkout/${ids.paid}`, {});
    expect(checkout.json.confirmations).toEqual({ seen: 3, required: 3 });
  }, 120_000);

  it('a crash mid-confirmation loses nothing and counts nothing twice after the restart', async () => {
    // A program of its own: slower, deeper confirmations so that it can be killed while the payment is confirming.
    const env: Record<string, string> = {
      ...baseEnv,
      SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-e2e-crash-')),
      SVC_SIM_BLOCK_MS: '200',
      SVC_SIM_CONFIRMATIONS: '8',
    };
    let dropOwn: (() => Promise<void>) | undefined;
    if (process.env.DATABASE_URL) {
      const own = await createIsolatedDatabase();
      dropOwn = own.drop;
      env.DATABASE_URL = own.url ?? '';
      env.SVC_SIGNUP = 'open';
    }
    const hooks = await startReceiver();
    let program = await startProgram(env);
    try {
      const signup = await api(
        'POST',
        '/v1/auth/signup',
        {},
        {
          email: `crash-${randomBytes(6).toString('hex')}@example.com`,
          password: 'correct horse battery staple',
        },
        program.base,
      );
      const token = signup.json.token as string;
      const keypair = await api(
        'POST',
        '/v1/keypairs',
        { authorization: `Bearer ${token}` },
        undefined,
        program.base,
      );
      const key = { 'x-api-key': (keypair.json.test as { full_key: string }).full_key };
      const endpoint = await api(
        'POST',
        '/v1/webhooks',
        key,
        { url: hooks.url, is_test: true },
        program.base,
      );
      const secret = endpoint.json.signing_secret as string;
      const created = await api(
        'POST',
        '/v1/payments',
        key,
        { amount: '0.02', currency: 'ETH', chain: 'base' },
        program.base,
      );
      const id = created.json.payment_id as string;
      expect(
        (await api('POST', `/v1/payments/${id}/simulate`, key, { outcome: 'paid' }, program.base)).status,
      ).toBe(202);
      const confirming = await waitFor(
        'the payment to be confirming',
        async () => {
          const view = await api('GET', `/v1/payments/${id}`, key, undefined, program.base);
          const seen = (view.json.confirmations as { seen: number }).seen;
          return view.json.status === 'confirming' && seen >= 2 && seen < 8 ? seen : undefined;
        },
        30_000,
      );
      expect(confirming).toBeLessThan(8);
      await program.kill();

      program = await startProgram(env);
      await waitFor(
        'payment.confirmed after the restart',
        () => hooks.requests.some((req) => req.body.toString().includes('"payment.confirmed"')),
        60_000,
      );
      const view = await api('GET', `/v1/payments/${id}`, key, undefined, program.base);
      expect(view.json).toMatchObject({ status: 'completed', received_amount_native: '0.02' });
      expect(view.json.deposits as unknown[]).toHaveLength(1);
      const confirmed = hooks.requests.filter((req) => req.body.toString().includes('"payment.confirmed"'));
      expect(confirmed).toHaveLength(1);
      const [delivery] = confirmed as [(typeof confirmed)[number]];
      expect(signatureValid(secret, delivery.body, delivery.headers['x-service-signature'])).toBe(true);
      expect(JSON.parse(delivery.body.toString())).toMatchObject({ payment_id: id, status: 'completed' });
    } finally {
      await program.kill();
      await hooks.close();
      await dropOwn?.();
      rmSync(env.SVC_DATA_DIR ?? '', { recursive: true, force: true });
    }
  }, 180_000);

  it.runIf(process.env.DATABASE_URL)(
    'api and two workers on PostgreSQL: one watcher per chain, each event once, a worker killed is replaced',
    async () => {
      const own = await createIsolatedDatabase();
      const env = {
        ...baseEnv,
        DATABASE_URL: own.url ?? '',
        SVC_SIGNUP: 'open',
        SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-e2e-multi-')),
      };
      const hooks = await startReceiver();
      const programs: Program[] = [];
      try {
        const apiProgram = await startProgram(env, 'api');
        programs.push(apiProgram);
        const workers = [await startProgram(env, 'worker'), await startProgram(env, 'worker')];
        programs.push(...workers);
        const call = (
          method: 'GET' | 'POST',
          path: string,
          headers: Record<string, string>,
          body?: unknown,
        ) => api(method, path, headers, body, apiProgram.base);
        const signup = await call(
          'POST',
          '/v1/auth/signup',
          {},
          {
            email: `multi-${randomBytes(6).toString('hex')}@example.com`,
            password: 'correct horse battery staple',
          },
        );
        const keypair = await call('POST', '/v1/keypairs', {
          authorization: `Bearer ${signup.json.token as string}`,
        });
        const key = { 'x-api-key': (keypair.json.test as { full_key: string }).full_key };
        await call('POST', '/v1/webhooks', key, { url: hooks.url, is_test: true });

        const payAndWait = async () => {
          const created = await call('POST', '/v1/payments', key, {
            amount: '0.03',
            currency: 'ETH',
            chain: 'ethereum',
          });
          const id = created.json.payment_id as string;
          expect((await call('POST', `/v1/payments/${id}/simulate`, key, { outcome: 'paid' })).status).toBe(
            202,
          );
          await waitFor(
            `payment.confirmed for ${id}`,
            () =>
              hooks.requests.some((req) =>
                req.body.toString().includes(`"payment.confirmed","payment_id":"${id}"`),
              ),
            60_000,
          );
          return id;
        };
        const first = await payAndWait();
        await workers[0]?.kill(); // leader or not: the other worker carries on (taking over the leadership if needed)
        const second = await payAndWait();

        for (const id of [first, second]) {
          const view = await call('GET', `/v1/payments/${id}`, key);
          expect(view.json).toMatchObject({ status: 'completed', received_amount_native: '0.03' });
          expect(view.json.deposits as unknown[]).toHaveLength(1);
          expect(
            hooks.requests.filter((req) =>
              req.body.toString().includes(`"payment.confirmed","payment_id":"${id}"`),
            ),
          ).toHaveLength(1);
        }
      } finally {
        for (const program of programs) await program.kill();
        await hooks.close();
        await own.drop();
        rmSync(env.SVC_DATA_DIR, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
