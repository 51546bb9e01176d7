/**
 * Child process of the `payments` scenario: the real app (buildApp + buildServices, real x-api-key auth, validation,
 * pricing, HD address derivation, the payment insert). The bare baselines run in another process
 * (payments-bare.ts) on the same database, so that a CPU profile of this one (BENCH_PROFILE) shows our app alone.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { destination } from 'pino';
import { buildApp } from '../../../src/app.ts';
import { loadConfig } from '../../../src/config.ts';
import { openDatabase } from '../../../src/db/client.ts';
import { migrateDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { buildServices } from '../../../src/services.ts';
import { apiCaller, benchMerchant, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady, serveCpuUsage } from '../lib/child.ts';

export interface PaymentsReady {
  ours: { createUrl: string; checkoutUrl: string; headers: Record<string, string>; body: string };
  /** A payment for the checkout read (ours and the bare SELECT read the same row). */
  paymentId: string;
  /** The real app's pool size, which the bare baseline's pool copies. */
  poolSize: number;
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

  serveCpuUsage();
  exitWithParent([() => app.close(), () => database.close()]);

  reportReady<PaymentsReady>({
    ours: {
      createUrl: `${oursBase}/v1/payments`,
      checkoutUrl: `${oursBase}/v1/payments/checkout/${sample.payment_id}`,
      headers,
      body: paymentBody,
    },
    paymentId: sample.payment_id,
    poolSize: config.databasePoolSize,
  });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
