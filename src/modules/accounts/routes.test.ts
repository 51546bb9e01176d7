import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createTestApp,
  manualClock,
  strongPassword,
  type TestApp,
  uniqueEmail,
} from '../../../test/support/harness.ts';
import { queryRows } from '../../db/client.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const signup = (payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/v1/auth/signup', payload: payload as object });
const login = (payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/v1/auth/login', payload: payload as object });

describe('accounts', () => {
  it('signs up, logs in and reads /me with the token', async () => {
    const email = uniqueEmail();
    const created = await signup({ email: email.toUpperCase(), password: strongPassword });
    expect(created.statusCode).toBe(201);
    const session = created.json();
    expect(session.merchant).toMatchObject({ email, id: expect.stringMatching(/^mer_/) });
    expect(session.token.split('.')).toHaveLength(3);

    const loggedIn = await login({ email, password: strongPassword });
    expect(loggedIn.statusCode).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(loggedIn.json().token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toEqual(session.merchant);
  });

  it('stores an argon2id hash, never the password', async () => {
    const email = uniqueEmail();
    await signup({ email, password: strongPassword });
    const rows = await queryRows<{ password_hash: string }>(
      t.database.db,
      sql`select password_hash from merchants where email = ${email}`,
    );
    const hash = rows[0]!.password_hash;
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(hash).not.toContain(strongPassword);
  });

  it('refuses weak, missing and common passwords with weak_password or a missing-parameter error', async () => {
    const short = await signup({ email: uniqueEmail(), password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toMatchObject({ code: 'weak_password', param: 'password' });
    const common = await signup({ email: uniqueEmail(), password: 'password123' });
    expect(common.json().error.code).toBe('weak_password');
    const repeated = await signup({ email: uniqueEmail(), password: 'aaaaaaaaaaaa' });
    expect(repeated.json().error.code).toBe('weak_password');
    const missing = await signup({ email: uniqueEmail() });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'parameter_missing', param: 'password' });
  });

  it('never tells whether an email has an account: its password logs in, any other answers as a failed login', async () => {
    const email = uniqueEmail();
    const created = await signup({ email, password: strongPassword });
    expect(created.statusCode).toBe(201);
    // The same email (any case) with its password: 201 and a session of that very account, like a new one.
    const again = await signup({ email: email.toUpperCase(), password: strongPassword });
    expect(again.statusCode).toBe(201);
    expect(Object.keys(again.json()).sort()).toEqual(Object.keys(created.json()).sort());
    expect(again.json().merchant.id).toBe(created.json().merchant.id);
    // Another password: exactly the answer of a failed login for any email, known or not.
    const taken = await signup({ email, password: 'another long passphrase' });
    const failedLogin = await login({ email: uniqueEmail(), password: 'another long passphrase' });
    expect(taken.statusCode).toBe(401);
    expect(failedLogin.statusCode).toBe(401);
    const { request_id: _a, ...takenError } = taken.json().error;
    const { request_id: _b, ...loginError } = failedLogin.json().error;
    expect(takenError).toEqual(loginError);
    expect(taken.body).not.toContain('exists');
  });

  it('answers a wrong password and an unknown email the same way', async () => {
    const email = uniqueEmail();
    await signup({ email, password: strongPassword });
    const wrong = await login({ email, password: 'not the right password' });
    const unknown = await login({ email: uniqueEmail(), password: 'not the right password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credentials');
    expect(unknown.json().error.message).toBe(wrong.json().error.message);
  });

  it('delays an account after 5 failed logins with 429 and a doubling Retry-After, known or unknown email', async () => {
    const clock = manualClock(new Date());
    const limited = await createTestApp({ database: t.database, clock });
    try {
      const email = uniqueEmail();
      await limited.app.inject({
        method: 'POST',
        url: '/v1/auth/signup',
        payload: { email, password: strongPassword },
      });
      for (const account of [email, uniqueEmail()]) {
        const attempt = (password: string) =>
          limited.app.inject({
            method: 'POST',
            url: '/v1/auth/login',
            payload: { email: account, password },
          });
        for (let i = 0; i < 5; i++) expect((await attempt('wrong password here')).statusCode).toBe(401);
        // Even the right password waits: nothing is checked during the delay.
        const refused = await attempt(strongPassword);
        expect(refused.statusCode, refused.body).toBe(429);
        expect(refused.json().error.code).toBe('rate_limited');
        expect(refused.headers['retry-after']).toBe('1');
        clock.advance(1000);
        expect((await attempt('wrong password here')).statusCode).toBe(401);
        expect((await attempt('wrong password here')).headers['retry-after']).toBe('2');
        clock.advance(2000);
      }
      // After the wait the right password logs in, and the success clears the account's counter.
      const ok = await limited.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email, password: strongPassword },
      });
      expect(ok.statusCode, ok.body).toBe(200);
      const again = await limited.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email, password: 'wrong password here' },
      });
      expect(again.statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });

  it('counts wrong passwords on re-authentication with the account: a stolen session cannot guess faster', async () => {
    const clock = manualClock(new Date());
    const limited = await createTestApp({ database: t.database, clock });
    try {
      const email = uniqueEmail();
      const session = (
        await limited.app.inject({
          method: 'POST',
          url: '/v1/auth/signup',
          payload: { email, password: strongPassword },
        })
      ).json();
      const reauth = (password: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/v1/auth/reauthenticate',
          headers: bearer(session.token),
          payload: { password },
        });
      for (let i = 0; i < 5; i++) expect((await reauth('wrong password here')).statusCode).toBe(401);
      const waiting = await reauth(strongPassword);
      expect(waiting.statusCode).toBe(429);
      // The login of that account waits too.
      const login = await limited.app.inject({
        method: 'POST',
        url: '/v1/auth/login',
        payload: { email, password: strongPassword },
      });
      expect(login.statusCode).toBe(429);
      clock.advance(1000);
      expect((await reauth(strongPassword)).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('refuses a bad email and unknown fields', async () => {
    const bad = await signup({ email: 'not-an-email', password: strongPassword });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    const extra = await signup({ email: uniqueEmail(), password: strongPassword, admin: true });
    expect(extra.json().error).toMatchObject({ code: 'parameter_unknown', param: 'admin' });
  });

  it('refuses a correctly signed token of a merchant that no longer exists with 401 invalid_token', async () => {
    const session = (await signup({ email: uniqueEmail(), password: strongPassword })).json();
    await t.database.db.execute(sql`delete from merchants where id = ${session.merchant.id}`);
    const me = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer(session.token) });
    expect(me.statusCode, me.body).toBe(401);
    expect(me.json().error.code).toBe('invalid_token');
    const keypairs = await t.app.inject({
      method: 'POST',
      url: '/v1/keypairs',
      headers: bearer(session.token),
    });
    expect(keypairs.statusCode, keypairs.body).toBe(401);
  });

  it('refuses /me without credentials, with a forged token and with an expired one', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/v1/me' });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('authentication_required');
    const forged = await t.app.inject({ method: 'GET', url: '/v1/me', headers: bearer('a.b.c') });
    expect(forged.json().error.code).toBe('invalid_token');

    const expiring = await createTestApp({ database: t.database, env: { SVC_JWT_TTL_SECONDS: '1' } });
    const session = (
      await expiring.app.inject({
        method: 'POST',
        url: '/v1/auth/signup',
        payload: { email: uniqueEmail(), password: strongPassword },
      })
    ).json();
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const expired = await expiring.app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: bearer(session.token),
    });
    expect(expired.statusCode).toBe(401);
    await expiring.close();
  });
});
