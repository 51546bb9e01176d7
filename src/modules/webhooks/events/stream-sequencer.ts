import type { Logger } from 'pino';
import type { Database } from '../../../db/client.ts';
import { listen } from '../../../db/notify.ts';
import { EVENTS_COMMITTED_CHANNEL } from './repo.ts';
import type { SequencedEvent, StreamRepo } from './stream-repo.ts';

export interface StreamSequencerDeps {
  database: Database;
  repo: StreamRepo;
  logger?: Logger | undefined;
  /** Events numbered per transaction. */
  batchSize?: number;
  /** A look without a wake-up, in case one was lost (the LISTEN connection's drop is noticed by itself). */
  safetyPollMs?: number;
  /** Told of every batch once it committed (the metrics count events by type and chain here: each exactly once). */
  onSequenced?: (events: SequencedEvent[]) => void;
}

/** The keys a stream hub wakes streams by: merchant id and mode (as the sequencer's NOTIFY names them). */
export function streamKey(merchantId: string, isTest: boolean): string {
  return `${merchantId}:${isTest ? 't' : 'l'}`;
}

/**
 * Gives committed events their position in the live event stream, woken by the NOTIFY every event insert sends at
 * commit. Positions are handed out after the commit, in turns (a locked head row), so they grow in the order
 * events became visible: a stream that resumes after position N cannot miss an event that was still uncommitted
 * when N was sent. Any number of processes may run one; each batch then wakes the streams of its merchants.
 */
export function createStreamSequencer(deps: StreamSequencerDeps) {
  const { database, repo } = deps;
  const batchSize = deps.batchSize ?? 1000;
  const safetyPollMs = deps.safetyPollMs ?? 5000;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let unlisten: (() => Promise<void>) | undefined;
  let timer: NodeJS.Timeout | undefined;
  let failure: string | null = null;

  async function drain(): Promise<void> {
    for (;;) {
      again = false;
      const batch = await database.db.transaction((tx) => repo.sequence(tx, batchSize));
      if (batch.length > 0) deps.onSequenced?.(batch);
      if (batch.length < batchSize && !again) return;
    }
  }

  /** One run at a time; a wake-up during a run makes one more run after it. */
  function wake(): void {
    if (stopped) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    running = drain()
      .then(
        () => {
          failure = null;
        },
        (error: unknown) => {
          failure = `event stream sequencer: ${error instanceof Error ? error.message : String(error)}`;
          deps.logger?.error({ err: error }, 'event stream sequencing failed; retrying');
        },
      )
      .finally(() => {
        running = undefined;
        if (again) wake();
      });
  }

  function schedulePoll(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      wake();
      schedulePoll();
    }, safetyPollMs);
    timer.unref();
  }

  return {
    async start(): Promise<void> {
      stopped = false;
      unlisten = await listen(database, EVENTS_COMMITTED_CHANNEL, () => wake(), deps.logger);
      wake();
      schedulePoll();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await unlisten?.();
      await running;
    },
    async readiness(): Promise<string | null> {
      return failure;
    },
    /** Runs until nothing waits (tests, and the bench's bare baseline). */
    async drainNow(): Promise<void> {
      await drain();
    },
  };
}

export type StreamSequencer = ReturnType<typeof createStreamSequencer>;
