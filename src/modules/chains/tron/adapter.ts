import type { Logger } from 'pino';
import type { Db } from '../../../db/client.ts';
import type { ChainAdapter, OutgoingTransactions, ResourceStake, SeenDeposit } from '../adapter.ts';
import { type AddressDeriver, MAX_DERIVATION_INDEX } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { contractOf, getChain } from '../registry.ts';
import { createTronHttp, type TronHttp } from './http.ts';
import { createTronReadiness } from './node.ts';
import { createTronRefunds } from './refund.ts';
import { tronBundleStore } from './repo.ts';
import { createTronScanner } from './scan.ts';
import type { TronChainSettings, TronSettings } from './settings.ts';
import { createTronSweeper, type TronBundleStore } from './sweep.ts';
import { hexAddress } from './tx.ts';

/**
 * Tron (live mode, or test mode on Nile/Shasta) behind the ChainAdapter interface, over java-tron's HTTP API (a full
 * node or TronGrid). svc builds and signs every transaction itself (tx.ts): keys never leave it.
 * - Detection and finality: scan.ts (TRX TransferContracts, USDT Transfer logs of successful calls; credited once the
 *   block is solidified).
 * - Sweeps: sweep.ts (TRX less bandwidth; USDT with energy delegated from the resource wallet, else a capped burn).
 * - Refunds from deposit addresses: refund.ts (one-deposit sweeps to the payer).
 * - /readyz: node.ts.
 */

export interface TronAdapter extends ChainAdapter {
  readonly simulated: false;
  recheck(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>>;
  readiness(): Promise<string | null>;
  /** The wallet paying activations and burn top-ups (the resource wallet when configured). */
  readonly feeWalletAddress: string;
  readonly resourceWallet: string | null;
  close(): Promise<void>;
}

export function createTronAdapter(deps: {
  db?: Db;
  bundles?: TronBundleStore;
  settings: TronChainSettings;
  shared: Pick<TronSettings, 'httpTimeoutMs' | 'httpRetries'>;
  requiredConfirmations: number;
  deriver: AddressDeriver;
  signingKeys: DepositSigningKeys;
  logger: Logger;
  http?: TronHttp;
  /** Signed refunds: their bundles are found by hash beside the forwards'. */
  outgoing?: OutgoingTransactions | undefined;
}): TronAdapter {
  const { settings } = deps;
  const isTest = settings.isTest;
  const info = getChain('tron');
  if (info === undefined) throw new Error('tron is not in the registry');
  const logger = deps.logger.child({ chain: 'tron', mode: isTest ? 'test' : 'live' });
  const http =
    deps.http ??
    createTronHttp({
      urls: settings.rpcUrls,
      apiKey: settings.apiKey,
      timeoutMs: deps.shared.httpTimeoutMs,
      retries: deps.shared.httpRetries,
      logger,
    });
  const usdtAsset = info.assets.find((asset) => asset.code === 'USDT');
  const usdtContract = usdtAsset === undefined ? null : contractOf(usdtAsset, isTest);
  const usdt = usdtContract === null ? null : { code: 'USDT', contractHex: hexAddress(usdtContract) };
  const native = info.nativeAsset.code;
  let bundles = deps.bundles;
  if (bundles === undefined) {
    if (deps.db === undefined) throw new Error('createTronAdapter needs `db` or `bundles`');
    bundles = tronBundleStore(deps.db, 'tron', isTest, deps.outgoing);
  }
  const expirationMs = settings.sweepExpirationSeconds * 1000;
  const sweeper = createTronSweeper({
    http,
    chainId: 'tron',
    isTest,
    native,
    usdt,
    bundles,
    signingKeys: deps.signingKeys,
    resourceKey: settings.resourceKey,
    // Like the EVM gas wallet: the last index of the deposit path, never handed out as a deposit address.
    feeKey: deps.deriver.derivePrivateKey('tron', isTest, MAX_DERIVATION_INDEX),
    maxBurnSun: settings.maxBurnSun,
    expirationMs,
    logger,
  });
  const refunds = createTronRefunds({
    http,
    native,
    usdt,
    buildForward: (intent, carried) => sweeper.buildForward(intent, carried),
    lentTo: (address) => sweeper.lentTo(address),
  });
  // Activations and top-ups from svc's own wallets reach deposit addresses as TRX transfers: never payments.
  const own = new Set(
    [sweeper.feeAddress, ...(sweeper.resourceAddress === null ? [] : [sweeper.resourceAddress])].map(
      hexAddress,
    ),
  );
  const scanner = createTronScanner({
    http,
    native,
    usdt,
    requiredConfirmations: deps.requiredConfirmations,
    own,
    logger,
  });
  const readiness = createTronReadiness({
    http,
    name: `tron (${isTest ? 'test' : 'live'})`,
    maxHeadAgeSeconds: settings.maxHeadAgeSeconds,
    lastHead: scanner.lastHead,
  });
  return {
    chain: 'tron',
    isTest,
    simulated: false,
    get requiredConfirmations() {
      return scanner.confirmations();
    },
    ...(settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs }),
    head: scanner.head,
    block: scanner.block,
    transfers: scanner.transfers,
    recheck: scanner.recheck,
    // Keyed by account bytes, as blocks write them (watched.ts).
    addressKey: scanner.addressKey,
    buildForward: sweeper.buildForward,
    // Asked when forwardStatus says `expired`: once the solidified block proves a transaction cannot land.
    bumpForward: (intent, previous) => sweeper.bumpForward(intent, previous),
    broadcast: sweeper.broadcast,
    forwardStatus: sweeper.forwardStatus,
    // Refunds from deposit addresses (refund.ts): bundles like the sweeps', followed the same way.
    buildRefund: refunds.buildRefund,
    refundFee: refunds.refundFee,
    checkRefundAddress: refunds.checkRefundAddress,
    readiness,
    feeWalletAddress: sweeper.feeAddress,
    resourceWallet: sweeper.resourceAddress,
    async feeWallet() {
      let balance: bigint | null = null;
      let stake: ResourceStake | null = null;
      try {
        balance = await sweeper.feeBalance();
        stake = await sweeper.resourceStake();
      } catch {
        // The node did not answer: shown as unknown.
      }
      return {
        role:
          sweeper.resourceAddress === null
            ? 'pays deposit activations and the TRX a sweep burns without delegated energy'
            : 'lends staked energy to USDT sweeps; pays deposit activations and the TRX a sweep burns when its stake is short',
        address: sweeper.feeAddress,
        balance,
        // One sweep's burn cap (MAX_BURN_TRX): below it the next burning sweep may not be paid.
        lowBelow: settings.maxBurnSun,
        low: balance !== null && balance < settings.maxBurnSun,
        ...(sweeper.resourceAddress === null ? {} : { stake }),
      };
    },
    close: () => http.close(),
  };
}
