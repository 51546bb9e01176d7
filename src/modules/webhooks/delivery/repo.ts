import { sql } from 'drizzle-orm';
import { type Db, preparedStatement, queryRows } from '../../../db/client.ts';

/** A delivery a worker has claimed, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  merchantId: string;
  isTest: boolean;
  /** `pending` when it is to be sent now; `canceled` or `failed` when the claim closed it instead. */
  status: string;
  /** Not claimed after all: its endpoint's breaker is open, and the delivery waits for the endpoint's next probe. */
  deferred: boolean;
  /** The number of this attempt (1-based). */
  attempt: number;
  /** The lease token of a previous claim whose worker never reported back, if any. */
  lostToken: string | null;
  lostLeaseUntil: Date | null;
  url: string;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: Date | null;
  body: string;
}

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  success: boolean;
  responseBody: string | null;
  error: string | null;
}

export interface DeliveryOutcome {
  id: string;
  leaseToken: string;
  status: 'pending' | 'succeeded' | 'failed';
  /** When the next attempt is due; only for `pending`. */
  nextAttemptAt: Date | null;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
}

interface ClaimRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  merchant_id: string;
  is_test: boolean;
  status: string;
  deferred: boolean;
  attempt_count: number;
  lost_token: string | null;
  lost_lease_until: string | Date | null;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | Date | null;
  body: string;
}

const toDate = (value: string | Date | null): Date | null =>
  value === null ? null : value instanceof Date ? value : new Date(value);

const iso = (date: Date) => date.toISOString();

/** An endpoint whose breaker an outcome write opened (it keeps failing) or closed (a probe succeeded). */
export interface BreakerChange {
  endpointId: string;
  merchantId: string;
  isTest: boolean;
  url: string;
  kind: 'failing' | 'recovered';
  consecutiveFailures: number;
  /** When the breaker opened: now for `failing`, the time it had opened for `recovered`. */
  failingSince: Date;
  /** When the next probe goes out (`failing` only). */
  nextProbeAt: Date | null;
  at: Date;
}

interface BreakerChangeRow {
  id: string;
  merchant_id: string;
  is_test: boolean;
  url: string;
  opened: boolean;
  failures: number | string;
  failing_since: string | Date;
  next_probe_at: string | Date | null;
  at: string | Date;
}

/** The wait before a tripped endpoint's first probe; each failed probe doubles it, up to the maximum. */
export const BREAKER_FIRST_PROBE_MS = 5000;
const BREAKER_MAX_PROBE_MS = 10 * 60 * 1000;

/** deliveriesRepo.claim's statement, prepared: each worker runs it for every batch it takes (see claim). */
const claimStatement = preparedStatement<{
  now: string;
  leaseUntil: string;
  token: string;
  /** Due rows looked at: four times the limit, so that caps per endpoint and merchant still leave enough. */
  scan: number;
  limit: number;
  perEndpoint: number;
  perMerchant: number;
  /** What this worker holds per merchant, as a JSON object. */
  held: string;
  /** Endpoints and merchants not to take from (JSON arrays of ids). */
  skipEndpoints: string;
  skipMerchants: string;
  maxAttempts: number;
}>('webhook_deliveries_claim', (p) => {
  // The endpoint's breaker is open: only its first picked delivery, and only when its probe is due, goes out.
  const deferred = sql`(e.enabled and e.deleted_at is null and e.tripped_at is not null
      and (coalesce(e.next_probe_at, '-infinity') > ${p('now')}::timestamptz or picked.endpoint_rank > 1))`;
  const send = sql`(e.enabled and e.deleted_at is null and d.attempt_count < ${p('maxAttempts')}
      and not ${deferred})`;
  return sql`
      with due as (
        select d.id, d.endpoint_id, d.merchant_id, d.next_attempt_at, d.lease_token
        from webhook_deliveries d
        where d.status = 'pending' and d.next_attempt_at <= ${p('now')}::timestamptz
          and d.endpoint_id not in (select jsonb_array_elements_text(${p('skipEndpoints')}::jsonb))
          and d.merchant_id not in (select jsonb_array_elements_text(${p('skipMerchants')}::jsonb))
        order by d.next_attempt_at
        limit ${p('scan')}
        for update skip locked
      ),
      ranked as (
        select due.*, row_number() over (partition by endpoint_id order by next_attempt_at, id) as endpoint_rank
        from due
      ),
      turns as (
        select ranked.*, row_number() over (partition by merchant_id order by next_attempt_at, id) as turn
        from ranked
        where endpoint_rank <= ${p('perEndpoint')}
      ),
      picked as (
        select id, endpoint_id, next_attempt_at, lease_token, endpoint_rank
        from turns
        where turn <= ${p('perMerchant')} - coalesce((${p('held')}::jsonb ->> merchant_id)::int, 0)
        order by turn, next_attempt_at
        limit ${p('limit')}
      ),
      probing as (
        -- A tripped endpoint whose probe is due: its first picked delivery is the probe, and no other probe may
        -- start until its outcome sets the next time, or for the first wait at most (so deliveries put off while
        -- it is in flight, by a claim that raced its success, wait that long at most).
        update webhook_endpoints e set next_probe_at = least(${p('leaseUntil')}::timestamptz,
          ${p('now')}::timestamptz + ${sql.raw(`interval '${BREAKER_FIRST_PROBE_MS} milliseconds'`)})
        from picked
        where e.id = picked.endpoint_id and picked.endpoint_rank = 1 and e.tripped_at is not null
          and coalesce(e.next_probe_at, '-infinity') <= ${p('now')}::timestamptz
        returning e.id
      )
      update webhook_deliveries d set
        status = case
          when not (e.enabled and e.deleted_at is null) then 'canceled'
          when ${deferred} then 'pending'
          when d.attempt_count >= ${p('maxAttempts')} then 'failed'
          else 'pending' end,
        attempt_count = case when ${send} then d.attempt_count + 1 else d.attempt_count end,
        lease_token = case when ${send} then ${p('token')} when ${deferred} then d.lease_token else null end,
        next_attempt_at = case
          when ${send} then ${p('leaseUntil')}::timestamptz
          when ${deferred} then greatest(e.next_probe_at, ${p('now')}::timestamptz + interval '1 second')
          else d.next_attempt_at end,
        completed_at = case when ${send} or ${deferred} then null else ${p('now')}::timestamptz end,
        last_error = case
          when not (e.enabled and e.deleted_at is null) then 'The endpoint was disabled or deleted.'
          when ${deferred} then d.last_error
          when d.attempt_count >= ${p('maxAttempts')}
          then 'The worker sending the last attempt stopped before it finished.'
          else d.last_error end,
        updated_at = ${p('now')}::timestamptz
      from picked, webhook_endpoints e, events ev
      where d.id = picked.id and e.id = d.endpoint_id and ev.id = d.event_id
      returning d.id, d.event_id, d.endpoint_id, d.merchant_id, d.is_test, d.status, d.attempt_count,
        (${deferred}) as deferred,
        picked.lease_token as lost_token, picked.next_attempt_at as lost_lease_until,
        e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at, ev.body`;
});

/** deliveriesRepo.record's statement, prepared: written for every batch of outcomes (see record). */
const recordStatement = preparedStatement<{ outcomes: string; attempts: string; threshold: number }>(
  'webhook_deliveries_record',
  (p) => sql`
      with outcome as (
        select * from jsonb_to_recordset(${p('outcomes')}::jsonb) as o(
          id text, token text, status text, next_at timestamptz, attempted_at timestamptz, status_code int,
          error text)
      ),
      per_endpoint as (
        select d.endpoint_id, bool_or(o.status = 'succeeded') as ok,
          count(*) filter (where o.status <> 'succeeded')::int as failures, max(o.attempted_at) as at
        from outcome o join webhook_deliveries d on d.id = o.id and d.lease_token = o.token
        group by d.endpoint_id
      ),
      breaker as (
        -- "before" is the row as the statement found it: a breaker that opens or closes here is told apart from
        -- one that stays as it was.
        update webhook_endpoints e set
          consecutive_failures = case when p.ok then 0 else e.consecutive_failures + p.failures end,
          tripped_at = case
            when p.ok then null
            when e.consecutive_failures + p.failures >= ${p('threshold')} then coalesce(e.tripped_at, p.at)
            else e.tripped_at end,
          next_probe_at = case
            when p.ok then null
            when e.consecutive_failures + p.failures >= ${p('threshold')} then p.at + least(
              ${sql.raw(`interval '${BREAKER_MAX_PROBE_MS} milliseconds'`)},
              greatest(${sql.raw(`interval '${BREAKER_FIRST_PROBE_MS} milliseconds'`)}, p.at - coalesce(e.tripped_at, p.at)))
            else e.next_probe_at end
        from per_endpoint p, webhook_endpoints before
        where e.id = p.endpoint_id and before.id = e.id
          and (not p.ok or e.consecutive_failures > 0 or e.tripped_at is not null)
        returning e.id, e.merchant_id, e.is_test, e.url, e.tripped_at is not null as opened,
          before.tripped_at is not null as was_open, e.consecutive_failures as failures,
          coalesce(e.tripped_at, before.tripped_at) as failing_since, e.next_probe_at, p.at
      ),
      released as (
        -- A breaker that closes: the deliveries that were put off for its probes are due again at once.
        update webhook_deliveries w set next_attempt_at = p.at
        from per_endpoint p, webhook_endpoints e
        where p.ok and e.id = p.endpoint_id and e.tripped_at is not null and w.endpoint_id = p.endpoint_id
          and w.status = 'pending' and w.lease_token is null and w.next_attempt_at > p.at
        returning w.id
      ),
      inserted as (
        insert into webhook_attempts
          (id, delivery_id, attempt, started_at, duration_ms, status_code, success, response_body, error)
        select id, delivery_id, attempt, started_at, duration_ms, status_code, success, response_body, error
        from jsonb_to_recordset(${p('attempts')}::jsonb) as a(
          id text, delivery_id text, attempt int, started_at timestamptz, duration_ms int, status_code int,
          success boolean, response_body text, error text)
        returning 1
      ),
      written as (
        update webhook_deliveries d set
          status = o.status,
          next_attempt_at = coalesce(o.next_at, d.next_attempt_at),
          lease_token = null,
          last_attempt_at = o.attempted_at,
          last_status_code = o.status_code,
          last_error = o.error,
          completed_at = case when o.status = 'pending' then null else o.attempted_at end,
          updated_at = o.attempted_at
        from outcome o
        where d.id = o.id and d.lease_token = o.token
        returning 1
      )
      select id, merchant_id, is_test, url, opened, failures, failing_since, next_probe_at, at from breaker
      where opened <> was_open`,
);

/** The SQL of the delivery worker: claim with a lease, record outcomes, give back unstarted claims. */
export const deliveriesRepo = {
  /** The outbox's backlog: deliveries not yet done, and when the oldest of them was created (metrics). */
  async pendingStats(db: Db): Promise<{ pending: number; oldest: Date | null }> {
    const [row] = await queryRows<{ pending: string | number; oldest: Date | string | null }>(
      db,
      sql`select count(*) as pending, min(created_at) as oldest from webhook_deliveries where status = 'pending'`,
    );
    return {
      pending: Number(row?.pending ?? 0),
      oldest: row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest),
    };
  },

  /**
   * Drops the stored response bodies of at most `limit` attempts made before `before` (retention; the attempt itself,
   * its status and timing stay). Returns how many were cleared.
   */
  async purgeAttemptBodies(db: Db, before: Date, limit: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`update webhook_attempts set response_body = null where id in (
            select id from webhook_attempts
            where response_body is not null and started_at < ${before.toISOString()}::timestamptz
            order by started_at limit ${limit} for update skip locked)
          returning id`,
    );
    return rows.length;
  },

  /**
   * Claims up to `limit` due deliveries under a fresh lease, at most `perEndpoint` of any one endpoint, none of the
   * `skipEndpoints` (already busy in this worker), and per merchant at most what `merchantRoom` leaves it (its cap
   * less what this worker holds for it; merchants with no room left are not scanned at all). Merchants take turns:
   * the claim takes every merchant's oldest due delivery, then every merchant's second, and so on, so one merchant's
   * backlog cannot fill the batch ahead of another's fresh event. `FOR UPDATE SKIP LOCKED` lets any number of workers claim
   * at once without waiting for or double-claiming each other's rows; the claim moves `next_attempt_at` to the end
   * of the lease, so if this worker dies the rows come due again then. Deliveries of an endpoint that was disabled
   * or deleted are closed as `canceled` instead, and ones that already used every attempt (their last worker died
   * mid-attempt) as `failed`.
   */
  async claim(
    db: Db,
    input: {
      now: Date;
      leaseUntil: Date;
      token: string;
      limit: number;
      perEndpoint: number;
      skipEndpoints: string[];
      /** Deliveries any one merchant may have claimed by this worker at once. */
      perMerchant: number;
      /** What this worker already holds per merchant (claimed, not yet finished); merchants absent hold none. */
      merchantLoad: ReadonlyMap<string, number>;
      maxAttempts: number;
    },
  ): Promise<ClaimedDelivery[]> {
    const full = [...input.merchantLoad].filter(([, held]) => held >= input.perMerchant).map(([id]) => id);
    const rows = await claimStatement<ClaimRow>(db, {
      now: iso(input.now),
      leaseUntil: iso(input.leaseUntil),
      token: input.token,
      scan: input.limit * 4,
      limit: input.limit,
      perEndpoint: input.perEndpoint,
      perMerchant: input.perMerchant,
      held: JSON.stringify(Object.fromEntries(input.merchantLoad)),
      skipEndpoints: JSON.stringify(input.skipEndpoints),
      skipMerchants: JSON.stringify(full),
      maxAttempts: input.maxAttempts,
    });
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      endpointId: row.endpoint_id,
      merchantId: row.merchant_id,
      isTest: row.is_test,
      status: row.status,
      deferred: row.deferred,
      attempt: Number(row.attempt_count),
      lostToken: row.lost_token,
      lostLeaseUntil: row.lost_token === null ? null : toDate(row.lost_lease_until),
      url: row.url,
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: toDate(row.previous_secret_expires_at),
      body: row.body,
    }));
  },

  /**
   * Writes attempts and outcomes in one statement. An outcome changes its delivery only while the delivery still
   * carries the lease it was sent under, so a worker that lost its lease cannot overwrite a newer claim.
   *
   * The same statement keeps each endpoint's circuit breaker: a success resets its count of failures in a row (and
   * closes a tripped breaker); failures add to it, and at `breakerFailures` the breaker trips: from then on one
   * probe at a time is sent, the first `BREAKER_FIRST_PROBE_MS` later, then after as long again as the breaker has
   * been open (so the waits double: 5 s, 10 s, 20 s, …, at most `BREAKER_MAX_PROBE_MS`). Endpoints that only
   * succeed are not written. Returns the endpoints whose breaker this write opened or closed, so that the caller can
   * announce them in the same transaction.
   */
  async record(
    db: Db,
    attempts: AttemptRecord[],
    outcomes: DeliveryOutcome[],
    breakerFailures = Number.POSITIVE_INFINITY,
  ): Promise<BreakerChange[]> {
    const threshold = Number.isFinite(breakerFailures) ? breakerFailures : 2_000_000_000;
    const attemptJson = JSON.stringify(
      attempts.map((a) => ({
        id: a.id,
        delivery_id: a.deliveryId,
        attempt: a.attempt,
        started_at: iso(a.startedAt),
        duration_ms: Math.max(0, Math.round(a.durationMs)),
        status_code: a.statusCode,
        success: a.success,
        response_body: a.responseBody,
        error: a.error,
      })),
    );
    const outcomeJson = JSON.stringify(
      outcomes.map((o) => ({
        id: o.id,
        token: o.leaseToken,
        status: o.status,
        next_at: o.nextAttemptAt === null ? null : iso(o.nextAttemptAt),
        attempted_at: iso(o.attemptedAt),
        status_code: o.statusCode,
        error: o.error,
      })),
    );
    const changes = await recordStatement<BreakerChangeRow>(db, {
      outcomes: outcomeJson,
      attempts: attemptJson,
      threshold,
    });
    return changes.map((row) => ({
      endpointId: row.id,
      merchantId: row.merchant_id,
      isTest: row.is_test,
      url: row.url,
      kind: row.opened ? 'failing' : 'recovered',
      consecutiveFailures: Number(row.failures),
      failingSince: toDate(row.failing_since) ?? new Date(0),
      nextProbeAt: row.opened ? toDate(row.next_probe_at) : null,
      at: toDate(row.at) ?? new Date(0),
    }));
  },

  /** Gives back claims that were never started (a worker stopping): due at once, the attempt not counted. */
  async release(db: Db, claims: Array<{ id: string; leaseToken: string }>, now: Date): Promise<void> {
    if (claims.length === 0) return;
    await db.execute(sql`
      update webhook_deliveries d set
        attempt_count = d.attempt_count - 1, lease_token = null, next_attempt_at = ${iso(now)}::timestamptz,
        updated_at = ${iso(now)}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(claims)}::jsonb) as c(id text, "leaseToken" text)
      where d.id = c.id and d.lease_token = c."leaseToken"`);
  },

  /** When the earliest pending delivery comes due, if any. */
  async nextDue(db: Db): Promise<Date | null> {
    const [row] = await queryRows<{ at: string | Date | null }>(
      db,
      sql`select min(next_attempt_at) as at from webhook_deliveries where status = 'pending'`,
    );
    return toDate(row?.at ?? null);
  },
};
