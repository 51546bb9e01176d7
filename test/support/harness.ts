import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { FastifyInstance } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import pg from 'pg';
import { inject } from 'vitest';
import type { z } from 'zod';
import { buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { type Database, fromPglite } from '../../src/db/client.ts';
import { embeddedEngineOptions } from '../../src/db/embedded.ts';
import { fromPool } from '../../src/db/server.ts';
import { type Clock, manualClock, systemClock } from '../../src/lib/clock.ts';
import { buildServices, type ServiceDeps, type Services } from '../../src/services.ts';

/**
 * What the schema-checked path (zod's parse, then JSON.stringify: every route's default) writes for a response of
 * `schema`; a route answering through its compiled serializer (src/http/serializers.ts) must write the same bytes.
 */
export function schemaChecked(schema: z.ZodType): (data: unknown) => string {
  return serializerCompiler({ schema, method: 'GET', url: '/', httpStatus: '200' });
}

/** A migrated database for one test file: a copy of the run's migrated PGlite, or the run's PostgreSQL database. */
export async function createTestDatabase(): Promise<Database> {
  if (process.env.DATABASE_URL) {
    return fromPool(new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 }));
  }
  const dump = readFileSync(inject('pgliteDump'));
  const client = await PGlite.create({
    ...embeddedEngineOptions(PGlite.defaultStartParams),
    loadDataDir: new Blob([dump]),
  });
  return fromPglite(client);
}

/** The BIP-39 test vector mnemonic: derived addresses in tests are the published ones. */
export const testMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-data-')),
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_TEST_MNEMONIC: testMnemonic,
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_RATE_LIMIT_PER_IP: '0',
    SVC_CHECKOUT_SIMULATE_RATE_LIMIT: '0',
    LOG_LEVEL: 'silent',
    // Every test merchant is an operator (their test endpoints may reach loopback receivers) unless a test says not.
    SVC_OPERATOR_EMAILS: '@example.com',
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  services: Services;
  database: Database;
  config: Config;
  clock: Clock;
  close(): Promise<void>;
}

/** The real app on a real database, driven through `app.inject`. */
export async function createTestApp(
  options: { env?: Record<string, string>; database?: Database; clock?: Clock } & Partial<
    Omit<ServiceDeps, 'config' | 'database' | 'clock'>
  > = {},
): Promise<TestApp> {
  const config = testConfig(options.env);
  const database = options.database ?? (await createTestDatabase());
  const clock = options.clock ?? systemClock;
  const { env: _env, database: _db, clock: _clock, ...overrides } = options;
  const services = buildServices({ config, database, clock, ...overrides });
  const app = await buildApp({ config, database, services });
  await app.ready();
  return {
    app,
    services,
    database,
    config,
    clock,
    close: async () => {
      await app.close();
      if (options.database === undefined) await database.close();
    },
  };
}

export { manualClock };

let counter = 0;
export function uniqueEmail(): string {
  counter += 1;
  return `merchant-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}-${counter}@example.com`;
}

export const strongPassword = 'correct horse battery staple';

export interface Merchant {
  token: string;
  merchantId: string;
  email: string;
  testKey: string;
  liveKey: string;
  keypairId: string;
}

/** Signs a merchant up and generates a keypair through the public API. */
export async function createMerchant(app: FastifyInstance, email = uniqueEmail()): Promise<Merchant> {
  const signup = await app.inject({
    method: 'POST',
    url: '/v1/auth/signup',
    payload: { email, password: strongPassword },
  });
  if (signup.statusCode !== 201) throw new Error(`signup failed: ${signup.body}`);
  const session = signup.json() as { token: string; merchant: { id: string } };
  const keypair = await app.inject({
    method: 'POST',
    url: '/v1/keypairs',
    headers: { authorization: `Bearer ${session.token}` },
  });
  if (keypair.statusCode !== 201) throw new Error(`keypair failed: ${keypair.body}`);
  const pair = keypair.json() as {
    keypair_id: string;
    test: { full_key: string };
    live: { full_key: string };
  };
  return {
    token: session.token,
    merchantId: session.merchant.id,
    email,
    testKey: pair.test.full_key,
    liveKey: pair.live.full_key,
    keypairId: pair.keypair_id,
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const apiKey = (key: string) => ({ 'x-api-key': key });
