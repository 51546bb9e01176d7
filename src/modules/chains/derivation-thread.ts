import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { AddressDeriver, TestAddressSpelling } from './derivation.ts';
import { type DerivationCheck, DerivationMismatchError } from './derivation-check.ts';
import type { DerivationWorkerData, DeriveReply, DeriveRequest } from './derivation-worker.ts';
import type { ChainId } from './registry.ts';

/**
 * Deposit addresses derived on a worker thread, so that the elliptic-curve work of a payment creation (most of its
 * CPU) runs beside the request handling instead of inside it. The thread starts on first use and loads
 * derivation-worker.ts through tsx; until it is ready, or if it ever fails, addresses are derived here on the main
 * thread with the same deriver: the answer is the same either way, only where the CPU is spent differs.
 */
export interface DerivationThread {
  /** The addresses at `indices`, in order. */
  deriveMany(chain: ChainId, isTest: boolean, indices: readonly number[]): Promise<string[]>;
  /** Starts the thread if it has not started; true once it answers, false if it cannot be used. */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The addresses at `indices`, derived here on the calling thread (the thread's fallback, and its stand-in), each
 * confirmed by the second, independent derivation: a disagreement throws DerivationMismatchError, never an address.
 */
export function deriveOnThisThread(
  deriver: AddressDeriver,
  check: DerivationCheck,
): (chain: ChainId, isTest: boolean, indices: readonly number[]) => string[] {
  return (chain, isTest, indices) => {
    const { addresses, publicKeys } = deriver.deriveBatch(chain, isTest, indices);
    check.verify(chain, isTest, indices, addresses, publicKeys);
    return addresses;
  };
}

export function createDerivationThread(deps: {
  seeds: { testMnemonic: string; liveMnemonic: string | undefined };
  /** The test-mode spelling the main thread's deriver and check were given: the thread's are given the same. */
  testSpelling: TestAddressSpelling;
  /** The main thread's deriver: used until the thread is ready and whenever it is not usable. */
  deriver: AddressDeriver;
  /** The main thread's second derivation, for the same fallback (the thread builds its own). */
  check: DerivationCheck;
  logger?: Logger | undefined;
}): DerivationThread {
  let worker: Worker | null = null;
  let ready = false;
  let broken = false;
  let settle: (usable: boolean) => void = () => {};
  const usable = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(addresses: string[]): void; reject(error: Error): void }>();

  const inline = deriveOnThisThread(deps.deriver, deps.check);

  function fail(error: Error): void {
    if (broken) return;
    broken = true;
    ready = false;
    settle(false);
    deps.logger?.warn({ err: error }, 'derivation thread unusable: deriving addresses on the main thread');
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
    void worker?.terminate();
    worker = null;
  }

  /**
   * In the bundle (bin/bundle.mjs) the worker is built beside this module as plain JavaScript and starts as it is;
   * from the sources it is TypeScript, loaded through tsx.
   */
  function newWorker(): Worker {
    const workerData: DerivationWorkerData = { seeds: deps.seeds, testSpelling: deps.testSpelling };
    const bundled = new URL('./derivation-worker.js', import.meta.url);
    if (existsSync(fileURLToPath(bundled))) return new Worker(bundled, { workerData });
    // tsx's ES module API (its CommonJS twin, which a plain resolve finds, registers from the wrong place).
    const tsxRoot = dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
    const tsx = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href;
    const entry = new URL('./derivation-worker.ts', import.meta.url).href;
    // An ES module worker that registers tsx, then loads the TypeScript entry.
    const bootstrap = `const { register } = await import(${JSON.stringify(tsx)});
register();
await import(${JSON.stringify(entry)});`;
    return new Worker(bootstrap, { eval: true, workerData });
  }

  function start(): void {
    const thread = newWorker();
    thread.unref(); // never what keeps the process alive
    thread.on('message', (message: DeriveReply | { ready: true }) => {
      if ('ready' in message) {
        ready = true;
        settle(true);
        deps.logger?.info('derivation thread ready: deposit addresses are derived beside request handling');
        return;
      }
      const waiter = pending.get(message.id);
      if (waiter === undefined) return;
      pending.delete(message.id);
      if ('mismatch' in message) waiter.reject(new DerivationMismatchError(message.mismatch));
      else if ('error' in message) waiter.reject(new Error(message.error));
      else waiter.resolve(message.addresses);
    });
    thread.on('error', (error) => fail(error));
    thread.on('exit', (code) => {
      if (worker !== null) fail(new Error(`derivation thread exited with ${code}`));
    });
    worker = thread;
  }

  function ensureStarted(): void {
    if (broken || worker !== null) return;
    try {
      start();
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  return {
    async deriveMany(chain, isTest, indices) {
      if (broken) return inline(chain, isTest, indices);
      ensureStarted();
      if (!ready || worker === null) return inline(chain, isTest, indices);
      const id = nextId++;
      const request: DeriveRequest = { id, chain, isTest, indices: [...indices] };
      try {
        return await new Promise<string[]>((resolve, reject) => {
          pending.set(id, { resolve, reject });
          worker?.postMessage(request);
        });
      } catch (error) {
        // Two derivations that disagree are never retried until one passes: the batch is refused.
        if (error instanceof DerivationMismatchError) throw error;
        // A failure of the thread (not of the derivation, which would fail here the same way): derive here.
        return inline(chain, isTest, indices);
      }
    },
    ready() {
      ensureStarted();
      return usable;
    },
    async close() {
      const thread = worker;
      worker = null;
      broken = true;
      settle(false);
      await thread?.terminate();
    },
  };
}
