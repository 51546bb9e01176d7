/**
 * Child process of the `watcher` scenario (its own process, so that its RSS is the watcher's alone): 100,000 open
 * test payments, then blocks of 1,000 deposits to 1,000 of them on the simulated chain, each scanned by the real
 * watcher (`poll`: match against the in-memory watched set, record deposits, cursor and block, mark final with one
 * confirmation required, run the state machine and write every payment.confirmed through the outbox with its delivery,
 * all in one transaction). Beside it, a bare transaction doing the same writes with no logic and no reads: four
 * statements (insert the deposits, update the payments, insert the events, insert the deliveries), each one batch
 * through unnest. Results go back to the parent as `ready`.
 */
import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../../src/config.ts';
import { pgArray } from '../../../src/db/arrays.ts';
import { openDatabase, queryRows } from '../../../src/db/client.ts';
import { migrateDatabase } from '../../../src/db/migrate.ts';
import { payments, simTransfers } from '../../../src/db/schema/index.ts';
import { systemClock } from '../../../src/lib/clock.ts';
import { newId, uuidv7 } from '../../../src/lib/ids.ts';
import { createAddressDeriver } from '../../../src/modules/chains/derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
} from '../../../src/modules/chains/derivation-check.ts';
import { createSimulatedChain } from '../../../src/modules/chains/simulated/chain.ts';
import { createWatcher } from '../../../src/modules/chains/watcher.ts';
import type { PaymentRow } from '../../../src/modules/payments/repo.ts';
import { paymentEventBody } from '../../../src/modules/webhooks/events/payload.ts';
import { buildServices } from '../../../src/services.ts';
import { reportError, reportReady } from '../lib/child.ts';
import { profileSection } from '../lib/section-profile.ts';

export interface WatcherRunReady {
  payments: number;
  block: number;
  insertSeconds: number;
  watchLoadSeconds: number;
  oursSeconds: number[];
  bareSeconds: number[];
  rssBeforeMb: number;
  rssAfterMb: number;
  watched: number;
}

const mb = (bytes: number) => bytes / (1024 * 1024);

/** A full garbage collection, so that RSS before and after shows what is retained, not what awaits collection. */
function collect(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
  gc?.();
}
const EXPECTED = 1_000_000_000_000_000n; // 0.001 ETH

async function main(): Promise<void> {
  const kind = process.env.BENCH_TARGET_KIND;
  const target = process.env.BENCH_TARGET;
  if ((kind !== 'pglite' && kind !== 'postgres') || target === undefined) {
    throw new Error('BENCH_TARGET_KIND (pglite|postgres) and BENCH_TARGET are required');
  }
  const total = Number(process.env.BENCH_PAYMENTS ?? 100_000);
  const blockSize = Number(process.env.BENCH_BLOCK ?? 1000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    SVC_DATA_DIR: kind === 'pglite' ? target : '/tmp',
    ...(kind === 'postgres'
      ? {
          DATABASE_URL: target,
          SVC_SIGNUP: 'open',
          SVC_MASTER_KEY: randomBytes(32).toString('base64'),
          SVC_JWT_SECRET: randomBytes(32).toString('hex'),
        }
      : {}),
    SVC_TEST_MNEMONIC:
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
    SVC_SIM_CONFIRMATIONS: '1',
  });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 10,
  });
  await migrateDatabase(database);
  const { db } = database;
  const services = buildServices({ config, database, clock: systemClock, checkWebhookUrl: async () => {} });
  const session = await services.accounts.signup(
    `bench-${randomBytes(6).toString('hex')}@example.com`,
    'bench horse battery staple',
  );
  const merchantId = session.merchant.id;
  // One receiving endpoint, so every event also writes its delivery (nothing sends them here).
  const endpoint = await services.webhookEndpoints.create(
    { via: 'jwt', merchantId, isTest: undefined },
    { url: 'https://example.com/hooks', is_test: true },
  );

  // 100,000 open payments (addresses made up: the watcher matches strings, derivation is not measured here), created
  // over the last hour rather than in the last few seconds, as in a steady state.
  const now = new Date(Date.now() - 3600_000);
  const rows: PaymentRow[] = [];
  for (let index = 0; index < total; index++) {
    rows.push({
      id: uuidv7(now.getTime()),
      merchantId,
      isTest: true,
      status: 'pending',
      amount: '0.001',
      currency: 'ETH',
      chain: 'ethereum',
      asset: 'ETH',
      address: `0x${(0xbe0c0000 + index).toString(16).padStart(40, '0')}`,
      derivationIndex: 1_000_000 + index,
      expectedBaseUnits: EXPECTED.toString(),
      receivedBaseUnits: '0',
      rate: '1',
      rateSource: 'identity',
      paymentOptions: null,
      selectedAt: null,
      quoteExpiresAt: null,
      locale: null,
      txHash: null,
      orderId: null,
      customerEmail: null,
      confirmedAt: null,
      confirmationRate: null,
      confirmationRateSource: null,
      metadata: {},
      redirectUrl: null,
      cancelUrl: null,
      paymentLinkId: null,
      forwardedAt: null,
      forwardTxHash: null,
      forwardFeeBaseUnits: null,
      checkoutSimulatedAt: null,
      expiresAt: new Date(now.getTime() + 7200_000),
      createdAt: now,
      updatedAt: now,
    });
  }
  const insertStarted = performance.now();
  for (let start = 0; start < rows.length; start += 1000) {
    await db.insert(payments).values(rows.slice(start, start + 1000));
  }
  const insertSeconds = (performance.now() - insertStarted) / 1000;

  // Keep only the payments the rounds pay; the rest stay open in the database and in the watched set.
  const used = rows.slice(0, rounds * 2 * blockSize);
  rows.length = 0;

  const seeds = { testMnemonic: config.testMnemonic, liveMnemonic: undefined };
  const sim = createSimulatedChain({
    db,
    clock: systemClock,
    chain: 'ethereum',
    requiredConfirmations: 1,
    signingKeys: createDepositSigningKeys(createAddressDeriver(seeds), createDerivationCheck(seeds)),
  });
  const watcher = createWatcher({
    db,
    clock: systemClock,
    adapter: sim,
    payments: services.payments,
    lateWatchDays: 7,
  });
  collect();
  const rssBefore = process.memoryUsage().rss;
  await sim.produceBlock();
  const loadStarted = performance.now();
  await watcher.poll(); // loads the watched set (100,000 addresses) and starts the cursor
  const watchLoadSeconds = (performance.now() - loadStarted) / 1000;

  let next = 0;
  const take = () => {
    const slice = used.slice(next, next + blockSize);
    next += blockSize;
    if (slice.length < blockSize) throw new Error('not enough payments for the rounds');
    return slice;
  };

  const ours = async (): Promise<number> => {
    const slice = take();
    await db.insert(simTransfers).values(
      slice.map((row) => ({
        chain: 'ethereum',
        txHash: `0x${randomBytes(32).toString('hex')}`,
        outputIndex: 0,
        kind: 'deposit',
        toAddress: row.address,
        asset: 'ETH',
        amount: EXPECTED.toString(),
        blockNumber: null,
        createdAt: new Date(),
      })),
    );
    await sim.produceBlock();
    const started = performance.now();
    const result = await watcher.poll();
    const seconds = (performance.now() - started) / 1000;
    if (result.deposits !== blockSize || result.transitions !== blockSize || result.events !== blockSize) {
      throw new Error(
        `watcher: expected ${blockSize} deposits/transitions/events, got ${JSON.stringify(result)}`,
      );
    }
    return seconds;
  };

  /** The same writes with no matching, no state machine and no outbox service: the floor of the work. */
  const bare = async (): Promise<number> => {
    const slice = take();
    const byAddress = new Map(slice.map((row) => [row.address, row]));
    const at = new Date();
    const transfers = slice.map((row) => ({
      to: row.address,
      txHash: `0x${randomBytes(32).toString('hex')}`,
    }));
    const started = performance.now();
    await db.transaction(async (tx) => {
      const matched = transfers.map((transfer) => ({
        transfer,
        payment: byAddress.get(transfer.to) as PaymentRow,
      }));
      const depositIds = matched.map(() => newId('dep'));
      await tx.execute(
        sql`insert into deposits (id, payment_id, chain, is_test, tx_hash, output_index, address, asset, amount,
                                  block_number, block_hash, block_time, state, simulated, seen_at, final_at)
            select id, payment_id, 'ethereum', true, tx_hash, 0, address, 'ETH', ${EXPECTED.toString()}::numeric,
                   0, ${`0x${'00'.repeat(32)}`}, ${at.toISOString()}::timestamptz, 'final', true,
                   ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
            from unnest(${pgArray(depositIds)}::text[], ${pgArray(matched.map(({ payment }) => payment.id))}::uuid[],
                        ${pgArray(matched.map(({ transfer }) => transfer.txHash))}::text[],
                        ${pgArray(matched.map(({ transfer }) => transfer.to))}::text[])
              as t(id, payment_id, tx_hash, address)`,
      );
      await tx.execute(
        sql`update payments set status = 'completed', received_base_units = ${EXPECTED.toString()}, updated_at = now()
            where id = any(${pgArray(matched.map(({ payment }) => payment.id))}::uuid[])`,
      );
      const eventIds = matched.map(() => newId('evt'));
      const bodies = matched.map(({ transfer, payment }) =>
        paymentEventBody(
          'payment.confirmed',
          {
            payment_id: payment.id,
            status: 'completed',
            amount: payment.amount,
            currency: payment.currency,
            chain: payment.chain,
            tx_hash: transfer.txHash,
            received_amount_native: '0.001',
            expected_amount_native: '0.001',
            is_test: true,
          },
          at,
        ),
      );
      await tx.execute(
        sql`insert into events (id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, created_at)
            select id, ${merchantId}, true, 'payment.confirmed', payment_id, body, false,
                   ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
            from unnest(${pgArray(eventIds)}::text[], ${pgArray(matched.map(({ payment }) => payment.id))}::text[],
                        ${pgArray(bodies)}::text[]) as t(id, payment_id, body)`,
      );
      await tx.execute(
        sql`insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, is_test, status, attempt_count,
                                            next_attempt_at, created_at, updated_at)
            select 'del_' || substr(md5(id), 1, 20), id, ${endpoint.id}, ${merchantId}, true, 'pending', 0,
                   ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz
            from unnest(${pgArray(eventIds)}::text[]) as t(id)`,
      );
    });
    return (performance.now() - started) / 1000;
  };

  const oursSeconds: number[] = [];
  const bareSeconds: number[] = [];
  // Profiled alone under --profile (the bare rounds in it are its `bare` frames): the set-up dwarfs it.
  await profileSection(`watcher-rounds-${kind}`, async () => {
    for (let round = 0; round < rounds; round++) {
      // A-B-B-A, so drift in the machine's load falls on both alike.
      if (round % 2 === 0) {
        oursSeconds.push(await ours());
        bareSeconds.push(await bare());
      } else {
        bareSeconds.push(await bare());
        oursSeconds.push(await ours());
      }
    }
  });
  const [open] = await queryRows<{ count: string | number }>(
    db,
    sql`select count(*) as count from payments where status = 'pending'`,
  );
  // Checked before the figures go out: an error after `ready` would reach nobody.
  if (Number(open?.count) < total - 2 * rounds * blockSize) throw new Error('payments were not left open');
  collect();
  const rssAfter = process.memoryUsage().rss;
  reportReady<WatcherRunReady>({
    payments: total,
    block: blockSize,
    insertSeconds,
    watchLoadSeconds,
    oursSeconds,
    bareSeconds,
    rssBeforeMb: mb(rssBefore),
    rssAfterMb: mb(rssAfter),
    watched: watcher.watchedCount(),
  });
  await database.close();
}

// Exits when done (the parent waits for it): a process ended by a signal writes no --cpu-prof profile.
main().then(
  () => process.exit(0),
  (error: unknown) => {
    reportError(error);
    process.exitCode = 1;
  },
);
