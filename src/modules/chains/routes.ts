import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteContext } from '../../http/context.ts';
import { type ChainInfo, chains, type NetworkInfo, requiredConfirmations } from './registry.ts';
import { type ChainView, chainListSchema } from './schemas.ts';

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

export function chainsRoutes({ config }: RouteContext): FastifyPluginAsyncZod {
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
  };
}
