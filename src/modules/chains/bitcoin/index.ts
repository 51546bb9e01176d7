import type { Logger } from 'pino';
import { pino } from 'pino';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { liveNodeWithoutSeed } from '../node-env.ts';
import { type ChainId, getChain, requiredConfirmations } from '../registry.ts';
import { type BitcoinAdapter, createBitcoinAdapter } from './adapter.ts';
import type { BitcoinSettings } from './settings.ts';

export type { BitcoinAdapter } from './adapter.ts';

/**
 * One adapter per Bitcoin-family chain and mode that has RPC URLs in the environment: live mode
 * (SVC_CHAIN_<NAME>_RPC_URL) and test mode on a real test network (SVC_TEST_CHAIN_<NAME>_RPC_URL, which replaces the
 * simulator on that chain). Live adapters need SVC_MNEMONIC (deposit keys); without it they are not created and a
 * warning says so.
 */
export function createBitcoinAdapters(deps: {
  config: {
    bitcoin: BitcoinSettings;
    confirmations: Partial<Record<ChainId, number>>;
    liveMnemonic: string | undefined;
  };
  signingKeys: DepositSigningKeys;
  logger?: Logger | undefined;
}): BitcoinAdapter[] {
  const { config } = deps;
  if (config.bitcoin.chains.length === 0) return [];
  const logger = deps.logger ?? pino({ level: 'silent' });
  const adapters: BitcoinAdapter[] = [];
  for (const settings of config.bitcoin.chains) {
    const info = getChain(settings.chain);
    if (info === undefined) continue;
    if (liveNodeWithoutSeed(settings, config.liveMnemonic, logger)) continue;
    adapters.push(
      createBitcoinAdapter({
        settings,
        shared: config.bitcoin,
        requiredConfirmations: settings.confirmations ?? requiredConfirmations(info, config.confirmations),
        signingKeys: deps.signingKeys,
        logger,
      }),
    );
  }
  return adapters;
}
