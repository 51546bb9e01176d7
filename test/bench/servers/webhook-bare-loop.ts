/**
 * Child process of the `webhook-delivery` scenario: the bare baseline of delivery. A tight loop on the same tables
 * as the real worker: claim a batch with FOR UPDATE SKIP LOCKED, sign (both schemes, secrets already in memory),
 * POST each with undici `request` on one pooled agent, mark the successes in one UPDATE. No per-endpoint caps, no
 * retries or attempt log, no SSRF guard, no secret decryption, no NOTIFY (it polls every millisecond when idle).
 */
import { createHmac } from 'node:crypto';
import pg from 'pg';
import { Agent, request } from 'undici';
import { reportError, reportReady } from '../lib/child.ts';

export interface BareLoopTarget {
  url: string;
  /** Endpoint id → its URL and signing secret in plain text. */
  endpoints: Record<string, { url: string; secret: string }>;
  batch: number;
}

export interface BareLoopReady {
  pid: number;
}

async function main(): Promise<void> {
  const target = JSON.parse(process.env.BENCH_TARGET ?? '{}') as BareLoopTarget;
  const pool = new pg.Pool({ connectionString: target.url, max: 4 });
  const agent = new Agent({ connections: target.batch, pipelining: 1 });
  let running = true;

  const send = async (row: { id: string; endpoint_id: string; event_id: string; body: string }) => {
    const endpoint = target.endpoints[row.endpoint_id];
    if (endpoint === undefined) return false;
    const now = new Date();
    const seconds = Math.floor(now.getTime() / 1000);
    const key = Buffer.from(endpoint.secret.slice('whsec_'.length), 'base64');
    try {
      const response = await request(endpoint.url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'x-service-event-id': row.event_id,
          'x-service-timestamp': now.toISOString(),
          'x-service-signature': `sha256=${createHmac('sha256', endpoint.secret).update(row.body).digest('hex')}`,
          'webhook-id': row.event_id,
          'webhook-timestamp': String(seconds),
          'webhook-signature': `v1,${createHmac('sha256', key).update(`${row.event_id}.${seconds}.${row.body}`).digest('base64')}`,
        },
        body: row.body,
        headersTimeout: 5000,
        bodyTimeout: 5000,
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300;
    } catch {
      return false;
    }
  };

  const loop = async () => {
    while (running) {
      const { rows } = await pool.query<{ id: string; endpoint_id: string; event_id: string; body: string }>(
        `with due as (
           select id from webhook_deliveries
           where status = 'pending' and next_attempt_at <= now()
           order by next_attempt_at limit $1 for update skip locked)
         update webhook_deliveries d
           set lease_token = 'bare', next_attempt_at = now() + interval '1 minute', attempt_count = d.attempt_count + 1
         from due, events e where d.id = due.id and e.id = d.event_id
         returning d.id, d.endpoint_id, d.event_id, e.body`,
        [target.batch],
      );
      if (rows.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        continue;
      }
      const results = await Promise.all(rows.map(send));
      const done = rows.filter((_row, index) => results[index]).map((row) => row.id);
      await pool.query(
        `update webhook_deliveries set status = 'succeeded', lease_token = null, completed_at = now(), updated_at = now()
         where id = any($1)`,
        [done],
      );
    }
  };

  const stopped = loop();
  const stop = async () => {
    running = false;
    await stopped.catch(() => {});
    await agent.close();
    await pool.end();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('disconnect', () => void stop());
  reportReady<BareLoopReady>({ pid: process.pid });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
