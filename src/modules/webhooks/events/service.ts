import type { Db } from '../../../db/client.ts';
import type { ReadPart, RowRefs } from '../../../db/json-rows.ts';
import type { Clock } from '../../../lib/clock.ts';
import { AppError } from '../../../lib/errors.ts';
import { newId } from '../../../lib/ids.ts';
import type { Principal } from '../../tenancy/caller.ts';
import { modeForRead } from '../../tenancy/scope.ts';
import { deliveriesRepo } from '../delivery/repo.ts';
import type { DeliveryView, EventView } from '../delivery/schemas.ts';
import type { WebhookEndpointsService } from '../endpoints/service.ts';
import {
  type PaymentEventSnapshot,
  type PaymentEventType,
  type PayoutWalletChange,
  paymentEventBody,
  payoutWalletEventBody,
  type RefundEventSnapshot,
  type RefundEventType,
  refundEventBody,
  samplePayment,
  type WebhookEndpointHealth,
  webhookEndpointEventBody,
} from './payload.ts';
import type { AttemptRow, DeliveryRow, EventRow, EventsRepo } from './repo.ts';
import { newDeliveryRow } from './repo.ts';
import { streamRepo } from './stream-repo.ts';

export type {
  PaymentEventSnapshot,
  PaymentEventType,
  RefundEventSnapshot,
  RefundEventType,
} from './payload.ts';

export interface EventsDeps {
  db: Db;
  repo: EventsRepo;
  clock: Clock;
  endpoints: WebhookEndpointsService;
}

export interface RecordPaymentEventInput {
  merchantId: string;
  type: PaymentEventType;
  payment: PaymentEventSnapshot;
  occurredAt: Date;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** The most `redeliver-failed` queues in one call; call again for the rest. */
const REDELIVER_FAILED_MAX = 10_000;

function eventView(row: EventRow): EventView {
  return {
    id: row.id,
    type: row.type,
    is_test: row.isTest,
    payment_id: row.paymentId,
    sample: row.sample,
    created_at: row.createdAt.toISOString(),
    payload: JSON.parse(row.body) as EventView['payload'],
  };
}

function deliveryView(row: DeliveryRow, eventType: string, attempts: AttemptRow[]): DeliveryView {
  return {
    id: row.id,
    event_id: row.eventId,
    event_type: eventType,
    endpoint_id: row.endpointId,
    is_test: row.isTest,
    status: row.status as DeliveryView['status'],
    attempt_count: row.attemptCount,
    next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    redelivery_of: row.redeliveryOf,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString() ?? null,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      started_at: attempt.startedAt.toISOString(),
      duration_ms: attempt.durationMs,
      status_code: attempt.statusCode,
      success: attempt.success,
      response_body: attempt.responseBody,
      error: attempt.error,
    })),
  };
}

/**
 * Events are the outbox of payment changes: `recordPaymentEvent` runs inside the caller's transaction and writes
 * the event with one delivery per receiving endpoint, so a committed change always has its deliveries and a
 * rolled-back one never does. The rest is the API over events, deliveries and their attempts.
 */
export function createEventsService({ db, repo, clock, endpoints }: EventsDeps) {
  async function findEventOrThrow(principal: Principal, id: string): Promise<EventRow> {
    const row = await repo.findEvent(db, principal.merchantId, modeForRead(principal, undefined), id);
    if (row === undefined) throw new AppError('not_found', 'No such event.', { param: 'id' });
    return row;
  }

  async function withAttempts(rows: Array<DeliveryRow & { eventType: string }>): Promise<DeliveryView[]> {
    const attempts = await repo.attemptsOf(
      db,
      rows.map((row) => row.id),
    );
    const byDelivery = new Map<string, AttemptRow[]>();
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.deliveryId, list);
    }
    return rows.map((row) => deliveryView(row, row.eventType, byDelivery.get(row.id) ?? []));
  }

  async function deliveryById(id: string, merchantId: string): Promise<DeliveryView> {
    const row = await repo.findDelivery(db, merchantId, undefined, id);
    if (row === undefined) throw new AppError('not_found', 'No such delivery.', { param: 'id' });
    const types = await repo.eventTypes(db, [row.eventId]);
    const [view] = await withAttempts([{ ...row, eventType: types.get(row.eventId) ?? '' }]);
    if (view === undefined) throw new AppError('not_found', 'No such delivery.', { param: 'id' });
    return view;
  }

  /** The endpoint, visible to the principal and still receiving; else not_found / invalid_state. */
  async function receivingEndpoint(principal: Principal, endpointId: string) {
    const endpoint = await endpoints.get(principal, endpointId);
    if (!endpoint.enabled) {
      throw new AppError('invalid_state', 'The webhook endpoint is disabled; enable it first.', {
        param: 'id',
      });
    }
    return endpoint;
  }

  function eventRow(input: RecordPaymentEventInput, sample: boolean): EventRow {
    return {
      id: newId('evt'),
      merchantId: input.merchantId,
      isTest: input.payment.is_test,
      type: input.type,
      paymentId: input.payment.payment_id,
      body: paymentEventBody(input.type, input.payment, input.occurredAt),
      sample,
      occurredAt: input.occurredAt,
      createdAt: clock.now(),
      streamSeq: null,
    };
  }

  return {
    /** Reports: when each payment was first paid (confirmed or overpaid), from its events. */
    firstPaidAt: (merchantId: string, paymentIds: string[]) => repo.firstPaidAt(db, merchantId, paymentIds),

    /** A keyset page of a merchant's events for exports, oldest first. */
    exportPage: (
      filter: { merchantId: string; isTest: boolean; from?: Date | undefined; to?: Date | undefined },
      limit: number,
      after: { createdAt: Date; id: string } | undefined,
    ) => repo.exportPage(db, filter, limit, after),

    /** Retention: events created before `before`, with their deliveries and attempts, at most `limit` events. */
    purgeEvents: (before: Date, limit: number) => repo.purgeEvents(db, before, limit),
    /** The outbox's backlog (metrics): deliveries not yet done and the creation time of the oldest. */
    outboxStats: () => deliveriesRepo.pendingStats(db),
    /** Committed events still waiting for their stream position (metrics). */
    streamBacklog: () => streamRepo.backlog(db),
    /** Retention: stored response bodies of attempts made before `before`, at most `limit`. */
    purgeAttemptBodies: (before: Date, limit: number) => deliveriesRepo.purgeAttemptBodies(db, before, limit),

    /**
     * Writes a payment event and its deliveries (one per enabled endpoint of the merchant in the payment's mode)
     * inside the caller's transaction `tx`. The event's body is fixed here, so every attempt sends the same bytes.
     */
    async recordPaymentEvent(tx: Db, input: RecordPaymentEventInput): Promise<{ eventId: string }> {
      const event = eventRow(input, false);
      await repo.insertEventWithDeliveries(tx, event);
      return { eventId: event.id };
    },

    /**
     * Writes a `refund.*` event and its deliveries (the merchant's enabled endpoints of the refund's mode) inside the
     * caller's transaction `tx`, the one that changes the refund.
     */
    async recordRefundEvent(
      tx: Db,
      input: { merchantId: string; type: RefundEventType; refund: RefundEventSnapshot; occurredAt: Date },
    ): Promise<{ eventId: string }> {
      const event: EventRow = {
        id: newId('evt'),
        merchantId: input.merchantId,
        isTest: input.refund.is_test,
        type: input.type,
        paymentId: input.refund.payment_id,
        body: refundEventBody(input.type, input.refund, input.occurredAt),
        sample: false,
        occurredAt: input.occurredAt,
        createdAt: clock.now(),
        streamSeq: null,
      };
      await repo.insertEventWithDeliveries(tx, event);
      return { eventId: event.id };
    },

    /**
     * Writes `payout_wallet.updated` and its deliveries (the merchant's enabled endpoints of that mode) inside the
     * caller's transaction `tx`, the one that changes the wallets.
     */
    async recordPayoutWalletEvent(
      tx: Db,
      input: {
        merchantId: string;
        isTest: boolean;
        changes: PayoutWalletChange[];
        changedBy: string;
        occurredAt: Date;
      },
    ): Promise<{ eventId: string }> {
      const event: EventRow = {
        id: newId('evt'),
        merchantId: input.merchantId,
        isTest: input.isTest,
        type: 'payout_wallet.updated',
        paymentId: null,
        body: payoutWalletEventBody(input, input.occurredAt),
        sample: false,
        occurredAt: input.occurredAt,
        createdAt: clock.now(),
        streamSeq: null,
      };
      await repo.insertEventWithDeliveries(tx, event);
      return { eventId: event.id };
    },

    /**
     * Writes `webhook_endpoint.failing` / `webhook_endpoint.recovered` for endpoints whose circuit breaker opened or
     * closed, with their deliveries to the merchant's other endpoints of that mode, inside the delivery worker's
     * transaction `tx` that changed the breakers.
     */
    async recordWebhookEndpointEvents(
      tx: Db,
      inputs: Array<WebhookEndpointHealth & { merchantId: string; occurredAt: Date }>,
    ): Promise<{ eventIds: string[] }> {
      const rows: EventRow[] = inputs.map((input) => ({
        id: newId('evt'),
        merchantId: input.merchantId,
        isTest: input.isTest,
        type: input.type,
        paymentId: null,
        body: webhookEndpointEventBody(input, input.occurredAt),
        sample: false,
        occurredAt: input.occurredAt,
        createdAt: clock.now(),
        streamSeq: null,
      }));
      // The endpoint an event is about does not get it: it is failing, or it knows it works again.
      await repo.insertEventsWithDeliveries(
        tx,
        rows,
        inputs.map((input) => input.endpointId),
      );
      return { eventIds: rows.map((row) => row.id) };
    },

    /**
     * `recordPaymentEvent` for several events at once, in one statement inside `tx` (same rows, same deliveries):
     * for a transaction that changes many payments together, such as a block of deposits.
     */
    async recordPaymentEvents(tx: Db, inputs: RecordPaymentEventInput[]): Promise<{ eventIds: string[] }> {
      const rows = inputs.map((input) => eventRow(input, false));
      for (let start = 0; start < rows.length; start += 5000) {
        await repo.insertEventsWithDeliveries(tx, rows.slice(start, start + 5000));
      }
      return { eventIds: rows.map((row) => row.id) };
    },

    async listEvents(
      principal: Principal,
      query: {
        limit: number;
        starting_after?: string | undefined;
        type?: string | undefined;
        payment_id?: string | undefined;
        is_test?: boolean | undefined;
      },
    ): Promise<Page<EventView>> {
      const after =
        query.starting_after === undefined
          ? undefined
          : await findEventOrThrow(principal, query.starting_after);
      const rows = await repo.listEvents(
        db,
        {
          merchantId: principal.merchantId,
          isTest: modeForRead(principal, query.is_test),
          type: query.type,
          paymentId: query.payment_id,
        },
        { limit: query.limit + 1, after },
      );
      return { data: rows.slice(0, query.limit).map(eventView), has_more: rows.length > query.limit };
    },

    /**
     * The newest `limit` events of the payment another module's statement reads (`payment` refers to its row),
     * newest first: that module reads a payment with its events in one statement, so in one snapshot.
     */
    eventsOfPaymentPart(
      payment: RowRefs<'id' | 'merchantId' | 'isTest'>,
      limit: number,
    ): ReadPart<EventView[]> {
      const part = repo.eventsOfPaymentPart(payment, limit);
      return { sql: part.sql, read: (value) => part.read(value).map(eventView) };
    },

    async getEvent(principal: Principal, id: string): Promise<EventView> {
      return eventView(await findEventOrThrow(principal, id));
    },

    /** The deliveries of one endpoint, newest first, each with every attempt. */
    async listDeliveries(
      principal: Principal,
      endpointId: string,
      query: { limit: number; starting_after?: string | undefined; status?: string | undefined },
    ): Promise<Page<DeliveryView>> {
      const endpoint = await endpoints.get(principal, endpointId);
      let after: DeliveryRow | undefined;
      if (query.starting_after !== undefined) {
        after = await repo.findDelivery(db, principal.merchantId, endpoint.is_test, query.starting_after);
        if (after === undefined || after.endpointId !== endpoint.id) {
          throw new AppError('not_found', 'No such delivery.', { param: 'starting_after' });
        }
      }
      const rows = await repo.listDeliveries(db, endpoint.id, query.status, {
        limit: query.limit + 1,
        after,
      });
      return { data: await withAttempts(rows.slice(0, query.limit)), has_more: rows.length > query.limit };
    },

    /** A fresh delivery of the same event to the same endpoint, with its own attempts. */
    async redeliver(principal: Principal, deliveryId: string): Promise<DeliveryView> {
      const original = await repo.findDelivery(
        db,
        principal.merchantId,
        modeForRead(principal, undefined),
        deliveryId,
      );
      if (original === undefined) throw new AppError('not_found', 'No such delivery.', { param: 'id' });
      await receivingEndpoint(principal, original.endpointId);
      const row = newDeliveryRow({
        id: newId('del'),
        eventId: original.eventId,
        endpointId: original.endpointId,
        merchantId: original.merchantId,
        isTest: original.isTest,
        now: clock.now(),
        redeliveryOf: original.id,
      });
      await db.transaction(async (tx) => {
        await repo.insertDeliveries(tx, [row]);
        await repo.notifyWorkers(tx);
      });
      return deliveryById(row.id, principal.merchantId);
    },

    /** Redelivers every failed (or canceled) delivery of the endpoint created since `since` not redelivered yet. */
    async redeliverFailed(
      principal: Principal,
      endpointId: string,
      input: { since: string; until?: string | undefined },
    ): Promise<{ redelivered: number; delivery_ids: string[] }> {
      const endpoint = await receivingEndpoint(principal, endpointId);
      const now = clock.now();
      const since = new Date(input.since);
      const until = input.until === undefined ? now : new Date(input.until);
      if (since.getTime() >= until.getTime()) {
        throw new AppError('parameter_invalid', 'since must be before until (or now).', { param: 'since' });
      }
      const ids = await db.transaction(async (tx) => {
        const created = await repo.redeliverFailed(tx, {
          endpointId: endpoint.id,
          since,
          until,
          now,
          newId: () => newId('del'),
          max: REDELIVER_FAILED_MAX,
        });
        if (created.length > 0) await repo.notifyWorkers(tx);
        return created;
      });
      return { redelivered: ids.length, delivery_ids: ids };
    },

    /** Sends a signed sample event (nil payment id) to one endpoint only. */
    async sendTest(
      principal: Principal,
      endpointId: string,
      input: { event?: PaymentEventType | undefined },
    ): Promise<{ event: EventView; delivery: DeliveryView }> {
      const endpoint = await receivingEndpoint(principal, endpointId);
      const type = input.event ?? 'payment.confirmed';
      const now = clock.now();
      const event = eventRow(
        {
          merchantId: principal.merchantId,
          type,
          payment: samplePayment(type, endpoint.is_test),
          occurredAt: now,
        },
        true,
      );
      const delivery = newDeliveryRow({
        id: newId('del'),
        eventId: event.id,
        endpointId: endpoint.id,
        merchantId: principal.merchantId,
        isTest: endpoint.is_test,
        now: event.createdAt,
      });
      await db.transaction(async (tx) => {
        await repo.insertEvent(tx, event);
        await repo.insertDeliveries(tx, [delivery]);
        await repo.notifyWorkers(tx);
      });
      return { event: eventView(event), delivery: await deliveryById(delivery.id, principal.merchantId) };
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
