import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, strongPassword, type TestApp, uniqueEmail } from '../../../test/support/harness.ts';
import { adminCommand } from '../../admin.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const post = (app: TestApp, url: string, payload: object) => app.app.inject({ method: 'POST', url, payload });

/** Runs `svc <command> <args>` against the app's services and returns what it printed. */
async function svc(app: TestApp, command: 'invite' | 'reset-password', ...args: string[]) {
  let out = '';
  let err = '';
  const code = await adminCommand(
    command,
    args,
    app.services.accounts,
    { write: (text) => (out += text) },
    { write: (text) => (err += text) },
  );
  return { code, out, err };
}

describe('SVC_SIGNUP', () => {
  it('is open on the embedded engine and closed with DATABASE_URL unless set', async () => {
    const { loadConfig } = await import('../../config.ts');
    expect(t.config.signup).toBe('open');
    const server = loadConfig({
      DATABASE_URL: 'postgres://u@127.0.0.1/x',
      SVC_MASTER_KEY: Buffer.alloc(32, 1).toString('base64'),
      SVC_JWT_SECRET: 'x'.repeat(32),
      SVC_TEST_MNEMONIC: t.config.testMnemonic,
    });
    expect(server.signup).toBe('closed');
  });

  it('closed: nobody signs up (403 signup_closed); accounts still log in', async () => {
    const closed = await createTestApp({ database: t.database, env: { SVC_SIGNUP: 'closed' } });
    try {
      const email = uniqueEmail();
      await post(t, '/v1/auth/signup', { email, password: strongPassword });
      const refused = await post(closed, '/v1/auth/signup', {
        email: uniqueEmail(),
        password: strongPassword,
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('signup_closed');
      expect((await post(closed, '/v1/auth/login', { email, password: strongPassword })).statusCode).toBe(
        200,
      );
    } finally {
      await closed.close();
    }
  });

  it('invite: sign-up needs an invite from `svc invite`, each works once', async () => {
    const invited = await createTestApp({ database: t.database, env: { SVC_SIGNUP: 'invite' } });
    try {
      const without = await post(invited, '/v1/auth/signup', {
        email: uniqueEmail(),
        password: strongPassword,
      });
      expect(without.statusCode).toBe(403);
      expect(without.json().error).toMatchObject({ code: 'invite_invalid', param: 'invite' });
      const made = await svc(invited, 'invite');
      expect(made.code).toBe(0);
      const code = made.out.trim().split('\n').at(-1) ?? '';
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const bad = await post(invited, '/v1/auth/signup', {
        email: uniqueEmail(),
        password: strongPassword,
        invite: `${code}x`,
      });
      expect(bad.json().error.code).toBe('invite_invalid');
      const ok = await post(invited, '/v1/auth/signup', {
        email: uniqueEmail(),
        password: strongPassword,
        invite: code,
      });
      expect(ok.statusCode, ok.body).toBe(201);
      const reused = await post(invited, '/v1/auth/signup', {
        email: uniqueEmail(),
        password: strongPassword,
        invite: code,
      });
      expect(reused.statusCode).toBe(403);
      expect(reused.json().error.code).toBe('invite_invalid');
    } finally {
      await invited.close();
    }
  });
});

describe('password reset', () => {
  it('works with the one-time link `svc reset-password EMAIL` prints', async () => {
    const email = uniqueEmail();
    const before = (await post(t, '/v1/auth/signup', { email, password: strongPassword })).json().token;
    const me = (token: string) =>
      t.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${token}` } });
    expect((await me(before)).statusCode).toBe(200);
    const unknown = await svc(t, 'reset-password', uniqueEmail());
    expect(unknown.code).toBe(1);
    const printed = await svc(t, 'reset-password', email);
    expect(printed.code).toBe(0);
    const link = /(http\S+)/.exec(printed.out)?.[1] ?? '';
    expect(link.startsWith(`${t.config.publicUrl}/dashboard/reset-password?token=`)).toBe(true);
    const token = new URL(link).searchParams.get('token') ?? '';
    const newPassword = 'a brand new passphrase';
    const weak = await post(t, '/v1/auth/password-reset', { token, password: 'short' });
    expect(weak.json().error.code).toBe('weak_password');
    const reset = await post(t, '/v1/auth/password-reset', { token, password: newPassword });
    expect(reset.statusCode, reset.body).toBe(200);
    // Sessions opened before the reset end with it (tokens carry whole seconds: wait for the next one).
    expect((await me(before)).statusCode).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await post(t, '/v1/auth/login', { email, password: newPassword });
    expect(after.statusCode).toBe(200);
    expect((await me(after.json().token)).statusCode).toBe(200);
    expect((await post(t, '/v1/auth/login', { email, password: strongPassword })).statusCode).toBe(401);
    // Single use.
    const again = await post(t, '/v1/auth/password-reset', { token, password: 'yet another passphrase' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toMatchObject({ code: 'reset_token_invalid', param: 'token' });
  });

  it('mails the link through SMTP when SVC_SMTP_URL is set, and answers the same for unknown emails', async () => {
    const mails: string[] = [];
    let delivered: () => void = () => {};
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, _session, callback) {
        let text = '';
        stream.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        stream.on('end', () => {
          mails.push(text);
          delivered();
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;
    const mailing = await createTestApp({
      database: t.database,
      env: { SVC_SMTP_URL: `smtp://127.0.0.1:${port}`, SVC_SMTP_FROM: 'svc <svc@example.com>' },
    });
    try {
      const email = uniqueEmail();
      await post(mailing, '/v1/auth/signup', { email, password: strongPassword });
      const arrived = new Promise<void>((resolve) => {
        delivered = resolve;
      });
      const known = await post(mailing, '/v1/auth/password-reset-request', { email });
      const unknown = await post(mailing, '/v1/auth/password-reset-request', { email: uniqueEmail() });
      expect(known.statusCode).toBe(202);
      expect(unknown.statusCode).toBe(202);
      expect(unknown.body).toBe(known.body);
      await arrived;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(mails).toHaveLength(1);
      expect(mails[0]).toContain(`To: ${email}`);
      // Quoted-printable may fold long lines: unfold before reading the link.
      const body = (mails[0] ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const token = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(body)?.[1] ?? '';
      expect(token).toHaveLength(43);
      const reset = await post(mailing, '/v1/auth/password-reset', {
        token,
        password: 'a mailed new passphrase',
      });
      expect(reset.statusCode, reset.body).toBe(200);
      expect(
        (await post(mailing, '/v1/auth/login', { email, password: 'a mailed new passphrase' })).statusCode,
      ).toBe(200);
    } finally {
      await mailing.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
