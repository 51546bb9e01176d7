import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import type { Metrics } from './metrics.ts';
import { createSettlementJobs } from './modules/chains/jobs.ts';
import { refundLedger } from './modules/chains/ledger.ts';
import { createNoticesJob } from './modules/notices/jobs.ts';
import { createRefundSender, merchantPaidRefunds } from './modules/refunds/sender.ts';
import { createRetentionJob } from './modules/retention/jobs.ts';
import { createConfiguredDeliveryWorker } from './modules/webhooks/delivery/worker.ts';
import { streamRepo } from './modules/webhooks/events/stream-repo.ts';
import { createStreamSequencer } from './modules/webhooks/events/stream-sequencer.ts';
import type { Services } from './services.ts';

/** A background worker as the program runs it: started after the API listens, stopped last-started-first. */
export interface BackgroundWorker {
  name: string;
  /** What the log says once it runs. */
  started: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Null when ready; otherwise why not (for /readyz). */
  readiness(): Promise<string | null>;
}

export interface WorkerDeps {
  config: Config;
  database: Database;
  clock: Clock;
  services: Services;
  logger: Logger;
  /** The process's metrics, fed by the workers (deliveries, sequenced events, chain rounds, sweeps). */
  metrics?: Metrics | undefined;
}

/** Every background worker that the `serve` and `worker` roles start, in start order: the one list of them. */
export function backgroundWorkers({
  config,
  database,
  clock,
  services,
  logger,
  metrics,
}: WorkerDeps): BackgroundWorker[] {
  const delivery = createConfiguredDeliveryWorker({
    config,
    database,
    clock,
    signingSecrets: services.webhookEndpoints.signingSecrets,
    guard: services.ssrfGuard,
    operatorIds: services.operators.ids,
    events: services.events,
    logger: logger.child({ worker: 'webhooks' }),
    ...(metrics === undefined ? {} : { onAttempt: metrics.onAttempt }),
  });
  const settlement = createSettlementJobs({
    database,
    clock,
    adapters: services.chainAdapters,
    payments: services.payments,
    settings: services.settings,
    simBlockMs: config.simBlockMs,
    lateWatchDays: config.lateWatchDays,
    logger: logger.child({ worker: 'settlement' }),
    observer: metrics?.settlement,
    outsideWatch: {
      addresses: (chain, isTest) => merchantPaidRefunds.addresses(database.db, chain, isTest),
      found: (tx, chain, isTest, transfers) =>
        merchantPaidRefunds.found(tx, chain, isTest, transfers, clock.now()),
    },
    chainTasks: [
      (adapter) =>
        createRefundSender({
          db: database.db,
          clock,
          adapter,
          payments: services.payments,
          ledger: refundLedger,
          payoutWallet: (merchantId, isTest, chain) =>
            services.settings.payoutWallet(database.db, merchantId, isTest, chain),
          refunds: services.refunds,
          logger: logger.child({ worker: 'refunds', chain: adapter.chain, isTest: adapter.isTest }),
        }),
    ],
  });
  const notices = createNoticesJob({
    clock,
    notices: services.notices,
    claimFailingEndpoints: services.webhookEndpoints.claimFailingNotices,
    feeWallets: () => services.chainAdapters.feeWallets(),
    operatorEmails: async () =>
      Promise.all(
        [...(await services.operators.ids())].map(
          async (id) => (await services.accounts.getMerchant(id)).email,
        ),
      ),
    logger: logger.child({ worker: 'notices' }),
  });
  const retention = createRetentionJob({
    clock,
    logger: logger.child({ worker: 'retention' }),
    kinds: [
      {
        name: 'idempotency_keys',
        keepMs: config.retentionMs.idempotencyKeys,
        purge: services.payments.purgeIdempotencyKeys,
      },
      {
        name: 'attempt_bodies',
        keepMs: config.retentionMs.attemptBodies,
        purge: services.events.purgeAttemptBodies,
      },
      {
        // Payers' mails once sent (or given up): they hold their emails; kept as long as webhook response bodies.
        name: 'sent_mails',
        keepMs: config.retentionMs.attemptBodies,
        purge: services.notices.purgeFinishedMails,
      },
      { name: 'events', keepMs: config.retentionMs.events, purge: services.events.purgeEvents },
    ],
  });
  const sequencer = createStreamSequencer({
    database,
    repo: streamRepo,
    logger: logger.child({ worker: 'event-stream' }),
    ...(metrics === undefined ? {} : { onSequenced: metrics.onSequenced }),
  });
  return [
    {
      name: 'event-stream',
      started: 'event stream sequencer started: committed events get their stream positions',
      start: () => sequencer.start(),
      stop: () => sequencer.stop(),
      readiness: () => sequencer.readiness(),
    },
    {
      name: 'webhooks',
      started: 'webhook delivery worker started',
      start: () => delivery.start(),
      stop: () => delivery.stop(),
      readiness: () => delivery.readiness(),
    },
    {
      name: 'settlement',
      started: `settlement started: watchers, forwarding and expiry (test mode on the simulated chains, a block every ${config.simBlockMs} ms)`,
      start: () => settlement.start(),
      stop: () => settlement.stop(),
      readiness: async () => {
        const problems = [await settlement.readiness(), await services.chainAdapters.readiness()].filter(
          (problem) => problem !== null,
        );
        return problems.length === 0 ? null : problems.join('; ');
      },
    },
    {
      name: 'notices',
      started:
        "notices started: payers' receipts and refund links, webhook endpoints failing for an hour and low fee " +
        'wallets are mailed (SVC_SMTP_URL)',
      start: async () => notices.start(),
      stop: () => notices.stop(),
      readiness: async () => null,
    },
    {
      name: 'retention',
      started:
        'retention started: idempotency keys, webhook response bodies and events past their age are deleted',
      start: () => retention.start(),
      stop: () => retention.stop(),
      readiness: async () => null,
    },
  ];
}
