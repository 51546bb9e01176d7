import { sql } from 'drizzle-orm';
import { pgArray } from '../../../db/arrays.ts';
import { type Db, preparedStatement, queryRows } from '../../../db/client.ts';

/** The hubs of processes serving streams LISTEN here: which merchants and modes have newly sequenced events. */
export const STREAM_CHANNEL = 'svc_event_stream';

/** A NOTIFY payload has at most 8000 bytes: past this many, every stream looks instead of the ones named. */
const MAX_PAYLOAD = 7000;

/** One sequenced event as the sequencer reports it (for the wake-ups and the metrics). */
export interface SequencedEvent {
  merchantId: string;
  isTest: boolean;
  type: string;
  /** The payment's chain for payment events (read from the body), else null. */
  chain: string | null;
  createdAt: Date;
}

/** One event as a stream sends it: its id, type, exact body, and its position. */
export interface StreamedEvent {
  id: string;
  type: string;
  body: string;
  seq: number;
}

interface SequencedRow {
  merchant_id: string;
  is_test: boolean;
  type: string;
  chain: string | null;
  created_at: Date | string;
}

interface StreamedRow {
  id: string;
  type: string;
  body: string;
  stream_seq: string | number;
}

/**
 * The sequencer's two statements (streamRepo.sequence), prepared: it runs them for every batch of committed events,
 * as often as events come, and PostgreSQL took longer to plan the second than to run it.
 */
const lockHeadStatement = preparedStatement<Record<string, never>>(
  'event_stream_lock_head',
  () => sql`select seq from event_stream_head where id = 1 for update`,
);
const sequenceStatement = preparedStatement<{ limit: number; base: number }>(
  'event_stream_sequence',
  (p) => sql`
      with waiting as (
        select id, created_at from events
        where stream_seq is null and not sample
        order by created_at, id
        limit ${p('limit')}
        for update skip locked
      ), numbered as (
        select id, row_number() over (order by created_at, id) as n from waiting
      ), sequenced as (
        update events e set stream_seq = ${p('base')} + numbered.n
        from numbered where e.id = numbered.id
        returning e.merchant_id, e.is_test, e.type, e.created_at,
          case when e.type like 'payment.%' then e.body::jsonb ->> 'chain' end as chain
      ), moved as (
        update event_stream_head set seq = ${p('base')} + (select count(*) from numbered) where id = 1
        returning seq
      ), keys as (
        select string_agg(distinct merchant_id || ':' || case when is_test then 't' else 'l' end, ',') as payload
        from sequenced
      ), announced as (
        select pg_notify(${STREAM_CHANNEL}, case when length(payload) > ${MAX_PAYLOAD} then '*' else payload end)
        from keys where payload is not null
      )
      select merchant_id, is_test, type, chain, created_at,
        (select count(*) from moved) as moved, (select count(*) from announced) as announced
      from sequenced`,
);

/** All SQL of the live event stream (GET /v1/events/stream) over the events table of this module. */
export const streamRepo = {
  /**
   * Gives the oldest `limit` committed events without a position theirs, in creation order, inside the caller's
   * transaction `tx`. The head row is locked first in a statement of its own: in READ COMMITTED the next statement
   * then sees every event committed before the lock was granted, including those of the sequencer that held it, so
   * two sequencers never number the same event and positions grow in the order sequencers commit. The streams of the
   * merchants and modes numbered are woken at commit.
   */
  async sequence(tx: Db, limit: number): Promise<SequencedEvent[]> {
    const [head] = await lockHeadStatement<{ seq: string | number }>(tx, {});
    if (head === undefined) throw new Error('event_stream_head has no row: migrations not applied?');
    const base = Number(head.seq);
    // The NOTIFY (sent at commit) names the merchants and modes numbered, `<merchant>:t|l` joined by commas, or '*'
    // when they would not fit in a notification's 8000 bytes.
    const rows = await sequenceStatement<SequencedRow>(tx, { limit, base });
    return rows.map((row) => ({
      merchantId: row.merchant_id,
      isTest: row.is_test,
      type: row.type,
      chain: row.chain,
      createdAt: new Date(row.created_at),
    }));
  },

  /** The newest position among a merchant's events in a mode: a stream opened now sends what comes after it. */
  async head(db: Db, merchantId: string, isTest: boolean): Promise<number> {
    const [row] = await queryRows<{ seq: string | number | null }>(
      db,
      sql`select max(stream_seq) as seq from events where merchant_id = ${merchantId} and is_test = ${isTest}`,
    );
    return Number(row?.seq ?? 0);
  },

  /** The position of one of the merchant's events in a mode; undefined when there is no such event. */
  async positionOf(
    db: Db,
    merchantId: string,
    isTest: boolean,
    eventId: string,
  ): Promise<number | null | undefined> {
    const [row] = await queryRows<{ stream_seq: string | number | null }>(
      db,
      sql`select stream_seq from events
          where id = ${eventId} and merchant_id = ${merchantId} and is_test = ${isTest} and not sample`,
    );
    if (row === undefined) return undefined;
    return row.stream_seq === null ? null : Number(row.stream_seq);
  },

  /** The merchant's events in a mode after position `after`, in order, at most `limit` (of `types`, if given). */
  async after(
    db: Db,
    query: {
      merchantId: string;
      isTest: boolean;
      after: number;
      types: readonly string[] | undefined;
      limit: number;
    },
  ): Promise<StreamedEvent[]> {
    const typeFilter =
      query.types === undefined ? sql`` : sql`and type = any(${pgArray([...query.types])}::text[])`;
    const rows = await queryRows<StreamedRow>(
      db,
      sql`select id, type, body, stream_seq from events
          where merchant_id = ${query.merchantId} and is_test = ${query.isTest} and stream_seq > ${query.after}
          ${typeFilter}
          order by stream_seq
          limit ${query.limit}`,
    );
    return rows.map((row) => ({ id: row.id, type: row.type, body: row.body, seq: Number(row.stream_seq) }));
  },

  /** Committed events still waiting for a position, and the age of the oldest (the sequencer's backlog). */
  async backlog(db: Db): Promise<{ count: number; oldest: Date | null }> {
    const [row] = await queryRows<{ count: string | number; oldest: Date | string | null }>(
      db,
      sql`select count(*) as count, min(created_at) as oldest from events where stream_seq is null and not sample`,
    );
    return {
      count: Number(row?.count ?? 0),
      oldest: row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest),
    };
  },
};

export type StreamRepo = typeof streamRepo;
