import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import type { Clock } from './lib/clock.ts';
import { createAccountsRepo } from './modules/accounts/repo.ts';
import { createAccountsService } from './modules/accounts/service.ts';
import { createKeysRepo } from './modules/keys/repo.ts';
import { createKeysService } from './modules/keys/service.ts';
import { createEventsService } from './modules/webhooks/events.ts';
import { eventsRepo } from './modules/webhooks/events-repo.ts';
import { createWebhookEndpointsRepo } from './modules/webhooks/repo.ts';
import { createWebhookEndpointsService, type EndpointUrlCheck } from './modules/webhooks/service.ts';
import { createSsrfGuard } from './modules/webhooks/ssrf.ts';

export interface ServiceDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Overrides for the outside world, so tests can swap a real implementation for a local one. */
  checkWebhookUrl?: EndpointUrlCheck;
}

/** Builds every module's service from explicit dependencies: the one place the object graph is wired. */
export function buildServices({ config, database, clock, checkWebhookUrl }: ServiceDeps) {
  const { db } = database;
  const accounts = createAccountsService({
    repo: createAccountsRepo(db),
    clock,
    jwtSecret: config.jwtSecret,
    jwtTtlSeconds: config.jwtTtlSeconds,
  });
  const keys = createKeysService({ repo: createKeysRepo(db), clock });
  const webhookEndpoints = createWebhookEndpointsService({
    repo: createWebhookEndpointsRepo(db),
    clock,
    masterKey: config.masterKey,
    checkUrl:
      checkWebhookUrl ??
      createSsrfGuard({ allowLoopbackForTest: config.allowPrivateWebhookTargets }).checkUrl,
  });
  const events = createEventsService({ db, repo: eventsRepo, clock, endpoints: webhookEndpoints });
  return { accounts, keys, webhookEndpoints, events };
}

export type Services = ReturnType<typeof buildServices>;
