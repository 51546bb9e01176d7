import { destination } from 'pino';
import { buildApp } from '../../../src/app.ts';
import { openMigratedDatabase } from '../../../src/db/migrate.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { createLogger } from '../../../src/logger.ts';
import { buildServices } from '../../../src/services.ts';
import { apiCaller, benchMerchant, benchServerConfig, exitWithParent } from '../lib/bench-app.ts';
import { reportError, reportReady, serveCpuUsage } from '../lib/child.ts';

export interface PaymentsReady {
  ours: {
    createUrl: string;
    checkoutUrl: string;
    /** The merchant's own read of the sample payment (GET /v1/payments/{id}, with its deposits and events). */
    detailUrl: string;
    headers: Record<string, string>;
    body: string;
  };
  /** A payment for the checkout read (ours and the bare SELECT read the same row). */
  paymentId: string;
  /** The real app's pool size, which the bare baseline's pool copies. */
  poolSize: number;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL_TARGET;
  if (databaseUrl === undefined) throw new Error('BENCH_DATABASE_URL_TARGET is required');
  const config = benchServerConfig({ databaseUrl }, { DATABASE_POOL_SIZE: '20' });
  const logger = createLogger(config, destination({ dest: '/dev/null', sync: false }));
  const database = await openMigratedDatabase(config, undefined, logger);
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
      detailUrl: `${oursBase}/v1/payments/${sample.payment_id}`,
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
