import type { Logger } from 'pino';
import { pino } from 'pino';
import type { Db } from '../../../db/client.ts';
import type { OutgoingTransactions } from '../adapter.ts';
import type { AddressDeriver } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { liveNodeWithoutSeed } from '../node-env.ts';
import { type ChainId, getChain, requiredConfirmations } from '../registry.ts';
import { createTronAdapter, type TronAdapter } from './adapter.ts';
import type { TronSettings } from './settings.ts';

/**
 * The tron adapters of the modes whose node is configured: live (SVC_CHAIN_TRON_RPC_URL, with SVC_MNEMONIC) and test
 * mode on Nile or Shasta (SVC_TEST_CHAIN_TRON_RPC_URL, which replaces the simulator for tron's test payments).
 */
export function createTronAdapters(deps: {
  db: Db;
  config: {
    tron: TronSettings;
    confirmations: Partial<Record<ChainId, number>>;
    liveMnemonic: string | undefined;
  };
  deriver: AddressDeriver;
  signingKeys: DepositSigningKeys;
  logger?: Logger | undefined;
  /** Signed refunds (the refunds module's): their bundles are followed like the sweeps'. */
  outgoing?: OutgoingTransactions | undefined;
}): TronAdapter[] {
  const info = getChain('tron');
  if (info === undefined || deps.config.tron.chains.length === 0) return [];
  const logger = deps.logger ?? pino({ level: 'silent' });
  const adapters: TronAdapter[] = [];
  for (const settings of deps.config.tron.chains) {
    if (liveNodeWithoutSeed(settings, deps.config.liveMnemonic, logger)) continue;
    adapters.push(
      createTronAdapter({
        db: deps.db,
        settings,
        shared: deps.config.tron,
        requiredConfirmations:
          settings.confirmations ?? requiredConfirmations(info, deps.config.confirmations),
        deriver: deps.deriver,
        signingKeys: deps.signingKeys,
        logger,
        outgoing: deps.outgoing,
      }),
    );
  }
  return adapters;
}
