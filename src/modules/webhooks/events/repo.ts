import { and, asc, desc, eq, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { pgArray } from '../../../db/arrays.ts';
import { type Db, preparedStatement, queryRows } from '../../../db/client.ts';
import { jsonRowsOf, type ReadPart, type RowRefs, rowsFromJson } from '../../../db/json-rows.ts';
import { timeKeysetPage } from '../../../db/keyset.ts';
import { notify } from '../../../db/notify.ts';
import { events, webhookAttempts, webhookDeliveries } from '../../../db/schema/index.ts';

export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** Workers LISTEN here; a NOTIFY inside a transaction reaches them only when it commits. */
export const DELIVERY_CHANNEL = 'svc_webhook_deliveries';

/** The event stream's sequencer LISTENs here: events committed that await their stream position. */
export const EVENTS_COMMITTED_CHANNEL = 'svc_events_committed';

export interface PageQuery {
  limit: number;
  /** Rows strictly older (by creation, then id) than this one. */
  after?: { createdAt: Date; id: string } | undefined;
}

function olderThan(
  columns: { createdAt: AnyPgColumn; id: AnyPgColumn },
  after: PageQuery['after'],
): SQL | undefined {
  if (after === undefined) return undefined;
  return or(
    lt(columns.createdAt, after.createdAt),
    and(eq(columns.createdAt, after.createdAt), lt(columns.id, after.id)),
  );
}

/** How a merchant's events are listed: newest first, the id breaking a tie (the keyset `olderThan` pages by). */
const newestEventsFirst = [desc(events.createdAt), desc(events.id)];

/**
 * eventsRepo.insertEventWithDeliveries's statement, prepared: every event written alone goes through it, and
 * PostgreSQL took longer to plan it (about 1 ms) than to run it.
 */
const insertEventStatement = preparedStatement<{
  id: string;
  merchantId: string;
  isTest: boolean;
  type: string;
  paymentId: string | null;
  body: string;
  sample: boolean;
  occurredAt: string;
  createdAt: string;
}>(
  'events_insert_with_deliveries',
  (p) => sql`
      with receiving as (
        select id from webhook_endpoints
        where merchant_id = ${p('merchantId')} and is_test = ${p('isTest')} and enabled and deleted_at is null
      ), event as (
        insert into events (id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, created_at)
        values (${p('id')}, ${p('merchantId')}, ${p('isTest')}, ${p('type')}, ${p('paymentId')}, ${p('body')},
          ${p('sample')}, ${p('occurredAt')}::timestamptz, ${p('createdAt')}::timestamptz)
        returning id
      ), deliveries as (
        insert into webhook_deliveries
          (id, event_id, endpoint_id, merchant_id, is_test, status, attempt_count, next_attempt_at, created_at, updated_at)
        select 'del_' || substr(md5(event.id || ':' || receiving.id), 1, 20), event.id, receiving.id,
          ${p('merchantId')}, ${p('isTest')}, 'pending', 0, ${p('createdAt')}::timestamptz, ${p('createdAt')}::timestamptz,
          ${p('createdAt')}::timestamptz
        from event, receiving
        returning 1
      ), notified as (
        select pg_notify(${DELIVERY_CHANNEL}, '') from deliveries
      ), announced as (
        select pg_notify(${EVENTS_COMMITTED_CHANNEL}, '') where not ${p('sample')}
      )
      select (select count(*) from notified) as deliveries, (select count(*) from announced) as announced`,
);

/** All SQL of events (the outbox), deliveries and attempts as the API sees them. Every method takes its Db. */
export const eventsRepo = {
  /**
   * Deletes at most `limit` events created before `before` (retention), oldest first, with their deliveries and the
   * attempts of those, in one statement; events another process is deleting are skipped. Returns how many events went.
   */
  async purgeEvents(db: Db, before: Date, limit: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`with doomed as (
            select id from events where created_at < ${before.toISOString()}::timestamptz
            order by created_at limit ${limit} for update skip locked),
          doomed_deliveries as (select id from webhook_deliveries where event_id in (select id from doomed)),
          attempts as (delete from webhook_attempts where delivery_id in (select id from doomed_deliveries)),
          deliveries as (delete from webhook_deliveries where id in (select id from doomed_deliveries))
          delete from events where id in (select id from doomed) returning id`,
    );
    return rows.length;
  },

  async insertEvent(db: Db, row: EventRow): Promise<void> {
    await db.insert(events).values(row);
  },

  /**
   * The outbox write in one statement: the event, one pending delivery per endpoint of the merchant in the event's
   * mode that is enabled and not deleted, and a NOTIFY for the workers (sent by PostgreSQL only on commit, and only
   * when there is a delivery) and one for the event stream's sequencer. A delivery's id derives from its event and
   * endpoint. Returns how many deliveries.
   */
  async insertEventWithDeliveries(db: Db, event: EventRow): Promise<number> {
    const [row] = await insertEventStatement<{ deliveries: string | number }>(db, {
      id: event.id,
      merchantId: event.merchantId,
      isTest: event.isTest,
      type: event.type,
      paymentId: event.paymentId,
      body: event.body,
      sample: event.sample,
      occurredAt: event.occurredAt.toISOString(),
      createdAt: event.createdAt.toISOString(),
    });
    return Number(row?.deliveries ?? 0);
  },

  /**
   * `insertEventWithDeliveries` for many events in one statement (the settlement writes a block's worth of events in
   * its transaction): the events, one delivery per receiving endpoint of each event's merchant and mode (the same
   * delivery ids as the single form), and one wake-up for the workers. Returns the number of deliveries.
   * `exceptEndpoints[i]`, when set, is an endpoint that does not receive event `i` (the one the event is about).
   */
  async insertEventsWithDeliveries(
    db: Db,
    rows: EventRow[],
    exceptEndpoints: ReadonlyArray<string | null> = [],
  ): Promise<number> {
    if (rows.length === 0) return 0;
    const created = rows[0]?.createdAt.toISOString() ?? new Date().toISOString();
    const column = <T extends string | boolean | null>(pick: (row: EventRow) => T) => pgArray(rows.map(pick));
    // The common case (a block's payment events) skips the join.
    const excepting = exceptEndpoints.some((id) => id !== null);
    const exceptJoin = excepting ? sql`join input on input.id = event.id` : sql``;
    const exceptCondition = excepting ? sql`and e.id is distinct from input.except_endpoint` : sql``;
    const [row] = await queryRows<{ deliveries: string | number }>(
      db,
      sql`
      with input as (
        select * from unnest(${column((r) => r.id)}::text[], ${column((r) => r.merchantId)}::text[],
                             ${column((r) => r.isTest)}::boolean[], ${column((r) => r.type)}::text[],
                             ${column((r) => r.paymentId)}::text[], ${column((r) => r.body)}::text[],
                             ${column((r) => r.sample)}::boolean[],
                             ${column((r) => r.occurredAt.toISOString())}::timestamptz[],
                             ${pgArray(rows.map((_, index) => exceptEndpoints[index] ?? null))}::text[])
          as t(id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, except_endpoint)
      ), event as (
        insert into events (id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, created_at)
        select id, merchant_id, is_test, type, payment_id, body, sample, occurred_at, ${created}::timestamptz
        from input
        returning id, merchant_id, is_test
      ), deliveries as (
        insert into webhook_deliveries
          (id, event_id, endpoint_id, merchant_id, is_test, status, attempt_count, next_attempt_at, created_at, updated_at)
        select 'del_' || substr(md5(event.id || ':' || e.id), 1, 20), event.id, e.id, event.merchant_id, event.is_test,
          'pending', 0, ${created}::timestamptz, ${created}::timestamptz, ${created}::timestamptz
        from event ${exceptJoin}
        join webhook_endpoints e on e.merchant_id = event.merchant_id and e.is_test = event.is_test
                                and e.enabled and e.deleted_at is null ${exceptCondition}
        returning 1
      ), counted as (
        select count(*) as deliveries from deliveries
      ), notified as (
        select pg_notify(${DELIVERY_CHANNEL}, '') from counted where deliveries > 0
      ), announced as (
        select pg_notify(${EVENTS_COMMITTED_CHANNEL}, '')
      )
      select deliveries, (select count(*) from notified) as notified, (select count(*) from announced) as announced
      from counted`,
    );
    return Number(row?.deliveries ?? 0);
  },

  async insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await db.insert(webhookDeliveries).values(rows);
  },

  /** Wakes the delivery workers once the surrounding transaction commits. */
  async notifyWorkers(db: Db): Promise<void> {
    await notify(db, DELIVERY_CHANNEL);
  },

  async findEvent(
    db: Db,
    merchantId: string,
    isTest: boolean | undefined,
    id: string,
  ): Promise<EventRow | undefined> {
    const [row] = await db
      .select()
      .from(events)
      .where(
        and(
          eq(events.id, id),
          eq(events.merchantId, merchantId),
          isTest === undefined ? undefined : eq(events.isTest, isTest),
        ),
      )
      .limit(1);
    return row;
  },

  async listEvents(
    db: Db,
    filter: {
      merchantId: string;
      isTest: boolean | undefined;
      type?: string | undefined;
      paymentId?: string | undefined;
    },
    page: PageQuery,
  ): Promise<EventRow[]> {
    return db
      .select()
      .from(events)
      .where(
        and(
          eq(events.merchantId, filter.merchantId),
          filter.isTest === undefined ? undefined : eq(events.isTest, filter.isTest),
          eq(events.sample, false),
          filter.type === undefined ? undefined : eq(events.type, filter.type),
          filter.paymentId === undefined ? undefined : eq(events.paymentId, filter.paymentId),
          olderThan(events, page.after),
        ),
      )
      .orderBy(...newestEventsFirst)
      .limit(page.limit);
  },

  /**
   * The newest `limit` events of the payment another statement is reading (its merchant's and mode's, no samples),
   * newest first, as listEvents would list them: a part of that statement (see db/json-rows.ts).
   */
  eventsOfPaymentPart(payment: RowRefs<'id' | 'merchantId' | 'isTest'>, limit: number): ReadPart<EventRow[]> {
    return {
      sql: jsonRowsOf(events, {
        where: sql`${events.merchantId} = ${payment.merchantId} and ${events.paymentId} = ${payment.id}::text
                   and ${events.isTest} = ${payment.isTest} and not ${events.sample}`,
        orderBy: newestEventsFirst,
        limit,
      }),
      read: (value) => rowsFromJson(events, value),
    };
  },

  /** When each payment first reached a paid status (its first payment.confirmed or payment.overpaid event). */
  async firstPaidAt(db: Db, merchantId: string, paymentIds: string[]): Promise<Map<string, Date>> {
    const out = new Map<string, Date>();
    if (paymentIds.length === 0) return out;
    const rows = await queryRows<{ payment_id: string; at: string | Date }>(
      db,
      sql`select payment_id, min(occurred_at) as at from events
          where merchant_id = ${merchantId} and payment_id = any(${pgArray(paymentIds)}::text[])
            and type in ('payment.confirmed', 'payment.overpaid')
          group by payment_id`,
    );
    for (const row of rows) out.set(row.payment_id, new Date(row.at));
    return out;
  },

  /** A keyset page of a merchant's events of one mode for exports, oldest first, created in [from, to). */
  async exportPage(
    db: Db,
    filter: { merchantId: string; isTest: boolean; from?: Date | undefined; to?: Date | undefined },
    limit: number,
    after: { createdAt: Date; id: string } | undefined,
  ): Promise<EventRow[]> {
    return db
      .select()
      .from(events)
      .where(
        and(
          eq(events.merchantId, filter.merchantId),
          eq(events.isTest, filter.isTest),
          eq(events.sample, false),
          timeKeysetPage(
            events.createdAt,
            events.id,
            filter,
            after && { time: after.createdAt, id: after.id },
          ),
        ),
      )
      .orderBy(asc(events.createdAt), asc(events.id))
      .limit(limit);
  },

  async findDelivery(
    db: Db,
    merchantId: string,
    isTest: boolean | undefined,
    id: string,
  ): Promise<DeliveryRow | undefined> {
    const [row] = await db
      .select()
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.id, id),
          eq(webhookDeliveries.merchantId, merchantId),
          isTest === undefined ? undefined : eq(webhookDeliveries.isTest, isTest),
        ),
      )
      .limit(1);
    return row;
  },

  /** The deliveries of one endpoint, newest first, each with its event's type. */
  async listDeliveries(
    db: Db,
    endpointId: string,
    status: string | undefined,
    page: PageQuery,
  ): Promise<Array<DeliveryRow & { eventType: string }>> {
    const rows = await db
      .select({ delivery: webhookDeliveries, eventType: events.type })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(
        and(
          eq(webhookDeliveries.endpointId, endpointId),
          status === undefined ? undefined : eq(webhookDeliveries.status, status),
          olderThan(webhookDeliveries, page.after),
        ),
      )
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(page.limit);
    return rows.map((row) => ({ ...row.delivery, eventType: row.eventType }));
  },

  async eventTypes(db: Db, eventIds: string[]): Promise<Map<string, string>> {
    if (eventIds.length === 0) return new Map();
    const rows = await db
      .select({ id: events.id, type: events.type })
      .from(events)
      .where(inArray(events.id, eventIds));
    return new Map(rows.map((row) => [row.id, row.type]));
  },

  async attemptsOf(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return db
      .select()
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, deliveryIds))
      .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt), asc(webhookAttempts.startedAt));
  },

  /**
   * A fresh pending delivery (its own attempts) for every failed or canceled delivery of the endpoint created in
   * [since, until) that has not been redelivered already. Returns the new rows' ids.
   */
  async redeliverFailed(
    db: Db,
    input: { endpointId: string; since: Date; until: Date; now: Date; newId: () => string; max: number },
  ): Promise<string[]> {
    const failed = await db
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        merchantId: webhookDeliveries.merchantId,
        isTest: webhookDeliveries.isTest,
      })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.endpointId, input.endpointId),
          inArray(webhookDeliveries.status, ['failed', 'canceled']),
          sql`${webhookDeliveries.createdAt} >= ${input.since.toISOString()}::timestamptz`,
          sql`${webhookDeliveries.createdAt} < ${input.until.toISOString()}::timestamptz`,
          sql`not exists (select 1 from webhook_deliveries r where r.redelivery_of = ${webhookDeliveries.id})`,
        ),
      )
      .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
      .limit(input.max);
    const rows = failed.map((row) =>
      newDeliveryRow({
        ...row,
        id: input.newId(),
        endpointId: input.endpointId,
        now: input.now,
        redeliveryOf: row.id,
      }),
    );
    for (let start = 0; start < rows.length; start += 1000) {
      await db.insert(webhookDeliveries).values(rows.slice(start, start + 1000));
    }
    return rows.map((row) => row.id);
  },
};

/** A pending delivery, due at once. */
export function newDeliveryRow(input: {
  id: string;
  eventId: string;
  endpointId: string;
  merchantId: string;
  isTest: boolean;
  now: Date;
  redeliveryOf?: string | null;
}): DeliveryRow {
  return {
    id: input.id,
    eventId: input.eventId,
    endpointId: input.endpointId,
    merchantId: input.merchantId,
    isTest: input.isTest,
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: input.now,
    leaseToken: null,
    lastAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    redeliveryOf: input.redeliveryOf ?? null,
    createdAt: input.now,
    updatedAt: input.now,
    completedAt: null,
  };
}

export type EventsRepo = typeof eventsRepo;
