import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import { createResetMailer } from './modules/accounts/mailer.ts';
import { createOperators } from './modules/accounts/operators.ts';
import { createAccountsRepo } from './modules/accounts/repo.ts';
import { createAccountsService } from './modules/accounts/service.ts';
import { confirmationsFor } from './modules/chains/confirmations.ts';
import { type AddressDeriver, createAddressDeriver } from './modules/chains/derivation.ts';
import { createDepositSigningKeys, createDerivationCheck } from './modules/chains/derivation-check.ts';
import { createDerivationThread } from './modules/chains/derivation-thread.ts';
import { createChainAdapters, testAddressSpelling } from './modules/chains/families.ts';
import { depositLedger, exportLedger } from './modules/chains/ledger.ts';
import { createChainStatus } from './modules/chains/readiness.ts';
import { createSweepCosts } from './modules/chains/sweep-costs.ts';
import { createExportsService } from './modules/exports/service.ts';
import { createKeysRepo } from './modules/keys/repo.ts';
import { createKeysService } from './modules/keys/service.ts';
import { createMailer } from './modules/notices/mailer.ts';
import { createNotices } from './modules/notices/service.ts';
import { createPaymentLinksRepo } from './modules/payment-links/repo.ts';
import { createPaymentLinksService } from './modules/payment-links/service.ts';
import { createPaymentsRepo } from './modules/payments/repo.ts';
import { createPaymentsService, type RateProvider } from './modules/payments/service.ts';
import { createDefaultRatesService } from './modules/rates/index.ts';
import { refundsRepo } from './modules/refunds/repo.ts';
import { createRefundsService } from './modules/refunds/service.ts';
import { createReportsService } from './modules/reports/service.ts';
import { createReadiness } from './modules/settings/readiness.ts';
import { createSettingsRepo } from './modules/settings/repo.ts';
import { createSettingsService } from './modules/settings/service.ts';
import { createSimulatorService } from './modules/simulator/service.ts';
import { createWebhookEndpointsRepo } from './modules/webhooks/endpoints/repo.ts';
import {
  createWebhookEndpointsService,
  type EndpointUrlCheck,
} from './modules/webhooks/endpoints/service.ts';
import { eventsRepo } from './modules/webhooks/events/repo.ts';
import { createEventsService } from './modules/webhooks/events/service.ts';
import { createEventStreams } from './modules/webhooks/events/stream.ts';
import { streamRepo } from './modules/webhooks/events/stream-repo.ts';
import { createConfiguredSsrfGuard } from './modules/webhooks/ssrf.ts';

export interface ServiceDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Overrides for the outside world, so tests can swap a real implementation for a local one. */
  checkWebhookUrl?: EndpointUrlCheck;
  rates?: RateProvider;
  /** Deposit addresses' first derivation (tests inject a broken one to show the second derivation refuses it). */
  deriver?: AddressDeriver;
  /** Log of the chain adapters (node failures, sweeps); silent when unset. */
  logger?: Logger;
}

/** Builds every module's service from explicit dependencies: the one place the object graph is wired. */
export function buildServices({
  config,
  database,
  clock,
  checkWebhookUrl,
  rates,
  logger,
  ...overrides
}: ServiceDeps) {
  const { db } = database;
  // Mail goes out only with SVC_SMTP_URL; everything works the same without it.
  const sendMail = config.smtpUrl === undefined ? undefined : createMailer(config.smtpUrl, config.smtpFrom);
  const accounts = createAccountsService({
    repo: createAccountsRepo(db),
    clock,
    jwtSecret: config.jwtSecret,
    jwtTtlSeconds: config.jwtTtlSeconds,
    signup: config.signup,
    publicUrl: config.publicUrl,
    sendResetMail: sendMail === undefined ? undefined : createResetMailer(sendMail),
    onMailError: (error) => logger?.error({ err: error }, 'password-reset mail not sent'),
  });
  const keys = createKeysService({
    repo: createKeysRepo(db),
    clock,
    authCacheTtlMs: config.authCacheTtlMs,
  });
  // The first account and SVC_OPERATOR_EMAILS: only their test endpoints may reach loopback (SSRF guard).
  const operators = createOperators({ db, clock, emails: config.operatorEmails });
  // One SSRF guard: endpoint URLs are checked with it when saved, and every delivery's connection (workers.ts).
  const ssrfGuard = createConfiguredSsrfGuard(config);
  const webhookEndpoints = createWebhookEndpointsService({
    repo: createWebhookEndpointsRepo(db),
    clock,
    masterKey: config.masterKey,
    checkUrl: checkWebhookUrl ?? ssrfGuard.checkUrl,
    isOperator: operators.isOperator,
    maxEndpoints: config.webhookMaxEndpoints,
  });
  const events = createEventsService({ db, repo: eventsRepo, clock, endpoints: webhookEndpoints });
  const notices = createNotices({
    send: sendMail,
    accounts,
    db,
    clock,
    logger: logger?.child({ worker: 'notices' }),
  });
  const settings = createSettingsService({
    db,
    repo: createSettingsRepo(db),
    clock,
    events,
    accounts,
    notifyPayoutWalletChange: notices.payoutWalletChanged,
  });
  const eventStreams = createEventStreams({
    database,
    repo: streamRepo,
    maxPerMerchant: config.eventStream.maxPerMerchant,
    heartbeatMs: config.eventStream.heartbeatMs,
    logger: logger?.child({ worker: 'event-stream' }),
  });
  const seeds = { testMnemonic: config.testMnemonic, liveMnemonic: config.liveMnemonic };
  // Test-mode addresses of a chain whose test node is regtest are spelled bcrt1…/rltc1…: both derivations agree on it.
  const testSpelling = testAddressSpelling(config);
  const deriver = overrides.deriver ?? createAddressDeriver(seeds, { testSpelling });
  // A second derivation, independent of the first, confirms every address before it is handed out.
  const derivationCheck = createDerivationCheck(seeds, { testSpelling });
  const chainAdapters = createChainAdapters({
    db,
    clock,
    config,
    deriver,
    signingKeys: createDepositSigningKeys(deriver, derivationCheck),
    logger: logger?.child({ worker: 'chains' }),
    // Signed refunds sit beside the forwards: their nonces are taken, and they are re-sent like sweeps.
    outgoing: {
      byHash: (chain, isTest, txHash) => refundsRepo.rawByHash(db, chain, isTest, txHash),
      open: (chain, isTest) => refundsRepo.openRaw(db, chain, isTest),
    },
  });
  const derivation = config.derivationThread
    ? createDerivationThread({
        seeds,
        testSpelling,
        deriver,
        check: derivationCheck,
        logger: logger?.child({ worker: 'derivation' }),
      })
    : undefined;
  const payments = createPaymentsService({
    db,
    repo: createPaymentsRepo(db),
    clock,
    deriver,
    derivationCheck,
    ...(derivation === undefined ? {} : { deriveMany: derivation.deriveMany }),
    // Two on a server (while one runs, the next gathers: under 100 connections, 2 made ~0.6 of the bare insert's
    // rate where 4 made 0.5 and 10 made 0.4, in `npm run bench -- payments`); the embedded engine runs one at a time.
    insertsInFlight: database.kind === 'postgres' ? 2 : 1,
    rates: rates ?? createDefaultRatesService(config, clock),
    publicUrl: config.publicUrl,
    // The connected chain's own rule (a real test network keeps its real depth), else the configured one.
    confirmationsOf: (chain, isTest) =>
      chainAdapters.get(chain, isTest)?.requiredConfirmations ?? confirmationsFor(config, chain, isTest),
    isChainConnected: (chain, isTest) => chainAdapters.get(chain, isTest) !== undefined,
    events,
    settings,
    branding: settings.brandingFor,
    ledger: depositLedger,
    // The payer's receipt, queued in the transaction that confirms the payment (mailed by the notices worker).
    onPaid: notices.enabled
      ? (tx, paid, now) => notices.queueReceipts(tx, paid, now, config.publicUrl)
      : undefined,
  });
  const simulator = createSimulatorService({ db, clock, payments, adapters: chainAdapters });
  const refunds = createRefundsService({
    db,
    clock,
    publicUrl: config.publicUrl,
    masterKey: config.masterKey,
    payments,
    events,
    adapterOf: (chain, isTest) => chainAdapters.get(chain, isTest),
    queueRefundLink: notices.enabled ? notices.queueRefundLink : undefined,
    autoRefundsOverpaid: settings.autoRefundsOverpaid,
  });
  const exports = createExportsService({ db, payments, refunds, events, ledger: exportLedger });
  const reports = createReportsService({ db, clock, payments, events, ledger: exportLedger });
  const paymentLinks = createPaymentLinksService({
    repo: createPaymentLinksRepo(db),
    clock,
    publicUrl: config.publicUrl,
    payments,
  });
  const readiness = createReadiness({
    chainStatus: createChainStatus(chainAdapters),
    settings,
    hasSeed: (isTest) => deriver.hasSeed(isTest),
  });
  const sweepCosts = createSweepCosts({
    db,
    clock,
    // A chain and mode served by the simulator moves nothing real: its sweeps cost nothing to count.
    real: (chain, isTest) => chainAdapters.get(chain, isTest)?.simulated !== true,
  });
  return {
    accounts,
    keys,
    webhookEndpoints,
    events,
    eventStreams,
    payments,
    refunds,
    exports,
    reports,
    notices,
    settings,
    simulator,
    readiness,
    paymentLinks,
    ssrfGuard,
    operators,
    chainAdapters,
    sweepCosts,
    /** The thread deposit addresses are derived on (SVC_DERIVATION_THREAD), if any; it starts on first use. */
    derivation,
  };
}

export type Services = ReturnType<typeof buildServices>;
