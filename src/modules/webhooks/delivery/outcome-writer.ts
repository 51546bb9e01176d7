import type { Logger } from 'pino';
import type { Db } from '../../../db/client.ts';
import { type AttemptRecord, type BreakerChange, type DeliveryOutcome, deliveriesRepo } from './repo.ts';

/** Outcomes written in one statement before waiting for more is pointless. */
const FLUSH_BATCH = 50;
/** How long a partial batch of outcomes waits for company while sends are in flight. */
const FLUSH_DELAY_MS = 2;
/** Rows per statement at most. */
const WRITE_CHUNK = 1000;

/**
 * Records attempts and outcomes in batches: at once when a batch is full or nothing else is in flight, else after a
 * moment so that more can join; whatever piles up while a batch is being written goes next. A failed write is
 * retried; a worker stopping with the database gone drops its unwritten outcomes (their leases run out and another
 * worker sends them again). Each batch is one transaction, in which the breakers it opens or closes are announced.
 */
export function createOutcomeWriter(deps: {
  db: Db;
  logger?: Logger | undefined;
  /** Failed attempts in a row that trip an endpoint's breaker (repo.record). */
  breakerFailures?: number | undefined;
  /** Writes the events of endpoints whose breaker a batch opened or closed, in the batch's transaction. */
  announceBreakerChanges(tx: Db, changes: BreakerChange[]): Promise<unknown>;
  /** Whether to write now rather than wait for company (nothing else in flight, or stopping). */
  writeNow(): boolean;
  /** Whether the worker is stopping with nothing in flight: unwritten outcomes are then dropped after a failure. */
  givingUp(): boolean;
  /** After each batch is stored: the worker frees their capacity and schedules their retries. */
  written(outcomes: readonly DeliveryOutcome[]): void;
  /** Outcomes dropped while giving up. */
  dropped(count: number): void;
}) {
  const attempts: AttemptRecord[] = [];
  const outcomes: DeliveryOutcome[] = [];
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  function write(): void {
    if (writing !== undefined) return;
    writing = (async () => {
      while (attempts.length > 0 || outcomes.length > 0) {
        const attemptBatch = attempts.splice(0, WRITE_CHUNK);
        const outcomeBatch = outcomes.splice(0, WRITE_CHUNK);
        try {
          await deps.db.transaction(async (tx) => {
            const changes = await deliveriesRepo.record(tx, attemptBatch, outcomeBatch, deps.breakerFailures);
            if (changes.length > 0) await deps.announceBreakerChanges(tx, changes);
          });
          deps.written(outcomeBatch);
        } catch (error) {
          deps.logger?.error({ err: error }, 'webhook outcome write failed; retrying');
          attempts.unshift(...attemptBatch);
          outcomes.unshift(...outcomeBatch);
          await new Promise((resolve) => setTimeout(resolve, 500));
          if (deps.givingUp()) {
            deps.dropped(outcomes.length);
            attempts.length = 0;
            outcomes.length = 0;
          }
        }
      }
    })().finally(() => {
      writing = undefined;
    });
  }

  function flush(): void {
    if (writing !== undefined || timer !== undefined) return;
    if (outcomes.length >= FLUSH_BATCH || deps.writeNow()) {
      write();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      write();
    }, FLUSH_DELAY_MS);
  }

  return {
    /** Queues one attempt and its outcome, written with the next batch. */
    add(attempt: AttemptRecord, outcome: DeliveryOutcome): void {
      attempts.push(attempt);
      outcomes.push(outcome);
      flush();
    },
    /** Queues an attempt alone (one a stopped worker never recorded), written with the next batch. */
    addAttempt(attempt: AttemptRecord): void {
      attempts.push(attempt);
      flush();
    },
    /** Writes everything queued now and waits until it is stored (or dropped). */
    async drain(): Promise<void> {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      write();
      while (writing !== undefined) await writing;
    },
  };
}
