import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { convertToBaseUnits, fromBaseUnits, toBaseUnits } from '../../lib/money.ts';
import type { AddressDeriver } from '../chains/derivation.ts';
import {
  type AssetInfo,
  type ChainInfo,
  chains,
  getAsset,
  getChain,
  isAssetAvailable,
} from '../chains/registry.ts';
import type { RatesService } from '../rates/index.ts';
import type { SettingsService } from '../settings/service.ts';
import { roundUpForWallets } from './amounts.ts';

/** What payments need from pricing: a rate locked at creation (or at the payer's pick). */
export type RateProvider = Pick<RatesService, 'getRate' | 'isSupportedCurrency' | 'cachedRate'>;

export interface PricingDeps {
  db: Db;
  rates: RateProvider;
  deriver: Pick<AddressDeriver, 'hasSeed'>;
  settings: Pick<SettingsService, 'payoutWallet' | 'payoutWalletChains' | 'checkoutOptions'>;
  /** Whether a watcher can see this chain in this mode (test mode always can: the simulated chain). */
  isChainConnected(chain: ChainInfo['id'], isTest: boolean): boolean;
}

const MAX_BASE_UNITS = 2n ** 256n - 1n;

export interface Quote {
  rate: { rate: string; source: string };
  /** Base units of the asset to send: exact for an amount in the asset itself, else rounded up to what wallets show. */
  expected: bigint;
}

/** One chain/asset pair a payer may pick, as the checkout offers it. */
export interface PaymentOption {
  chain: string;
  asset: string;
}

/**
 * Chains, assets and prices: which pairs a payment may use in a mode, what an amount comes to in one of them, and the
 * checks a pair must pass before a payment may take money on it (shared by creation and the payer's pick).
 */
export function createPricing(deps: PricingDeps) {
  const { rates } = deps;

  /** The chain and asset a request names (the chain's native coin when no asset is given), or the API's error. */
  function resolvePair(chainId: string, assetCode: string | undefined, isTest: boolean) {
    const chain = getChain(chainId.toLowerCase());
    if (chain === undefined) {
      throw new AppError('unsupported_chain', `Unknown chain "${chainId}"; GET /v1/chains lists them.`, {
        param: 'chain',
      });
    }
    const asset = assetCode === undefined ? chain.nativeAsset : getAsset(chain, assetCode);
    if (asset === undefined || !isAssetAvailable(asset, isTest)) {
      throw new AppError(
        'unsupported_asset',
        `${chain.name} does not carry ${assetCode} here; GET /v1/chains lists what it does.`,
        { param: 'asset' },
      );
    }
    return { chain, asset };
  }

  /** Refuses a chain that cannot take this merchant's money in this mode now (no seed, no payout wallet, no node). */
  async function checkUsable(merchantId: string, isTest: boolean, chain: ChainInfo): Promise<void> {
    if (!deps.deriver.hasSeed(isTest)) {
      throw new AppError(
        'live_seed_missing',
        'Live payments are not configured on this server: SVC_MNEMONIC is not set.',
        { param: 'chain' },
      );
    }
    if (!isTest && (await deps.settings.payoutWallet(deps.db, merchantId, false, chain.id)) === null) {
      throw new AppError(
        'payout_wallet_missing',
        `Set a live payout wallet for ${chain.name} first (PUT /v1/settings/payout-wallets): received funds are forwarded there.`,
        { param: 'chain' },
      );
    }
    if (!deps.isChainConnected(chain.id, isTest)) {
      // Taking money on a chain nobody watches would leave it uncredited: refuse instead.
      throw new AppError(
        'chain_unavailable',
        `${isTest ? 'Test' : 'Live'} payments on ${chain.name} are not available on this server: no node for it is connected.`,
        { param: 'chain' },
      );
    }
  }

  /** `amount` of `currency` in base units of `asset`, at the current rate. */
  async function quote(asset: AssetInfo, currency: string, amount: string, isTest: boolean): Promise<Quote> {
    let rate: Quote['rate'];
    let expected: bigint;
    if (currency === asset.code) {
      rate = { rate: '1', source: 'identity' };
      expected = toBaseUnits(amount, asset.decimals);
    } else {
      rate = await rates.getRate(asset.code, currency, isTest);
      expected = roundUpForWallets(convertToBaseUnits(amount, rate.rate, asset.decimals), asset);
    }
    if (expected > MAX_BASE_UNITS) {
      throw new AppError('parameter_invalid', 'amount is unreasonably large for this asset.', {
        param: 'amount',
      });
    }
    return { rate, expected };
  }

  return {
    resolvePair,
    checkUsable,
    quote,

    /**
     * Every pair a payer of this merchant may pick in this mode: assets available in the mode on connected chains
     * (live: with a payout wallet), limited to `assetCode` when given. Refuses when none is left.
     */
    async optionsFor(
      merchantId: string,
      isTest: boolean,
      assetCode: string | undefined,
    ): Promise<PaymentOption[]> {
      if (!deps.deriver.hasSeed(isTest)) {
        throw new AppError(
          'live_seed_missing',
          'Live payments are not configured on this server: SVC_MNEMONIC is not set.',
          { param: 'is_test' },
        );
      }
      const [wallets, offered] = await Promise.all([
        isTest ? null : deps.settings.payoutWalletChains(merchantId, false),
        deps.settings.checkoutOptions(merchantId),
      ]);
      const withWallet = wallets === null ? null : new Set(wallets);
      const enabled = offered === null ? null : new Set(offered);
      const wanted = assetCode?.toUpperCase();
      const options: PaymentOption[] = [];
      for (const chain of chains) {
        if (!deps.isChainConnected(chain.id, isTest)) continue;
        if (withWallet !== null && !withWallet.has(chain.id)) continue;
        for (const asset of chain.assets) {
          if (!isAssetAvailable(asset, isTest)) continue;
          if (wanted !== undefined && asset.code !== wanted) continue;
          if (enabled !== null && !enabled.has(`${chain.id}:${asset.code}`)) continue;
          options.push({ chain: chain.id, asset: asset.code });
        }
      }
      if (options.length === 0) {
        throw new AppError(
          isTest ? 'unsupported_asset' : 'payout_wallet_missing',
          wanted !== undefined
            ? `No connected chain carries ${wanted} for this merchant${isTest ? '' : ' (with a live payout wallet)'}.`
            : isTest
              ? 'None of the pairs offered (settings: checkout_options) can be paid in test mode.'
              : 'No chain can take live payments yet: set a payout wallet for a connected chain (and offer it) first.',
          { param: wanted !== undefined ? 'asset' : 'chain' },
        );
      }
      return options;
    },

    /** Each option with what `amount` of `currency` comes to in it now (an option that cannot be priced is left out). */
    async priceOptions(
      options: readonly PaymentOption[],
      currency: string,
      amount: string,
      isTest: boolean,
    ): Promise<Array<PaymentOption & { chainInfo: ChainInfo; assetInfo: AssetInfo; amountNative: string }>> {
      const priced = await Promise.all(
        options.map(async (option) => {
          const chain = getChain(option.chain);
          const asset = chain === undefined ? undefined : getAsset(chain, option.asset);
          if (chain === undefined || asset === undefined) return undefined;
          try {
            const { expected } = await quote(asset, currency, amount, isTest);
            return {
              ...option,
              chainInfo: chain,
              assetInfo: asset,
              amountNative: fromBaseUnits(expected, asset.decimals),
            };
          } catch {
            return undefined;
          }
        }),
      );
      return priced.filter((option) => option !== undefined);
    },
  };
}

export type Pricing = ReturnType<typeof createPricing>;
