import type { Logger } from 'pino';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../../db/client.ts';
import type { ChainAdapter, OutgoingTransactions, SeenDeposit } from '../adapter.ts';
import { type AddressDeriver, MAX_DERIVATION_INDEX } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { type ChainId, getChain, networkOf } from '../registry.ts';
import { createEvmNode } from './node.ts';
import { evmRepo } from './repo.ts';
import { createEvmRpc, type EvmRpc } from './rpc.ts';
import { type BundleStore, createEvmSweeper } from './sweep.ts';
import { createEvmTransfers } from './transfers.ts';

export type { BundleStore } from './sweep.ts';

import type { EvmChainSettings, EvmSettings } from './settings.ts';

/**
 * A real EVM chain (live mode, or test mode on a real test network) behind the ChainAdapter interface, over JSON-RPC.
 *
 * Detection, per block (always read by hash, so a scan never mixes two forks):
 * - ether sent by a transaction: its `to` is watched and its receipt (same block hash) says success;
 * - ether sent by contracts (internal calls): the block's call traces, `debug_traceBlockByHash` with callTracer or
 *   Parity `trace_block`, whichever the node has (probed once); a node with neither gets a warning at start and
 *   /readyz detail, and those payments are only found by balance reconciliation (see `reconcile` below);
 * - tokens: `eth_getLogs` by block hash for Transfer logs of the registry's contracts, with the watched addresses as
 *   the `to` topic while there are at most SVC_EVM_LOGS_ADDRESS_LIMIT of them (else every Transfer log of those
 *   contracts in the block, filtered here). The block's logs bloom skips the call when it cannot hold one.
 *
 * Forwarding (sweeps): a forward becomes a bundle of signed EIP-1559 transactions, all signed before anything is
 * sent and stored by the forwarder in the forward's raw_tx (sweep.ts):
 * - native: from each deposit address, its amount less the exact fee (gas × max fee, with the priority fee equal to
 *   the max fee so that exactly that is charged and nothing is stranded); inputs worth less than the fee are left
 *   (dust) and logged;
 * - tokens: for each deposit address short of gas, a top-up from the gas wallet, then the token transfer.
 * Refunds of swept payments, when the chain has a refund wallet (SVC_CHAIN_<NAME>_REFUND_WALLET=on): sent from that
 * wallet (its key derived at EVM_REFUND_WALLET_INDEX, or REFUND_KEY), ether less its fee or tokens with the wallet's
 * own gas; a wallet too poor for one throws RefundWalletShort and the refund becomes the merchant's payment request.
 * Nonces come from one manager per sending address: the node's pending count, raised past those of open forwards.
 * `broadcast` and `forwardStatus` (re)send exactly the stored transactions, never a re-signed one.
 */

export interface EvmAdapter extends ChainAdapter {
  readonly simulated: false;
  /** Checks the node's chain id and what it can trace; call once before scanning. */
  start(): Promise<void>;
  /** Always present on a real chain (see ChainAdapter). */
  recheck(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>>;
  /** Null when the node answers and keeps up; else what is wrong, for /readyz. */
  readiness(): Promise<string | null>;
  /** The node's `finalized` block number (null where the node has none). */
  finalizedBlock(): Promise<number | null>;
  /** The gas wallet's address (it funds token sweeps). */
  readonly gasWallet: string;
  /** Dust left behind by sweeps since start: inputs worth less than their fee. */
  dust(): Array<{ address: string; asset: string; amount: bigint; at: Date }>;
}

/**
 * The derivation index of an EVM chain's refund wallet (SVC_CHAIN_<NAME>_REFUND_WALLET=on without REFUND_KEY): next to
 * the gas wallet's 2^31-1; deposits stop below both (LAST_DEPOSIT_INDEX).
 */
export const EVM_REFUND_WALLET_INDEX = MAX_DERIVATION_INDEX - 1;

export interface EvmAdapterDeps {
  /** The database holding the forwards table; or give `bundles` directly. */
  db?: Db;
  bundles?: BundleStore;
  settings: EvmChainSettings;
  shared: EvmSettings;
  requiredConfirmations: number;
  /** The default gas wallet's and refund wallet's keys (SVC_CHAIN_<NAME>_GAS_KEY / _REFUND_KEY unset). */
  deriver: AddressDeriver;
  /** Deposit keys, each checked against its deposit address before it signs a sweep. */
  signingKeys: DepositSigningKeys;
  logger: Logger;
  rpc?: EvmRpc;
  /** Signed refunds, beside the forwards: their nonces are taken and they are re-sent like sweeps. */
  outgoing?: OutgoingTransactions | undefined;
}

function bundleStoreOf(
  db: Db | undefined,
  chain: ChainId,
  isTest: boolean,
  outgoing: OutgoingTransactions | undefined,
): BundleStore {
  if (db === undefined) throw new Error('createEvmAdapter needs `db` or `bundles`');
  return {
    byHash: async (txHash) =>
      (await evmRepo.bundleByHash(db, chain, isTest, txHash)) ??
      (await outgoing?.byHash(chain, isTest, txHash)) ??
      null,
    open: async () => [
      ...(await evmRepo.openBundles(db, chain, isTest)),
      ...((await outgoing?.open(chain, isTest)) ?? []),
    ],
  };
}

/** The EVM family's adapter: node access (node.ts), the scanning side (transfers.ts) and sweeps (sweep.ts). */
export function createEvmAdapter(deps: EvmAdapterDeps): EvmAdapter {
  const { settings, shared, deriver } = deps;
  const chainId = settings.chain;
  const isTest = settings.isTest;
  const info = getChain(chainId);
  if (info === undefined || info.family !== 'evm') throw new Error(`${chainId} is not an EVM chain`);
  const logger = deps.logger.child({ chain: chainId, mode: isTest ? 'test' : 'live' });
  const rpc =
    deps.rpc ??
    createEvmRpc({
      urls: settings.rpcUrls,
      timeoutMs: shared.rpcTimeoutMs,
      retries: shared.rpcRetries,
      logger,
    });
  const expectedChainId = settings.chainId ?? networkOf(info, isTest).evmChainId;
  const gasKey: Hex =
    settings.gasKey ??
    (`0x${Buffer.from(deriver.derivePrivateKey(chainId, isTest, MAX_DERIVATION_INDEX)).toString('hex')}` as Hex);
  const gasWallet = privateKeyToAccount(gasKey).address;
  const refundKey: Hex | undefined = !settings.refundWallet
    ? undefined
    : (settings.refundKey ??
      (`0x${Buffer.from(deriver.derivePrivateKey(chainId, isTest, EVM_REFUND_WALLET_INDEX)).toString('hex')}` as Hex));
  const node = createEvmNode({
    rpc,
    info,
    isTest,
    settings,
    shared,
    expectedChainId,
    requiredConfirmations: deps.requiredConfirmations,
    logger,
  });
  const scan = createEvmTransfers({ rpc, node, info, isTest, shared, gasAddress: gasWallet, logger });
  const sweeper = createEvmSweeper({
    rpc,
    node,
    info,
    isTest,
    settings,
    expectedChainId,
    bundles: deps.bundles ?? bundleStoreOf(deps.db, chainId, isTest, deps.outgoing),
    signingKeys: deps.signingKeys,
    gasKey,
    refundKey,
    logger,
  });

  return {
    chain: chainId,
    isTest,
    simulated: false,
    get requiredConfirmations() {
      return node.confirmations();
    },
    ...(settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs }),
    gasWallet,
    start: node.start,
    head: scan.head,
    block: scan.block,
    transfers: scan.transfers,
    recheck: scan.recheck,
    addressKey: (address) => address.toLowerCase(),
    buildForward: sweeper.buildForward,
    broadcast: sweeper.broadcast,
    forwardStatus: sweeper.forwardStatus,
    buildRefund: sweeper.buildRefund,
    ...(refundKey === undefined ? {} : { refundWallet: true }),
    refundFee: sweeper.refundFee,
    checkRefundAddress: sweeper.checkRefundAddress,
    readiness: node.readiness,
    finalizedBlock: node.finalizedBlock,
    dust: sweeper.dust,

    async refundWalletView() {
      const wallet = await sweeper.refundWallet();
      if (wallet === null) return null;
      return {
        role: `sends the refunds of swept payments (fund it with ${info.nativeAsset.code} for gas and with what it refunds)`,
        address: wallet.address,
        balance: wallet.balance,
        lowBelow: null,
        low: sweeper.refundShort() !== null,
        tokens: wallet.tokens,
      };
    },

    async feeWallet() {
      let balance: bigint | null = null;
      try {
        balance = BigInt(await rpc.request<string>('eth_getBalance', [gasWallet, 'latest']));
      } catch {
        // The node did not answer: shown as unknown.
      }
      return {
        role: 'pays the gas top-ups that token sweeps need',
        address: gasWallet,
        balance,
        lowBelow: null,
        low: sweeper.gasShort() !== null,
      };
    },
  };
}
