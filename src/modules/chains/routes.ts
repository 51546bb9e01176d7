import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits } from '../../lib/money.ts';
import type { ResourceStake } from './adapter.ts';
import {
  type ChainInfo,
  chains,
  explorerAddressLink,
  getAsset,
  getChain,
  type NetworkInfo,
  networkOf,
  requiredConfirmations,
} from './registry.ts';
import {
  type ChainView,
  chainListSchema,
  type FeeWalletView,
  feeWalletListSchema,
  type ResourceStakeView,
  type SweepCostView,
  sweepCostListSchema,
  sweepCostQuerySchema,
} from './schemas.ts';

const networkView = (network: NetworkInfo) => ({
  name: network.name,
  evm_chain_id: network.evmChainId ?? null,
  explorer_tx_url: network.explorerTxUrl,
  explorer_address_url: network.explorerAddressUrl,
});

function chainView(chain: ChainInfo, overrides: RouteContext['config']['confirmations']): ChainView {
  return {
    id: chain.id,
    name: chain.name,
    family: chain.family,
    mainnet: networkView(chain.mainnet),
    testnet: networkView(chain.testnet),
    native_asset: chain.nativeAsset.code,
    assets: chain.assets.map((asset) => ({
      code: asset.code,
      name: asset.name,
      decimals: asset.decimals,
      is_native: asset.isNative,
      contract: asset.contract === null ? null : { ...asset.contract },
      pegged_to: asset.peggedTo,
    })),
    confirmations: requiredConfirmations(chain, overrides),
    default_confirmations: chain.defaultConfirmations,
    block_time_seconds: chain.blockTimeSeconds,
  };
}

export function chainsRoutes({ config, services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  // The registry is static and the overrides are fixed at boot: build the answer once.
  const body = { data: chains.map((chain) => chainView(chain, config.confirmations)) };
  /** The instance's own wallets and costs are its operators' business (the first account, SVC_OPERATOR_EMAILS). */
  const operatorOnly = async (request: FastifyRequest, refusal: string) => {
    if (!(await services.operators.isOperator(principalOf(request).merchantId))) {
      throw new AppError('forbidden', refusal);
    }
  };
  return async (app) => {
    app.get(
      '/chains',
      {
        schema: {
          tags: ['Chains'],
          summary: 'List the chains and assets payments can use (public, no key)',
          description:
            'Each chain with its mainnet (live mode) and test network (test mode), its assets with decimals and ' +
            'token contracts, and the confirmations in effect.',
          response: { 200: chainListSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=300');
        return body;
      },
    );

    app.get(
      '/operator/fee-wallets',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags: ['Chains'],
          summary: "The instance's fee-paying wallets and their balances (operators' dashboard session only)",
          description:
            'The wallets this instance pays sweep fees from on each connected chain (Solana’s fee payer, an EVM ' +
            'chain’s gas wallet) and the refund wallets it sends refunds of swept payments from (an EVM chain with ' +
            '`SVC_CHAIN_<NAME>_REFUND_WALLET=on`, with its token balances), each with its balance read now and ' +
            'whether it is too low (a refund wallet: it could not pay the last refund asked of it). They are the ' +
            'operator’s, shared by every merchant of the instance: only its operators (the first account and ' +
            '`SVC_OPERATOR_EMAILS`) may see them.',
          security: [{ bearer: [] }],
          response: { 200: feeWalletListSchema },
        },
      },
      async (request, reply) => {
        await operatorOnly(request, "Only the instance's operators see its fee wallets.");
        reply.header('cache-control', 'no-store');
        const wallets = await services.chainAdapters.feeWallets();
        const data: FeeWalletView[] = wallets.flatMap(({ chain: chainId, isTest, wallet }) => {
          const chain = getChain(chainId);
          if (chain === undefined) return [];
          const { decimals, code } = chain.nativeAsset;
          return [
            {
              chain: chainId,
              is_test: isTest,
              role: wallet.role,
              address: wallet.address,
              asset: code,
              balance_native: wallet.balance === null ? null : fromBaseUnits(wallet.balance, decimals),
              low_below_native: wallet.lowBelow === null ? null : fromBaseUnits(wallet.lowBelow, decimals),
              low: wallet.low,
              explorer_address_url: explorerAddressLink(networkOf(chain, isTest), wallet.address),
              ...(wallet.stake === undefined
                ? {}
                : { stake: wallet.stake === null ? null : stakeView(wallet.stake, decimals) }),
              ...(wallet.tokens === undefined
                ? {}
                : {
                    token_balances: wallet.tokens.map((token) => ({
                      asset: token.asset,
                      balance_native:
                        token.balance === null
                          ? null
                          : fromBaseUnits(token.balance, getAsset(chain, token.asset)?.decimals ?? 0),
                    })),
                  }),
            },
          ];
        });
        return { data };
      },
    );

    app.get(
      '/operator/sweep-costs',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags: ['Chains'],
          summary: "What the instance's sweeps cost in a month (operators' dashboard session only)",
          description:
            'Per chain and mode, the sweeps that became final in the calendar month (UTC; the current one unless ' +
            '`month` says), the network fees they paid as the chain charged them (on Tron the TRX they burnt) and, ' +
            'on Tron, the energy they used and how much of it staked TRX lent. Read from the sweeps as they were ' +
            'recorded when final. Operators only: the fees come from the instance’s own wallets.',
          security: [{ bearer: [] }],
          querystring: sweepCostQuerySchema,
          response: { 200: sweepCostListSchema },
        },
      },
      async (request, reply) => {
        await operatorOnly(request, "Only the instance's operators see what its sweeps cost.");
        reply.header('cache-control', 'no-store');
        const asked = request.query.month?.split('-').map(Number);
        const { month, costs } = await services.sweepCosts.month(
          asked === undefined ? undefined : { year: asked[0] ?? 0, month: asked[1] ?? 0 },
        );
        const data: SweepCostView[] = costs.flatMap((cost) => {
          const chain = getChain(cost.chain);
          if (chain === undefined) return [];
          return [
            {
              chain: cost.chain,
              is_test: cost.isTest,
              asset: chain.nativeAsset.code,
              sweeps: cost.sweeps,
              fee_native: fromBaseUnits(cost.fee, chain.nativeAsset.decimals),
              energy_used: cost.energyUsed === null ? null : cost.energyUsed.toString(),
              energy_delegated: cost.energyDelegated === null ? null : cost.energyDelegated.toString(),
            },
          ];
        });
        return { month, data };
      },
    );
  };
}

function stakeView(stake: ResourceStake, decimals: number): ResourceStakeView {
  return {
    energy_staked_native: fromBaseUnits(stake.energyStaked, decimals),
    energy_lent_native: fromBaseUnits(stake.energyLent, decimals),
    bandwidth_staked_native: fromBaseUnits(stake.bandwidthStaked, decimals),
    bandwidth_lent_native: fromBaseUnits(stake.bandwidthLent, decimals),
    energy_available: stake.energyAvailable.toString(),
    energy_per_sweep: stake.energyPerSweep.toString(),
    sweeps_covered: Number(stake.sweepsCovered),
    short: stake.short,
  };
}
