import type { ChainAdapters } from './families.ts';
import { type ChainId, chains } from './registry.ts';

/** Whether a chain can take payments in a mode on this instance, as far as the instance itself goes. */
export interface ChainStatus {
  chain: ChainId;
  /** A node (or, in test mode, the simulator) is connected for it. */
  connected: boolean;
  /** What is wrong with the connected node (down, syncing, behind), or null. */
  nodeProblem: string | null;
  /** The wallet that pays its sweep fees: null when the family needs none here, else whether it is low. */
  feeWalletLow: boolean | null;
}

/** Each chain's status in a mode: connected, its node's problem if any, and whether its fee wallet is low. */
export function createChainStatus(adapters: Pick<ChainAdapters, 'get'>) {
  return async function chainStatus(isTest: boolean): Promise<ChainStatus[]> {
    return Promise.all(
      chains.map(async (chain): Promise<ChainStatus> => {
        const adapter = adapters.get(chain.id, isTest);
        if (adapter === undefined) {
          return { chain: chain.id, connected: false, nodeProblem: null, feeWalletLow: null };
        }
        // The fee wallet's balance is read from the node now, so a node that stopped answering shows in its health.
        const wallet = (await adapter.feeWallet?.().catch(() => null)) ?? null;
        const nodeProblem = (await adapter.readiness?.().catch((error: unknown) => String(error))) ?? null;
        return { chain: chain.id, connected: true, nodeProblem, feeWalletLow: wallet?.low ?? null };
      }),
    );
  };
}

export type ChainStatusOf = ReturnType<typeof createChainStatus>;
