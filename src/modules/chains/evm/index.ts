import type { Logger } from 'pino';
import { pino } from 'pino';
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/client.ts';
import type { ChainAdapter } from '../adapter.ts';
import { createAddressDeriver } from '../derivation.ts';
import { getChain, requiredConfirmations } from '../registry.ts';
import { createEvmAdapter, type EvmAdapter } from './adapter.ts';

export type { EvmAdapter } from './adapter.ts';

/**
 * One adapter per EVM chain and mode that has RPC URLs in the environment: live mode (SVC_CHAIN_<NAME>_RPC_URL) and
 * test mode on a real test network (SVC_TEST_CHAIN_<NAME>_RPC_URL, which replaces the simulator on that chain).
 * Live adapters need SVC_MNEMONIC (deposit keys); without it they are not created and a warning says so.
 */
export function createEvmAdapters(deps: {
  db: Db;
  config: Pick<Config, 'evm' | 'confirmations' | 'liveMnemonic' | 'testMnemonic'>;
  logger?: Logger | undefined;
}): EvmAdapter[] {
  const { config } = deps;
  if (config.evm.chains.length === 0) return [];
  const logger = deps.logger ?? pino({ level: 'silent' });
  const deriver = createAddressDeriver({
    testMnemonic: config.testMnemonic,
    liveMnemonic: config.liveMnemonic,
  });
  const adapters: EvmAdapter[] = [];
  for (const settings of config.evm.chains) {
    const info = getChain(settings.chain);
    if (info === undefined) continue;
    if (!settings.isTest && config.liveMnemonic === undefined) {
      logger.warn(
        { chain: settings.chain },
        'RPC URL set but SVC_MNEMONIC is not: live payments on this chain are off',
      );
      continue;
    }
    adapters.push(
      createEvmAdapter({
        db: deps.db,
        settings,
        shared: config.evm,
        requiredConfirmations: requiredConfirmations(info, config.confirmations),
        deriver,
        logger,
      }),
    );
  }
  return adapters;
}

export function isEvmAdapter(adapter: ChainAdapter): adapter is EvmAdapter {
  return !adapter.simulated && 'readiness' in adapter && 'gasWallet' in adapter;
}

/** /readyz checks of every EVM node: null when all answer and keep up, else each problem on its own. */
export function evmReadiness(adapters: ChainAdapter[]): () => Promise<string | null> {
  const evm = adapters.filter(isEvmAdapter);
  return async () => {
    const problems = (await Promise.all(evm.map((adapter) => adapter.readiness()))).filter(
      (problem): problem is string => problem !== null,
    );
    return problems.length === 0 ? null : problems.join('; ');
  };
}
