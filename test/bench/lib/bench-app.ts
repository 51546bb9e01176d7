import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { type Config, loadConfig } from '../../../src/config.ts';

/**
 * The configuration of a bench server: production as a merchant runs it (logging at info), rate limits off, on the
 * embedded database in `dataDir` or on a PostgreSQL URL with fresh secrets.
 */
export function benchServerConfig(
  database: { dataDir: string } | { databaseUrl: string },
  extra: Record<string, string> = {},
): Config {
  return loadConfig({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_RATE_LIMIT_PER_IP: '0',
    ...('dataDir' in database
      ? { SVC_DATA_DIR: database.dataDir }
      : {
          DATABASE_URL: database.databaseUrl,
          SVC_SIGNUP: 'open',
          SVC_DATA_DIR: tmpdir(),
          SVC_MASTER_KEY: randomBytes(32).toString('base64'),
          SVC_JWT_SECRET: randomBytes(32).toString('hex'),
          SVC_TEST_MNEMONIC: generateMnemonic(wordlist, 256),
        }),
    ...extra,
  });
}

/** Calls the API of a bench server as a client would (JSON in, JSON out); throws on any non-2xx answer. */
export function apiCaller(base: string) {
  return async (path: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
}

/** A fresh merchant with a dashboard token and a test key, made through the public API. */
export async function benchMerchant(base: string): Promise<{ token: string; testKey: string }> {
  const call = apiCaller(base);
  const signup = (await call('/v1/auth/signup', {
    body: {
      email: `bench-${randomBytes(6).toString('hex')}@example.com`,
      password: 'bench horse battery staple',
    },
  })) as { token: string };
  const pair = (await call('/v1/keypairs', { headers: { authorization: `Bearer ${signup.token}` } })) as {
    test: { full_key: string };
  };
  return { token: signup.token, testKey: pair.test.full_key };
}

/** Closes everything and exits when the parent stops this child (SIGTERM) or goes away (IPC disconnect). */
export function exitWithParent(closers: Array<() => Promise<unknown>>): void {
  const stop = async () => {
    for (const close of closers) await close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('disconnect', () => void stop());
}
