import type { Logger } from 'pino';
import { pino } from 'pino';
import type { Db } from '../../../db/client.ts';
import type { OutgoingTransactions } from '../adapter.ts';
import type { AddressDeriver } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { liveNodeWithoutSeed } from '../node-env.ts';
import { type ChainId, getChain, requiredConfirmations } from '../registry.ts';
import { createEvmAdapter, type EvmAdapter } from './adapter.ts';
import type { EvmSettings } from './settings.ts';

export type { EvmAdapter } from './adapter.ts';

/**
 * One adapter per EVM chain and mode that has RPC URLs in the environment: live mode (SVC_CHAIN_<NAME>_RPC_URL) and
 * test mode on a real test network (SVC_TEST_CHAIN_<NAME>_RPC_URL, which replaces the simulator on that chain).
 * Live adapters need SVC_MNEMONIC (deposit keys); without it they are not created and a warning says so.
 */
export function createEvmAdapters(deps: {
  db: Db;
  config: {
    evm: EvmSettings;
    confirmations: Partial<Record<ChainId, number>>;
    liveMnemonic: string | undefined;
  };
  /** The program's one deriver (deposit keys, the default gas wallet). */
  deriver: AddressDeriver;
  signingKeys: DepositSigningKeys;
  logger?: Logger | undefined;
  outgoing?: OutgoingTransactions | undefined;
}): EvmAdapter[] {
  const { config } = deps;
  if (config.evm.chains.length === 0) return [];
  const logger = deps.logger ?? pino({ level: 'silent' });
  const { deriver } = deps;
  const adapters: EvmAdapter[] = [];
  for (const settings of config.evm.chains) {
    const info = getChain(settings.chain);
    if (info === undefined) continue;
    if (liveNodeWithoutSeed(settings, config.liveMnemonic, logger)) continue;
    adapters.push(
      createEvmAdapter({
        db: deps.db,
        settings,
        shared: config.evm,
        requiredConfirmations: requiredConfirmations(info, config.confirmations),
        deriver,
        signingKeys: deps.signingKeys,
        logger,
        outgoing: deps.outgoing,
      }),
    );
  }
  return adapters;
}
