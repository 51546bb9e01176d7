import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ChainAdapter } from './adapter.ts';
import { confirmationsFor } from './confirmations.ts';
import { createEvmAdapters } from './evm/index.ts';
import { type ChainId, chainIds } from './registry.ts';
import { createSimulatedChain, type SimulatedChain } from './simulated/chain.ts';

/** The chain adapters of both modes. */
export interface ChainAdapters {
  /** Every adapter to run watchers and forwarders for. */
  all(): ChainAdapter[];
  /** The adapter of a chain in a mode, if that chain is connected in that mode. */
  get(chain: string, isTest: boolean): ChainAdapter | undefined;
  /** The simulated chain behind test mode on `chain`. */
  simulated(chain: string): SimulatedChain | undefined;
}

/**
 * Test mode runs every chain on the built-in simulated chain (no real funds move). Live mode needs real node
 * adapters, which are not part of this build yet: live payments can be created and are watched once an adapter for
 * their chain is added here.
 */
export function createChainAdapters(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'confirmations' | 'simConfirmations'> &
    Partial<Pick<Config, 'evm' | 'liveMnemonic' | 'testMnemonic'>>;
  logger?: Logger | undefined;
}): ChainAdapters {
  const simulated = new Map<string, SimulatedChain>(
    chainIds.map((chain: ChainId) => [
      chain,
      createSimulatedChain({
        db: deps.db,
        clock: deps.clock,
        chain,
        requiredConfirmations: confirmationsFor(deps.config, chain, true),
      }),
    ]),
  );
  const live = new Map<string, ChainAdapter>();
  // Real nodes: live mode on EVM chains with SVC_CHAIN_<NAME>_RPC_URL, and test mode on a real test network (which
  // then replaces the simulated chain for that chain's test payments) with SVC_TEST_CHAIN_<NAME>_RPC_URL.
  const testNetworks = new Map<string, ChainAdapter>();
  const { evm, testMnemonic } = deps.config;
  if (evm !== undefined && testMnemonic !== undefined) {
    const evmAdapters = createEvmAdapters({
      db: deps.db,
      config: {
        evm,
        confirmations: deps.config.confirmations,
        liveMnemonic: deps.config.liveMnemonic,
        testMnemonic,
      },
      logger: deps.logger,
    });
    for (const adapter of evmAdapters) (adapter.isTest ? testNetworks : live).set(adapter.chain, adapter);
  }
  return {
    all: () => [
      ...[...simulated.values()].filter((adapter) => !testNetworks.has(adapter.chain)),
      ...testNetworks.values(),
      ...live.values(),
    ],
    get: (chain, isTest) => (isTest ? (testNetworks.get(chain) ?? simulated.get(chain)) : live.get(chain)),
    simulated: (chain) => simulated.get(chain),
  };
}
