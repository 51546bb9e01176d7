import { parentPort, workerData } from 'node:worker_threads';
import { createAddressDeriver } from './derivation.ts';
import type { ChainId } from './registry.ts';

/**
 * The derivation thread's side (see derivation-thread.ts): derives the addresses asked for, in order, with the same
 * deriver the main thread has. Runs from the sources through tsx.
 */

export interface DeriveRequest {
  id: number;
  chain: ChainId;
  isTest: boolean;
  indices: number[];
}

export type DeriveReply = { id: number; addresses: string[] } | { id: number; error: string };

const port = parentPort;
if (port === null) throw new Error('derivation-worker.ts runs as a worker thread only');
const deriver = createAddressDeriver(
  workerData as { testMnemonic: string; liveMnemonic: string | undefined },
);

port.on('message', (request: DeriveRequest) => {
  let reply: DeriveReply;
  try {
    reply = {
      id: request.id,
      addresses: deriver.deriveAddresses(request.chain, request.isTest, request.indices),
    };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
