import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../../config.ts';
import type { Database, Db } from '../../../db/client.ts';
import { listen as listenForNotifications } from '../../../db/notify.ts';
import type { Clock } from '../../../lib/clock.ts';
import { newId } from '../../../lib/ids.ts';
import { DELIVERY_CHANNEL } from '../events/repo.ts';
import type { EventsService } from '../events/service.ts';
import type { SsrfGuard } from '../ssrf.ts';
import { MAX_ATTEMPTS, outcomeOf } from './outcome.ts';
import { createOutcomeWriter } from './outcome-writer.ts';
import { type BreakerChange, type ClaimedDelivery, deliveriesRepo } from './repo.ts';
import { createWebhookSender, type WebhookSender } from './sender.ts';
import { deliveryHeaders } from './signing.ts';

export interface DeliveryWorkerOptions {
  database: Database;
  clock: Clock;
  sender: WebhookSender;
  /** The secrets that sign for an endpoint now: current first, then the previous one during its overlap. */
  signingSecrets(row: {
    secretSealed: string;
    previousSecretSealed: string | null;
    previousSecretExpiresAt: Date | null;
  }): string[];
  /** Delays before attempts 2 to 5 (`SVC_WEBHOOK_RETRY_SCHEDULE`); each gets ±10% jitter. */
  retryScheduleMs: readonly number[];
  timeoutMs: number;
  /** Deliveries in flight (or claimed and waiting for their endpoint's turn) in this worker. */
  concurrency: number;
  /** Deliveries in flight to any one endpoint in this worker. */
  endpointConcurrency: number;
  /** Deliveries claimed or in flight for any one merchant (all its endpoints) in this worker. */
  merchantConcurrency?: number;
  /** The instance's operators (a cached set): only their test endpoints may reach loopback. */
  operatorIds?: () => Promise<ReadonlySet<string>>;
  /** Failed attempts in a row that trip an endpoint's breaker; unset, never. */
  breakerFailures?: number;
  /** Writes `webhook_endpoint.failing` / `.recovered` for breakers that opened or closed, in the outcome's transaction. */
  announceBreakerChanges(tx: Db, changes: BreakerChange[]): Promise<unknown>;
  logger?: Logger | undefined;
  /** How often to look for due work without being told (retries, leases of dead workers). */
  pollIntervalMs?: number;
  /** How long a claim holds; defaults to two acknowledgement windows plus 5 s. */
  leaseMs?: number;
  random?: () => number;
  /** Told of every attempt once sent (the metrics count outcomes and time the endpoints here). */
  onAttempt?: (attempt: {
    status: 'pending' | 'succeeded' | 'failed';
    statusCode: number | null;
    durationMs: number;
  }) => void;
}

interface DeliveryWorkerStats {
  /** Claim queries that returned at least one delivery. */
  claims: number;
  /** Outcome writes (each a batch). */
  writes: number;
  claimed: number;
  sent: number;
  succeeded: number;
  failed: number;
  inFlight: number;
}

export interface DeliveryWorker {
  start(): Promise<void>;
  /** Stops claiming, gives back claims not yet started, waits for requests in flight and records them. */
  stop(): Promise<void>;
  /** Looks for due work now. */
  wake(): void;
  /** Null while healthy, else why not (for `/readyz`). */
  readiness(): Promise<string | null>;
  stats(): DeliveryWorkerStats;
}

interface Job extends ClaimedDelivery {
  leaseToken: string;
}

/**
 * The delivery worker: claims due deliveries (SKIP LOCKED, with a lease), merchants taking turns, signs and POSTs
 * them with a cap per endpoint and per merchant so one slow endpoint or merchant cannot hold up the others, and
 * records every attempt and its outcome in batches.
 * Workers wake on NOTIFY from committed events, on their own scheduled retries and on a slow poll.
 */
function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { database, clock, sender, logger } = options;
  const { db } = database;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const leaseMs = options.leaseMs ?? 2 * options.timeoutMs + 5000;
  const random = options.random ?? Math.random;
  const minimumClaim = Math.max(1, Math.floor(options.concurrency / 4));
  const merchantConcurrency = options.merchantConcurrency ?? options.concurrency;
  let operatorIds: ReadonlySet<string> = new Set();

  let running = false;
  let claiming = false;
  let again = false;
  let wakeQueued = false;
  /** More may be due than the last claim took (capacity or per-endpoint caps held some back). */
  let backlog = false;
  /** The last claim took as many as it asked for. */
  let lastClaimFull = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryTimerAt = Number.POSITIVE_INFINITY;
  let lastError: string | null = null;
  let unlisten: (() => Promise<void>) | undefined;

  /** Claimed and not yet sent, per endpoint, and sends in flight per endpoint. */
  const waiting = new Map<string, Job[]>();
  const inFlight = new Map<string, number>();
  /** Claimed and not yet sent or in flight, per merchant: what its cap counts. */
  const merchantLoad = new Map<string, number>();
  /**
   * Claims whose outcome is not recorded yet (waiting, in flight, or sent and not yet written). Bounded by
   * `concurrency`, so a worker killed at any moment leaves at most that many deliveries to be sent again.
   */
  let load = 0;
  const sends = new Set<Promise<void>>();

  const writer = createOutcomeWriter({
    db,
    logger,
    breakerFailures: options.breakerFailures,
    announceBreakerChanges: options.announceBreakerChanges,
    writeNow: () => sends.size === 0 || !running,
    givingUp: () => !running && sends.size === 0,
    written(outcomes) {
      stats.writes += 1;
      load -= outcomes.length;
      for (const outcome of outcomes) {
        if (outcome.nextAttemptAt !== null) wakeAt(outcome.nextAttemptAt.getTime());
      }
      if (backlog && outcomes.length > 0) wake();
    },
    dropped(count) {
      load -= count;
    },
  });

  const stats: DeliveryWorkerStats = {
    claims: 0,
    writes: 0,
    claimed: 0,
    sent: 0,
    succeeded: 0,
    failed: 0,
    inFlight: 0,
  };

  function wake(): void {
    if (!running || wakeQueued) return;
    wakeQueued = true;
    setImmediate(() => {
      wakeQueued = false;
      void cycle();
    });
  }

  function wakeAt(at: number): void {
    if (!running || at >= retryTimerAt) return;
    if (retryTimer !== undefined) clearTimeout(retryTimer);
    retryTimerAt = at;
    retryTimer = setTimeout(
      () => {
        retryTimer = undefined;
        retryTimerAt = Number.POSITIVE_INFINITY;
        wake();
      },
      Math.max(0, at - clock.now().getTime()),
    );
  }

  async function cycle(): Promise<void> {
    if (!running) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      for (;;) {
        if (!running) break;
        const capacity = options.concurrency - load;
        // While claims come back full, wait for a quarter of the slots to free up: fewer, larger claims.
        if (capacity <= 0 || (lastClaimFull && load > 0 && capacity < minimumClaim)) {
          backlog = true;
          break;
        }
        const busy = [...waiting.keys()].filter(
          (endpointId) =>
            (waiting.get(endpointId)?.length ?? 0) + (inFlight.get(endpointId) ?? 0) >=
            options.endpointConcurrency,
        );
        if (options.operatorIds !== undefined) operatorIds = await options.operatorIds();
        const now = clock.now();
        const token = randomBytes(12).toString('base64url');
        const claimed = await deliveriesRepo.claim(db, {
          now,
          leaseUntil: new Date(now.getTime() + leaseMs),
          token,
          limit: capacity,
          perEndpoint: options.endpointConcurrency,
          skipEndpoints: busy,
          perMerchant: merchantConcurrency,
          merchantLoad,
          maxAttempts: MAX_ATTEMPTS,
        });
        lastError = null;
        if (claimed.length > 0) stats.claims += 1;
        for (const delivery of claimed) accept({ ...delivery, leaseToken: token });
        // Counted with this claim's deliveries: a merchant whose claim filled its room has more due that it left.
        const merchantsFull = [...merchantLoad.values()].some((held) => held >= merchantConcurrency);
        const perEndpoint = new Map<string, number>();
        for (const delivery of claimed) {
          perEndpoint.set(delivery.endpointId, (perEndpoint.get(delivery.endpointId) ?? 0) + 1);
        }
        const capped = [...perEndpoint.values()].some((count) => count >= options.endpointConcurrency);
        lastClaimFull = claimed.length >= capacity;
        // Fewer than asked, nothing skipped and no endpoint or merchant held back by its cap: that was every due row.
        const sawAll = !lastClaimFull && busy.length === 0 && !capped && !merchantsFull;
        backlog = !sawAll;
        if (claimed.length === 0 || sawAll) break;
      }
    } catch (error) {
      lastError = `webhook worker cannot claim deliveries: ${error instanceof Error ? error.message : String(error)}`;
      logger?.error({ err: error }, 'webhook claim failed');
    } finally {
      claiming = false;
      if (again) {
        again = false;
        wake();
      }
    }
  }

  function accept(job: Job): void {
    // Its endpoint's breaker is open: the delivery was put off until the next probe, not claimed.
    if (job.deferred) return;
    stats.claimed += 1;
    if (job.lostToken !== null) {
      // The worker that held the previous attempt stopped before it recorded anything: say so in the log of attempts.
      const leaseUntil = job.lostLeaseUntil ?? clock.now();
      writer.addAttempt({
        id: newId('att'),
        deliveryId: job.id,
        attempt: job.status === 'pending' ? job.attempt - 1 : job.attempt,
        startedAt: new Date(leaseUntil.getTime() - leaseMs),
        durationMs: 0,
        statusCode: null,
        success: false,
        responseBody: null,
        error: 'The worker sending this attempt stopped before it recorded the outcome.',
      });
    }
    if (job.status !== 'pending') return;
    merchantLoad.set(job.merchantId, (merchantLoad.get(job.merchantId) ?? 0) + 1);
    const queue = waiting.get(job.endpointId) ?? [];
    queue.push(job);
    waiting.set(job.endpointId, queue);
    load += 1;
    pump(job.endpointId);
  }

  function pump(endpointId: string): void {
    const queue = waiting.get(endpointId);
    while (
      queue !== undefined &&
      queue.length > 0 &&
      (inFlight.get(endpointId) ?? 0) < options.endpointConcurrency
    ) {
      const job = queue.shift() as Job;
      inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
      stats.inFlight += 1;
      const sending = send(job).finally(() => {
        sends.delete(sending);
        stats.inFlight -= 1;
        const left = (inFlight.get(endpointId) ?? 1) - 1;
        if (left === 0) inFlight.delete(endpointId);
        else inFlight.set(endpointId, left);
        const held = (merchantLoad.get(job.merchantId) ?? 1) - 1;
        if (held === 0) merchantLoad.delete(job.merchantId);
        else merchantLoad.set(job.merchantId, held);
        pump(endpointId);
      });
      sends.add(sending);
    }
    if (queue !== undefined && queue.length === 0 && !inFlight.has(endpointId)) waiting.delete(endpointId);
  }

  async function send(job: Job): Promise<void> {
    const at = clock.now();
    let result: Awaited<ReturnType<WebhookSender['send']>>;
    try {
      const headers = deliveryHeaders({
        eventId: job.eventId,
        body: job.body,
        secrets: options.signingSecrets(job),
        at,
      });
      result = await sender.send({
        url: job.url,
        isTest: job.isTest,
        operator: job.isTest && operatorIds.has(job.merchantId),
        headers,
        body: job.body,
      });
    } catch (error) {
      result = {
        ok: false,
        statusCode: null,
        responseBody: null,
        error: `could not send: ${error instanceof Error ? error.message : String(error)}`,
        durationMs: clock.now().getTime() - at.getTime(),
      };
    }
    stats.sent += 1;
    const { attempt, outcome } = outcomeOf({
      delivery: job,
      result,
      startedAt: at,
      finishedAt: clock.now(),
      retryScheduleMs: options.retryScheduleMs,
      random,
    });
    if (outcome.status === 'succeeded') stats.succeeded += 1;
    if (outcome.status === 'failed') stats.failed += 1;
    writer.add(attempt, outcome);
    options.onAttempt?.({
      status: outcome.status,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
    });
  }

  async function listen(): Promise<void> {
    unlisten = await listenForNotifications(database, DELIVERY_CHANNEL, () => wake(), logger);
  }

  return {
    async start() {
      if (running) return;
      running = true;
      await listen();
      pollTimer = setInterval(() => {
        wake();
        void deliveriesRepo
          .nextDue(db)
          .then((at) => {
            if (at !== null) wakeAt(at.getTime());
          })
          .catch(() => {});
      }, pollIntervalMs);
      wake();
    },

    async stop() {
      if (!running) return;
      running = false;
      if (pollTimer !== undefined) clearInterval(pollTimer);
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimerAt = Number.POSITIVE_INFINITY;
      await unlisten?.().catch(() => {});
      // Let a claim in progress finish, then give back what has not started.
      while (claiming) await new Promise((resolve) => setTimeout(resolve, 5));
      const unstarted = [...waiting.values()].flat();
      for (const queue of waiting.values()) queue.length = 0;
      load -= unstarted.length;
      await deliveriesRepo
        .release(
          db,
          unstarted.map((job) => ({ id: job.id, leaseToken: job.leaseToken })),
          clock.now(),
        )
        .catch((error: unknown) => logger?.warn({ err: error }, 'could not give back unstarted deliveries'));
      await Promise.allSettled([...sends]);
      await writer.drain();
      await sender.close().catch(() => {});
    },

    wake,

    async readiness() {
      if (!running) return 'webhook worker is not running';
      return lastError;
    },

    stats: () => ({ ...stats }),
  };
}

/** The worker as the program runs it: the SSRF-guarded sender and the limits from the configuration. */
export function createConfiguredDeliveryWorker(deps: {
  config: Config;
  database: Database;
  clock: Clock;
  signingSecrets: DeliveryWorkerOptions['signingSecrets'];
  /** The program's one SSRF guard, which also checks endpoint URLs when they are saved (services.ts). */
  guard: SsrfGuard;
  /** The instance's operators (accounts/operators.ts). */
  operatorIds: () => Promise<ReadonlySet<string>>;
  /** The events service: announces endpoints whose breaker opened or closed. */
  events: Pick<EventsService, 'recordWebhookEndpointEvents'>;
  logger?: Logger | undefined;
  pollIntervalMs?: number;
  onAttempt?: DeliveryWorkerOptions['onAttempt'];
}): DeliveryWorker {
  const { config, guard } = deps;
  return createDeliveryWorker({
    database: deps.database,
    clock: deps.clock,
    sender: createWebhookSender({
      guard,
      timeoutMs: config.webhookTimeoutMs,
      // Endpoints of many merchants can share one origin; the per-endpoint cap is the worker's to keep.
      connectionsPerOrigin: config.webhookConcurrency,
    }),
    signingSecrets: deps.signingSecrets,
    retryScheduleMs: config.webhookRetryScheduleMs,
    timeoutMs: config.webhookTimeoutMs,
    concurrency: config.webhookConcurrency,
    endpointConcurrency: config.webhookEndpointConcurrency,
    merchantConcurrency: config.webhookMerchantConcurrency,
    breakerFailures: config.webhookBreakerFailures,
    announceBreakerChanges: (tx, changes) =>
      deps.events.recordWebhookEndpointEvents(
        tx,
        changes.map((change) => ({
          type: change.kind === 'failing' ? 'webhook_endpoint.failing' : 'webhook_endpoint.recovered',
          merchantId: change.merchantId,
          isTest: change.isTest,
          endpointId: change.endpointId,
          url: change.url,
          consecutiveFailures: change.consecutiveFailures,
          failingSince: change.failingSince,
          nextProbeAt: change.nextProbeAt,
          occurredAt: change.at,
        })),
      ),
    operatorIds: deps.operatorIds,
    logger: deps.logger,
    ...(deps.pollIntervalMs === undefined ? {} : { pollIntervalMs: deps.pollIntervalMs }),
    ...(deps.onAttempt === undefined ? {} : { onAttempt: deps.onAttempt }),
  });
}
