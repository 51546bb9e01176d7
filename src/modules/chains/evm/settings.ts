import { chainNodeEnv } from '../node-env.ts';
import { type ChainId, chains } from '../registry.ts';

/**
 * The environment of the EVM chains. Per chain (NAME = the chain id upper-cased: ETHEREUM, BASE, POLYGON, ARBITRUM,
 * OPTIMISM, BSC), for live mode `SVC_CHAIN_<NAME>_…` and for test mode on a real test network `SVC_TEST_CHAIN_<NAME>_…`:
 * - `RPC_URL`       one or more JSON-RPC URLs, comma-separated; the first that answers is used, the others are
 *                   failovers. Live mode on the chain is on only when this is set; test mode uses the simulator
 *                   unless its test variable is set.
 * - `GAS_KEY`       0x-prefixed private key of the wallet that tops up deposit addresses with gas before a token
 *                   sweep; unset: the key derived from the mode's mnemonic at the reserved index 2^31-1.
 * - `REFUND_WALLET` `on` to send refunds of swept payments from the chain's refund wallet (default `off`: the merchant
 *                   pays them from their own wallet, a payment request on the dashboard). Its key is derived from the
 *                   mode's mnemonic at the reserved index 2^31-2, unless `REFUND_KEY` gives one (which also turns it on).
 * - `REFUND_KEY`    0x-prefixed private key of the refund wallet (implies REFUND_WALLET=on).
 * - `CHAIN_ID`      the EIP-155 chain id the node must report (default: the registry's, 1 for ethereum, …; set it for
 *                   a local node or a fork).
 * - `MAX_FEE_GWEI`  cap on the max fee per gas of a sweep; above it sweeps wait (default 500, 10 on L2s).
 * - `FINALITY`      `confirmations` (default: SVC_CONFIRMATIONS / the registry's depth) or `finalized` (a deposit is
 *                   final only once the node's `finalized` block covers it too; meaningful on Ethereum L1).
 * - `POLL_MS`       how often the chain is polled (default: half its block time, 1 to 15 s).
 * - `TRACE`         how transfers made by contracts are found: `auto` (probe debug_traceBlockByHash, then
 *                   trace_block, else balance reconciliation), `debug`, `trace`, `reconcile`.
 * Shared: SVC_EVM_LOGS_BLOCK_RANGE, SVC_EVM_LOGS_ADDRESS_LIMIT, SVC_EVM_RPC_TIMEOUT_MS, SVC_EVM_RPC_RETRIES,
 * SVC_EVM_MAX_HEAD_AGE_SECONDS, SVC_EVM_RECONCILE_EVERY_BLOCKS (see config.ts).
 */

type TraceMode = 'auto' | 'debug' | 'trace' | 'reconcile';
type FinalityMode = 'confirmations' | 'finalized';

export interface EvmChainSettings {
  chain: ChainId;
  isTest: boolean;
  rpcUrls: string[];
  gasKey: `0x${string}` | undefined;
  /** Refunds of swept payments are sent from the chain's refund wallet (REFUND_WALLET=on or REFUND_KEY set). */
  refundWallet: boolean;
  /** The refund wallet's key; unset: derived from the mode's mnemonic at EVM_REFUND_WALLET_INDEX. */
  refundKey: `0x${string}` | undefined;
  /** Overrides the registry's EIP-155 id (local nodes, forks). */
  chainId: number | undefined;
  maxFeePerGasWei: bigint;
  finality: FinalityMode;
  trace: TraceMode;
  pollIntervalMs: number | undefined;
}

export interface EvmSettings {
  /** One entry per (chain, mode) that has RPC URLs. */
  chains: EvmChainSettings[];
  /** Most blocks in one ranged eth_getLogs (catch-up). */
  logsBlockRange: number;
  /** Most addresses in one eth_getLogs topic list; with more watched addresses the Transfer logs are filtered here. */
  logsAddressLimit: number;
  rpcTimeoutMs: number;
  /** Rounds over every URL before a request fails (with backoff between rounds). */
  rpcRetries: number;
  /** A head older than this makes /readyz report the node as lagging; 0 turns the check off. */
  maxHeadAgeSeconds: number | undefined;
  /** In `reconcile` mode, how often (in blocks) watched balances are compared with what was credited. */
  reconcileEveryBlocks: number;
}

const L2S = new Set<ChainId>(['base', 'optimism', 'arbitrum']);

/** Reads every SVC_CHAIN_* / SVC_TEST_CHAIN_* variable of the EVM chains; throws an Error naming the variable. */
export function parseEvmChainSettings(env: Record<string, string | undefined>): EvmChainSettings[] {
  const out: EvmChainSettings[] = [];
  for (const chain of chains) {
    if (chain.family !== 'evm') continue;
    for (const isTest of [false, true]) {
      const node = chainNodeEnv(env, chain.id, isTest);
      if (node === undefined) continue;
      const { prefix, get, rpcUrls } = node;
      const gasKey = get('GAS_KEY');
      if (gasKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(gasKey)) {
        throw new Error(`${prefix}GAS_KEY: must be a 0x-prefixed 32-byte hex private key`);
      }
      const refundKey = get('REFUND_KEY');
      if (refundKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(refundKey)) {
        throw new Error(`${prefix}REFUND_KEY: must be a 0x-prefixed 32-byte hex private key`);
      }
      const refundWalletText = (
        get('REFUND_WALLET') ?? (refundKey === undefined ? 'off' : 'on')
      ).toLowerCase();
      if (!['on', 'off', 'true', 'false', '1', '0'].includes(refundWalletText)) {
        throw new Error(`${prefix}REFUND_WALLET: must be "on" or "off"`);
      }
      const refundWallet = ['on', 'true', '1'].includes(refundWalletText);
      if (!refundWallet && refundKey !== undefined) {
        throw new Error(`${prefix}REFUND_KEY is set but ${prefix}REFUND_WALLET is off: unset one of them`);
      }
      const chainIdText = get('CHAIN_ID');
      if (chainIdText !== undefined && !/^[1-9]\d{0,15}$/.test(chainIdText)) {
        throw new Error(`${prefix}CHAIN_ID: must be a positive integer`);
      }
      const maxFeeText = get('MAX_FEE_GWEI') ?? (L2S.has(chain.id) ? '10' : '500');
      if (!/^\d{1,9}(\.\d{1,9})?$/.test(maxFeeText) || /^0+(\.0+)?$/.test(maxFeeText)) {
        throw new Error(`${prefix}MAX_FEE_GWEI: must be a positive number of gwei (up to 9 decimals)`);
      }
      const [whole = '0', fraction = ''] = maxFeeText.split('.');
      const maxFeePerGasWei = BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0') || '0');
      const finality = get('FINALITY') ?? 'confirmations';
      if (finality !== 'confirmations' && finality !== 'finalized') {
        throw new Error(`${prefix}FINALITY: must be "confirmations" or "finalized"`);
      }
      const trace = get('TRACE') ?? 'auto';
      if (trace !== 'auto' && trace !== 'debug' && trace !== 'trace' && trace !== 'reconcile') {
        throw new Error(`${prefix}TRACE: must be auto, debug, trace or reconcile`);
      }
      const pollText = get('POLL_MS');
      if (pollText !== undefined && (!/^\d{1,7}$/.test(pollText) || Number(pollText) < 50)) {
        throw new Error(`${prefix}POLL_MS: must be a whole number of milliseconds, at least 50`);
      }
      out.push({
        chain: chain.id,
        isTest,
        rpcUrls,
        gasKey: gasKey as `0x${string}` | undefined,
        refundWallet,
        refundKey: refundKey as `0x${string}` | undefined,
        chainId: chainIdText === undefined ? undefined : Number(chainIdText),
        maxFeePerGasWei,
        finality,
        trace,
        pollIntervalMs: pollText === undefined ? undefined : Number(pollText),
      });
    }
  }
  return out;
}
