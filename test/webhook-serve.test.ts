import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './support/net.ts';
import { type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

/** The real program: `svc serve` on its embedded database runs the delivery worker beside the API. */

let child: ChildProcess | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await receiver?.close();
});

// It always runs on the embedded database, so the PostgreSQL run of the suite need not repeat it.
describe.skipIf(Boolean(process.env.DATABASE_URL))('svc serve (embedded database; once per suite)', () => {
  it('delivers a signed test event through the worker it runs', { timeout: 90_000 }, async () => {
    receiver = await startReceiver();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const { DATABASE_URL: _ignored, ...env } = process.env;
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      env: {
        ...env,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-serve-')),
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    await waitFor(
      'the service to be ready',
      async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200,
      60_000,
    );
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as unknown };
    };
    const signup = await post('/v1/auth/signup', {
      email: `serve-${Date.now()}@example.com`,
      password: 'correct horse battery staple',
    });
    expect(signup.status).toBe(201);
    const token = (signup.json as { token: string }).token;
    const created = await post(
      '/v1/webhooks',
      { url: receiver.url.replace('127.0.0.1', 'localhost'), is_test: true },
      { authorization: `Bearer ${token}` },
    );
    expect(created.status).toBe(201);
    const { id, signing_secret: secret } = created.json as { id: string; signing_secret: string };
    const sent = await post(`/v1/webhooks/${id}/test`, {}, { authorization: `Bearer ${token}` });
    expect(sent.status).toBe(201);
    await waitFor('the test delivery', () => receiver!.requests.length === 1, 20_000);
    const request = receiver.requests[0]!;
    expect(request.headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`,
    );
    expect(JSON.parse(request.body.toString())).toMatchObject({
      event: 'payment.confirmed',
      payment_id: '00000000-0000-0000-0000-000000000000',
      is_test: true,
    });

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
