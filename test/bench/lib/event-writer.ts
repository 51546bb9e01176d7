import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/db/client.ts';
import type { EventsService } from '../../../src/modules/webhooks/events/service.ts';
import { eventSnapshot } from './webhook-bench.ts';

/** The bare stream's wake-up: the writer names each event once it has committed. */
export const BARE_CHANNEL = 'bench_bare_stream';

const now = () => performance.timeOrigin + performance.now();

/**
 * Writes the event-stream bench's events as settlement does: the events service's own outbox statement (alone, it
 * commits as it returns), then a NOTIFY naming the event for the bare stream. Both sides of the bench get the same
 * writes. On PGlite it runs in the server's process (the engine is there); on PostgreSQL in the bench's own.
 */
export function createEventWriter(database: Database, events: EventsService, merchantId: string) {
  let serial = 0;
  const input = () => {
    serial += 1;
    return {
      merchantId,
      type: 'payment.confirmed' as const,
      payment: eventSnapshot(serial),
      occurredAt: new Date(),
    };
  };
  return {
    /** `count` events committed in one transaction. */
    async stage(count: number): Promise<void> {
      await database.db.transaction(async (tx) => {
        const { eventIds } = await events.recordPaymentEvents(
          tx,
          Array.from({ length: count }, () => input()),
        );
        for (const id of eventIds) await tx.execute(sql`select pg_notify(${BARE_CHANNEL}, ${id})`);
      });
    },
    /** `total` events at `rate` a second, each its own statement; when each committed (epoch ms, high resolution). */
    async emit(
      rate: number,
      total: number,
    ): Promise<{ committed: Array<[string, number]>; achievedRate: number }> {
      const committed: Array<[string, number]> = [];
      const started = performance.now();
      const pending = new Set<Promise<void>>();
      let emitted = 0;
      while (emitted < total) {
        const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000));
        for (; emitted < due; emitted++) {
          const job = events.recordPaymentEvent(database.db, input()).then(async ({ eventId }) => {
            committed.push([eventId, now()]);
            await database.db.execute(sql`select pg_notify(${BARE_CHANNEL}, ${eventId})`);
          });
          pending.add(job);
          void job.finally(() => pending.delete(job));
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await Promise.all(pending);
      return { committed, achievedRate: total / ((performance.now() - started) / 1000) };
    },
  };
}
