import { type ChainId, getChain, requiredConfirmations } from './registry.ts';

/** Confirmations the simulated chains ask for at most, unless SVC_SIM_CONFIRMATIONS says otherwise. */
const SIM_CONFIRMATIONS_CAP = 12;

export interface ConfirmationsConfig {
  /** Required confirmations per chain over the registry's (SVC_CONFIRMATIONS). */
  confirmations: Partial<Record<ChainId, number>>;
  /** Test mode on the simulated chains (SVC_SIM_CONFIRMATIONS); undefined: the chain's, capped. */
  simConfirmations: number | undefined;
}

/**
 * Confirmations a deposit needs before it is final. Live mode: the chain's (SVC_CONFIRMATIONS overrides the registry).
 * Test mode runs on the simulated chains: SVC_SIM_CONFIRMATIONS, else the chain's number capped at 12, so that a
 * test payment on a chain that needs many blocks (Arbitrum: 1200) still completes in seconds.
 */
export function confirmationsFor(config: ConfirmationsConfig, chainId: string, isTest: boolean): number {
  const chain = getChain(chainId);
  if (chain === undefined) throw new Error(`Unknown chain ${chainId}`);
  const live = requiredConfirmations(chain, config.confirmations);
  if (!isTest) return live;
  return config.simConfirmations ?? Math.min(live, SIM_CONFIRMATIONS_CAP);
}

export type ConfirmationsOf = (chain: ChainId | string, isTest: boolean) => number;
