import type { Logger } from 'pino';
import type { Database } from '../../../db/client.ts';
import { listen, MISSED_NOTIFICATIONS } from '../../../db/notify.ts';
import { AppError } from '../../../lib/errors.ts';
import type { Principal } from '../../tenancy/caller.ts';
import { STREAM_CHANNEL, type StreamedEvent, type StreamRepo } from './stream-repo.ts';
import { streamKey } from './stream-sequencer.ts';

/** What a stream sends: an event, or a heartbeat that keeps idle connections (and proxies) open. */
export type StreamItem = { kind: 'event'; event: StreamedEvent } | { kind: 'heartbeat' };

/** One client connection, as the route adapts it: the service decides what to send and when. */
export interface StreamSink {
  /** Sends one item; false when the client's buffer is full (then wait for `drained` before sending more). */
  send(item: StreamItem): boolean;
  /** Resolves once the client has taken what was buffered, or the connection closed. */
  drained(): Promise<void>;
  /** Ends the connection (the service is shutting down, or the stream failed). */
  end(): void;
}

export interface EventStreamsDeps {
  database: Database;
  repo: StreamRepo;
  /** Streams one merchant may hold open in this process, both modes together. */
  maxPerMerchant: number;
  heartbeatMs: number;
  /** Events read per query while catching up. */
  pageSize?: number;
  logger?: Logger | undefined;
}

export interface OpenStreamInput {
  /** The id of the last event the client received (`Last-Event-ID`): the stream resumes right after it. */
  lastEventId?: string | undefined;
  /** Only these event types (all when unset). */
  types?: readonly string[] | undefined;
}

interface OpenStream {
  merchantId: string;
  key: string;
  isTest: boolean;
  types: readonly string[] | undefined;
  cursor: number;
  sink: StreamSink;
  pulling: boolean;
  again: boolean;
  closed: boolean;
  heartbeat: NodeJS.Timeout | undefined;
}

/** How long a resume waits for its event's stream position (given within milliseconds of its commit). */
const POSITION_WAIT_MS = 2000;

/**
 * The live event stream (GET /v1/events/stream): each open stream sends its merchant's events of its key's mode, once
 * each, in stream order, from where it opened or resumed. One LISTEN per process (opened with the first stream)
 * wakes only the streams of the merchants whose events were just sequenced; every heartbeat also looks, in case a
 * wake-up was lost. Each stream reads its own merchant's rows by the key's merchant and mode and nothing else, pages
 * through a backlog, and waits for its client's buffer to drain before reading more, so a slow or resuming client
 * costs its own stream time, not another merchant's.
 */
export function createEventStreams(deps: EventStreamsDeps) {
  const { database, repo } = deps;
  const db = database.db;
  const pageSize = deps.pageSize ?? 500;
  const byKey = new Map<string, Set<OpenStream>>();
  const perMerchant = new Map<string, number>();
  let listening: Promise<() => Promise<void>> | undefined;
  let closing = false;

  function dispatch(payload: string): void {
    if (payload === MISSED_NOTIFICATIONS || payload === '') {
      for (const streams of byKey.values()) for (const stream of streams) void pull(stream);
      return;
    }
    for (const key of payload.split(',')) {
      for (const stream of byKey.get(key) ?? []) void pull(stream);
    }
  }

  function ensureListening(): Promise<unknown> {
    listening ??= listen(database, STREAM_CHANNEL, dispatch, deps.logger).catch((error: unknown) => {
      listening = undefined;
      throw error;
    });
    return listening;
  }

  async function pull(stream: OpenStream): Promise<void> {
    if (stream.closed) return;
    if (stream.pulling) {
      stream.again = true;
      return;
    }
    stream.pulling = true;
    try {
      do {
        stream.again = false;
        for (;;) {
          const page = await repo.after(db, {
            merchantId: stream.merchantId,
            isTest: stream.isTest,
            after: stream.cursor,
            types: stream.types,
            limit: pageSize,
          });
          for (const event of page) {
            if (stream.closed) return;
            const flowing = stream.sink.send({ kind: 'event', event });
            stream.cursor = event.seq;
            if (!flowing) await stream.sink.drained();
          }
          if (page.length < pageSize) break;
        }
      } while (stream.again && !stream.closed);
    } catch (error) {
      deps.logger?.error({ err: error }, 'event stream read failed; closing the stream');
      stream.sink.end();
    } finally {
      stream.pulling = false;
    }
  }

  async function startingPosition(
    principal: Principal & { isTest: boolean },
    lastEventId: string | undefined,
  ) {
    if (lastEventId === undefined) return repo.head(db, principal.merchantId, principal.isTest);
    const deadline = Date.now() + POSITION_WAIT_MS;
    for (;;) {
      const position = await repo.positionOf(db, principal.merchantId, principal.isTest, lastEventId);
      if (position === undefined) {
        throw new AppError('not_found', 'Last-Event-ID names no event of this key (merchant and mode).', {
          param: 'Last-Event-ID',
        });
      }
      if (position !== null) return position;
      // Committed a moment ago and listed already, but not yet in the stream: it will be within milliseconds.
      if (Date.now() > deadline) {
        throw new AppError('service_unavailable', 'The event stream is behind; retry in a moment.');
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  function release(stream: OpenStream): void {
    if (stream.closed) return;
    stream.closed = true;
    if (stream.heartbeat !== undefined) clearInterval(stream.heartbeat);
    const streams = byKey.get(stream.key);
    streams?.delete(stream);
    if (streams?.size === 0) byKey.delete(stream.key);
    const count = (perMerchant.get(stream.merchantId) ?? 1) - 1;
    if (count <= 0) perMerchant.delete(stream.merchantId);
    else perMerchant.set(stream.merchantId, count);
  }

  return {
    /**
     * Opens a stream for the key's merchant and mode into `sink`; resolves once it is registered (events then flow
     * until `close` is called with the returned function, when the client goes). Refused past the merchant's cap.
     */
    async open(principal: Principal, input: OpenStreamInput, sink: StreamSink): Promise<() => void> {
      if (principal.via !== 'api_key' || principal.isTest === undefined) {
        throw new AppError('authentication_required', 'The event stream takes an API key (x-api-key).');
      }
      if (closing) throw new AppError('service_unavailable', 'The service is shutting down.');
      const open = perMerchant.get(principal.merchantId) ?? 0;
      if (open >= deps.maxPerMerchant) {
        throw new AppError(
          'stream_limit_reached',
          `This merchant already has ${open} event streams open (at most ${deps.maxPerMerchant}); close one first.`,
        );
      }
      perMerchant.set(principal.merchantId, open + 1);
      const stream: OpenStream = {
        merchantId: principal.merchantId,
        isTest: principal.isTest,
        key: streamKey(principal.merchantId, principal.isTest),
        types: input.types,
        cursor: 0,
        sink,
        pulling: false,
        again: false,
        closed: false,
        heartbeat: undefined,
      };
      try {
        // Listening before the starting position is read: what is sequenced after that read wakes this stream.
        await ensureListening();
        stream.cursor = await startingPosition({ ...principal, isTest: principal.isTest }, input.lastEventId);
      } catch (error) {
        release(stream);
        throw error;
      }
      const streams = byKey.get(stream.key) ?? new Set<OpenStream>();
      streams.add(stream);
      byKey.set(stream.key, streams);
      stream.heartbeat = setInterval(() => {
        if (stream.closed) return;
        stream.sink.send({ kind: 'heartbeat' });
        void pull(stream);
      }, deps.heartbeatMs);
      void pull(stream);
      return () => release(stream);
    },

    /** Streams open in this process now. */
    openCount(): number {
      let count = 0;
      for (const streams of byKey.values()) count += streams.size;
      return count;
    },

    /** Ends every stream and stops listening (shutdown: streams would otherwise hold the server open). */
    async close(): Promise<void> {
      closing = true;
      for (const streams of [...byKey.values()]) {
        for (const stream of [...streams]) {
          release(stream);
          stream.sink.end();
        }
      }
      const unlisten = await listening?.catch(() => undefined);
      listening = undefined;
      await unlisten?.();
    },
  };
}
