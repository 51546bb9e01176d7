import type { ChainStatusOf } from '../chains/readiness.ts';
import { chains } from '../chains/registry.ts';
import type { Principal } from '../tenancy/caller.ts';
import { modeForWrite } from '../tenancy/scope.ts';
import type { ReadinessView } from './schemas.ts';
import type { SettingsService } from './service.ts';

/**
 * The setup checklist of a merchant in a mode: per chain, whether payments can be taken there now (a node connected
 * and keeping up, a payout wallet set, the instance's fee wallet funded) and what is missing. Test mode needs no
 * payout wallet (test sweeps go to the simulator's sink) and no fee wallet on the simulator.
 */
export function createReadiness(deps: {
  chainStatus: ChainStatusOf;
  settings: Pick<SettingsService, 'payoutWalletChains'>;
  hasSeed(isTest: boolean): boolean;
}) {
  return {
    async readiness(principal: Principal, isTest: boolean | undefined): Promise<ReadinessView> {
      const mode = modeForWrite(principal, isTest);
      const [statuses, wallets] = await Promise.all([
        deps.chainStatus(mode),
        deps.settings.payoutWalletChains(principal.merchantId, mode),
      ]);
      const seed = deps.hasSeed(mode);
      const withWallet = new Set(wallets);
      return {
        is_test: mode,
        seed_configured: seed,
        chains: statuses.map((status) => {
          const chain = chains.find((known) => known.id === status.chain);
          const payoutWallet = withWallet.has(status.chain);
          const missing: ReadinessView['chains'][number]['missing'] = [];
          if (!seed) missing.push('seed');
          if (!status.connected) missing.push('node');
          else if (status.nodeProblem !== null) missing.push('node_healthy');
          if (!mode && !payoutWallet) missing.push('payout_wallet');
          if (status.feeWalletLow === true) missing.push('fee_wallet');
          return {
            chain: status.chain,
            name: chain?.name ?? status.chain,
            node: !status.connected ? 'not_configured' : status.nodeProblem === null ? 'ok' : 'unhealthy',
            node_problem: status.nodeProblem,
            payout_wallet: payoutWallet,
            fee_wallet: status.feeWalletLow === null ? 'none' : status.feeWalletLow ? 'low' : 'funded',
            ready: missing.length === 0,
            missing,
          };
        }),
      };
    },
  };
}
