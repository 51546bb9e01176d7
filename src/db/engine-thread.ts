import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';

/** What the program asks of an embedded engine: PGlite itself has it (tests use one), and so has the engine thread. */
interface EmbeddedQueryable {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
}

export interface EmbeddedClient extends EmbeddedQueryable {
  /** Runs `callback` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(callback: (tx: EmbeddedQueryable) => Promise<T>): Promise<T>;
  /** LISTEN on `channel`; resolves to the function that stops it. */
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  /**
   * When (performance.now()) the engine last answered an operation without an error; undefined before it has. The
   * engine thread keeps it; a PGlite of the caller's own thread has none.
   */
  lastAnsweredAt?(): number | undefined;
}

export interface EngineThread extends EmbeddedClient {
  /** Resolves once the engine has opened its data directory; rejects (as every query then does) if it cannot. */
  ready: Promise<void>;
}

type Reply =
  | { id: number; result: unknown }
  | { id: number; error: Record<string, unknown> }
  | { ready: true }
  | { failed: Record<string, unknown> }
  | { channel: string; payload: string };

/** A PostgreSQL error as the thread sent it: its message and fields (code, detail, constraint, …) again. */
function toError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message ?? 'embedded database error')), fields);
}

/**
 * The embedded PostgreSQL (PGlite) on a thread of its own (engine-worker.mjs), behind the interface PGlite itself
 * offers. PGlite runs PostgreSQL as WebAssembly on the thread that calls it, so on the program's own thread its
 * opening (half a second and more) and every query would hold up everything else: loading the program, building the
 * HTTP app, answering requests. Here the engine opens while the program loads, and requests are handled while
 * queries run. Queries sent before the engine is open wait for it, in order; PGlite runs them one at a time, in the
 * order they arrive, as it does on one thread. Values cross the threads by structured cloning.
 */
export function startEngineThread(setup: {
  dataDir: string;
  /** Added to PGlite's own start parameters. */
  extraStartParams: readonly string[];
  /** Type OIDs whose values come back as the text PostgreSQL sent (parsers cannot cross threads). */
  keepAsText: readonly number[];
}): EngineThread {
  const worker = new Worker(new URL('./engine-worker.mjs', import.meta.url), {
    workerData: {
      dataDir: setup.dataDir,
      extraStartParams: [...setup.extraStartParams],
      keepAsText: [...setup.keepAsText],
    },
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  const listeners = new Map<string, Set<(payload: string) => void>>();
  let stopped: Error | undefined;
  let lastAnswered: number | undefined;

  let isOpen = false;
  let opened: () => void = () => {};
  let failedToOpen: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    opened = () => {
      isOpen = true;
      resolve();
    };
    failedToOpen = reject;
  });
  // Whoever needs the engine learns of a failure from its own query; this one must not count as unhandled.
  ready.catch(() => {});

  function stop(error: Error): void {
    if (stopped !== undefined) return;
    stopped = error;
    failedToOpen(error);
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  }

  worker.on('message', (reply: Reply) => {
    if ('id' in reply) {
      const waiter = pending.get(reply.id);
      pending.delete(reply.id);
      if ('error' in reply) waiter?.reject(toError(reply.error));
      else {
        lastAnswered = performance.now();
        waiter?.resolve(reply.result);
      }
    } else if ('channel' in reply) {
      for (const callback of listeners.get(reply.channel) ?? []) callback(reply.payload);
    } else if ('ready' in reply) {
      opened();
    } else {
      failedToOpen(toError(reply.failed));
    }
  });
  worker.on('error', (error) => stop(error));
  worker.on('exit', (code) => stop(new Error(`the embedded database thread exited with code ${code}`)));

  function call(message: Record<string, unknown>): Promise<unknown> {
    if (stopped !== undefined) return Promise.reject(stopped);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  }

  const queryOn =
    (tx: number | undefined) =>
    <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> =>
      // Only the row mode travels: the thread parses values as the program's engine always does (see keepAsText).
      call({ op: 'query', text, params, rowMode: options?.rowMode, tx }) as Promise<Results<T>>;

  return {
    ready,
    lastAnsweredAt: () => (stopped === undefined ? lastAnswered : undefined),
    query: queryOn(undefined),
    async transaction(callback) {
      const tx = (await call({ op: 'begin' })) as number;
      let result: Awaited<ReturnType<typeof callback>>;
      try {
        result = await callback({ query: queryOn(tx) });
      } catch (error) {
        await call({ op: 'end', tx, commit: false });
        throw error;
      }
      await call({ op: 'end', tx, commit: true });
      return result;
    },
    async listen(channel, callback) {
      let callbacks = listeners.get(channel);
      if (callbacks === undefined) {
        callbacks = new Set();
        listeners.set(channel, callbacks);
        await call({ op: 'listen', channel });
      }
      callbacks.add(callback);
      return async () => {
        callbacks.delete(callback);
        if (callbacks.size > 0 || listeners.get(channel) !== callbacks) return;
        listeners.delete(channel);
        await call({ op: 'unlisten', channel });
      };
    },
    async close() {
      if (stopped !== undefined) return;
      try {
        // An engine that never opened has nothing to close; one still opening is closed once it has.
        await call({ op: 'close' }).catch((error: unknown) => {
          if (isOpen) throw error;
        });
      } finally {
        stop(new Error('the embedded database is closed'));
        await worker.terminate();
      }
    },
  };
}
