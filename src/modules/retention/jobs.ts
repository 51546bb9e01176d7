import type { Logger } from 'pino';
import type { Clock } from '../../lib/clock.ts';

/**
 * Retention: rows that grow with traffic and are not money (idempotency keys, stored webhook response bodies,
 * events with their deliveries and attempts) are deleted once older than their configured age. Payments, deposits
 * and forwards are never deleted. Each kind belongs to its module, which deletes its own rows (this job only
 * schedules): a batch is one short statement of at most `batchSize` rows, oldest first, skipping rows another process
 * holds (so several processes may run it at once), with a pause between batches so that it never stalls the API or
 * the embedded engine's one connection.
 */
export interface RetentionKind {
  name: string;
  /** How long rows are kept (ms); null keeps them forever. */
  keepMs: number | null;
  /** Deletes at most `limit` rows older than `before`; returns how many it deleted. */
  purge(before: Date, limit: number): Promise<number>;
}

interface RetentionRun {
  /** Rows deleted (or cleared) per kind, and the batches it took. */
  deleted: Record<string, number>;
  batches: number;
}

export interface RetentionJob {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One full pass over every kind (what each scheduled round runs). */
  runOnce(): Promise<RetentionRun>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRetentionJob(deps: {
  kinds: RetentionKind[];
  clock: Clock;
  logger?: Logger | undefined;
  /** Between passes (default 10 minutes); the first pass runs shortly after start. */
  intervalMs?: number;
  firstDelayMs?: number;
  /** Rows per statement (default 500). */
  batchSize?: number;
  /** Pause between two batches (default 25 ms): other work runs in between. */
  pauseMs?: number;
}): RetentionJob {
  const intervalMs = deps.intervalMs ?? 10 * 60_000;
  const batchSize = deps.batchSize ?? 500;
  const pauseMs = deps.pauseMs ?? 25;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  let stopRequested = false;

  async function runOnce(): Promise<RetentionRun> {
    const run: RetentionRun = { deleted: {}, batches: 0 };
    for (const kind of deps.kinds) {
      if (kind.keepMs === null) continue;
      // One cutoff per pass: rows that age meanwhile wait for the next pass instead of prolonging this one.
      const before = new Date(deps.clock.now().getTime() - kind.keepMs);
      let total = 0;
      for (;;) {
        // A stop waits for the batch in flight only, not for the rest of the pass.
        if (stopRequested) break;
        const count = await kind.purge(before, batchSize);
        run.batches += 1;
        total += count;
        if (count < batchSize) break;
        await sleep(pauseMs);
      }
      run.deleted[kind.name] = total;
    }
    return run;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      running = runOnce()
        .then((run) => {
          const deleted = Object.values(run.deleted).reduce((sum, count) => sum + count, 0);
          if (deleted > 0)
            deps.logger?.info({ ...run.deleted, batches: run.batches }, 'retention: old rows deleted');
        })
        .catch((error: unknown) =>
          deps.logger?.warn({ err: error }, 'retention pass failed; retried next time'),
        )
        .finally(() => {
          running = undefined;
          schedule(intervalMs);
        });
    }, delayMs);
    timer.unref();
  }

  return {
    runOnce,
    async start() {
      if (!stopped) return;
      stopped = false;
      stopRequested = false;
      schedule(deps.firstDelayMs ?? 30_000);
    },
    async stop() {
      stopped = true;
      stopRequested = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
