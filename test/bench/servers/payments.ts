/**
 * Child process of the `payments` scenario: the real app (buildApp + buildServices, real x-api-key auth, validation,
 * pricing, HD address derivation, the payment transaction) beside a bare Fastify app with two routes on the same
 * database handle: one INSERT (the baseline of POST /v1/payments) and one primary-key SELECT of a payment (the
 * baseline of the public checkout read). Each app has its own port; the parent loads them one after the other.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import Fastify from 'fastify';
import { destination } from 'pino';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { migrateDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { uuidv7 } from '../../../src/lib/ids.ts';
import { createLogger } from '../../../src/logger.ts';
import { buildServices } from '../../../src/services.ts';
import { apiCaller, benchMerchant, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady } from '../lib/child.ts';

export interface PaymentsReady {
  ours: { createUrl: string; checkoutUrl: string; headers: Record<string, string>; body: string };
  bare: { insertUrl: string; selectUrl: string; body: string };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL_TARGET;
  if (databaseUrl === undefined) throw new Error('BENCH_DATABASE_URL_TARGET is required');
  const config = loadConfig({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_RATE_LIMIT_PER_IP: '0',
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '20',
    SVC_DATA_DIR: tmpdir(),
    SVC_MASTER_KEY: randomBytes(32).toString('base64'),
    SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    SVC_TEST_MNEMONIC: generateMnemonic(wordlist, 256),
  });
  const logger = createLogger(config, destination({ dest: '/dev/null', sync: false }));
  const database = await openDatabase({
    databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
  });
  await migrateDatabase(database);
  const services = buildServices({ config, database, clock: systemClock });
  const app = await buildApp({ config, database, services, logger });
  const oursBase = await app.listen({ host: '127.0.0.1', port: 0 });

  const call = apiCaller(oursBase);
  const merchant = await benchMerchant(oursBase);
  const headers = { 'x-api-key': merchant.testKey, 'content-type': 'application/json' };
  const paymentBody = JSON.stringify({
    amount: '49.99',
    currency: 'USD',
    chain: 'ethereum',
    order_id: 'bench',
  });
  const sample = (await call('/v1/payments', { headers, body: JSON.parse(paymentBody) })) as {
    payment_id: string;
  };

  // The baselines: no auth, no validation, no logging; the driver's own query, one statement each.
  const pool = database.pool!;
  await pool.query(
    'create table if not exists bench_bare_inserts (id uuid primary key, amount text not null, currency text not null, chain text not null, created_at timestamptz not null)',
  );
  const bare = Fastify({ logger: false });
  bare.post<{ Body: { amount: string; currency: string; chain: string } }>(
    '/bare/insert',
    async (request, reply) => {
      const { rows } = await pool.query(
        'insert into bench_bare_inserts (id, amount, currency, chain, created_at) values ($1, $2, $3, $4, now()) returning *',
        [uuidv7(), request.body.amount, request.body.currency, request.body.chain],
      );
      return reply.status(201).send(rows[0]);
    },
  );
  bare.get<{ Params: { id: string } }>('/bare/payments/:id', async (request, reply) => {
    const { rows } = await pool.query('select * from payments where id = $1', [request.params.id]);
    if (rows.length === 0) return reply.status(404).send({ error: 'not found' });
    return rows[0];
  });
  const bareBase = await bare.listen({ host: '127.0.0.1', port: 0 });

  exitWithParent([() => bare.close(), () => app.close(), () => database.close()]);

  reportReady<PaymentsReady>({
    ours: {
      createUrl: `${oursBase}/v1/payments`,
      checkoutUrl: `${oursBase}/v1/payments/checkout/${sample.payment_id}`,
      headers,
      body: paymentBody,
    },
    bare: {
      insertUrl: `${bareBase}/bare/insert`,
      selectUrl: `${bareBase}/bare/payments/${sample.payment_id}`,
      body: paymentBody,
    },
  });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
