import { parentPort, workerData } from 'node:worker_threads';
import { createAddressDeriver, type TestAddressSpelling } from './derivation.ts';
import { createDerivationCheck, DerivationMismatchError } from './derivation-check.ts';
import type { ChainId } from './registry.ts';

/**
 * The derivation thread's side (see derivation-thread.ts): derives the addresses asked for, in order, with the same
 * deriver the main thread has, and checks each with the second derivation. From the sources it runs through tsx;
 * in the bundle it is an entry point of its own (bin/bundle.mjs).
 */

export interface DeriveRequest {
  id: number;
  chain: ChainId;
  isTest: boolean;
  indices: number[];
}

/** What the thread is started with (workerData): the seeds, and the spelling both derivations are told. */
export interface DerivationWorkerData {
  seeds: { testMnemonic: string; liveMnemonic: string | undefined };
  testSpelling: TestAddressSpelling;
}

export type DeriveReply =
  | { id: number; addresses: string[] }
  | { id: number; mismatch: DerivationMismatchError['detail'] }
  | { id: number; error: string };

const port = parentPort;
if (port === null) throw new Error('derivation-worker.ts runs as a worker thread only');
const { seeds, testSpelling } = workerData as DerivationWorkerData;
// The main thread's spelling: an address derived here is the one the main thread would derive.
const deriver = createAddressDeriver(seeds, { testSpelling });
// The second, independent derivation runs here too, beside the first: every address is confirmed before it leaves.
const check = createDerivationCheck(seeds, { testSpelling });

port.on('message', (request: DeriveRequest) => {
  let reply: DeriveReply;
  try {
    const { addresses, publicKeys } = deriver.deriveBatch(request.chain, request.isTest, request.indices);
    check.verify(request.chain, request.isTest, request.indices, addresses, publicKeys);
    reply = { id: request.id, addresses };
  } catch (error) {
    reply =
      error instanceof DerivationMismatchError
        ? { id: request.id, mismatch: error.detail }
        : { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
