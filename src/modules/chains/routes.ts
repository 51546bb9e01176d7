import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { AppError } from '../../lib/errors.ts';
import { fromBaseUnits } from '../../lib/money.ts';
import {
  type ChainInfo,
  chains,
  explorerAddressLink,
  getChain,
  type NetworkInfo,
  networkOf,
  requiredConfirmations,
} from './registry.ts';
import { type ChainView, chainListSchema, type FeeWalletView, feeWalletListSchema } from './schemas.ts';

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
            'chain’s gas wallet), each with its balance read now and whether it is too low. They are the ' +
            'operator’s, shared by every merchant of the instance: only its operators (the first account and ' +
            '`SVC_OPERATOR_EMAILS`) may see them.',
          security: [{ bearer: [] }],
          response: { 200: feeWalletListSchema },
        },
      },
      async (request, reply) => {
        if (!(await services.operators.isOperator(principalOf(request).merchantId))) {
          throw new AppError('forbidden', "Only the instance's operators see its fee wallets.");
        }
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
            },
          ];
        });
        return { data };
      },
    );
  };
}
