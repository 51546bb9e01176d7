import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Logger } from 'pino';
import { encodeFunctionData, getAddress, type Hex, keccak256, parseAbi } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../../../db/client.ts';
import type {
  BlockRef,
  BuiltForward,
  ChainAdapter,
  ForwardIntent,
  ForwardStatus,
  SeenDeposit,
  Transfer,
} from '../adapter.ts';
import { type AddressDeriver, MAX_DERIVATION_INDEX } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { type ChainId, contractOf, getAsset, getChain, networkOf } from '../registry.ts';
import { createReconciler, type Reconciler } from './reconcile.ts';
import { evmRepo } from './repo.ts';
import { createEvmRpc, type EvmRpc } from './rpc.ts';
import {
  addressTopic,
  bloomMayContain,
  type CallFrame,
  type Found,
  inBlockOrder,
  internalFromCallTrace,
  internalFromParityTraces,
  NATIVE_TOP_LEVEL_INDEX,
  nativeCandidates,
  type ParityTrace,
  type RpcBlock,
  type RpcLog,
  type RpcReceipt,
  TRANSFER_TOPIC,
  tokenTransfers,
} from './scan.ts';
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
 * sent and stored by the settlement in the forward's raw_tx:
 * - native: from each deposit address, its amount less the exact fee (gas × max fee, with the priority fee equal to
 *   the max fee so that exactly that is charged and nothing is stranded); inputs worth less than the fee are left
 *   (dust) and logged;
 * - tokens: for each deposit address short of gas, a top-up from the gas wallet, then the token transfer.
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

/** Where the adapter finds the signed bundles of forwards (the settlement stores them before broadcasting). */
export interface BundleStore {
  /** The raw bundle whose main transaction hash is `txHash`, or null. */
  byHash(txHash: string): Promise<string | null>;
  /** The raw bundles of forwards not yet final. */
  open(): Promise<string[]>;
}

export interface EvmAdapterDeps {
  /** The database holding the forwards table; or give `bundles` directly. */
  db?: Db;
  bundles?: BundleStore;
  settings: EvmChainSettings;
  shared: EvmSettings;
  requiredConfirmations: number;
  /** The default gas wallet's key (SVC_CHAIN_<NAME>_GAS_KEY unset). */
  deriver: AddressDeriver;
  /** Deposit keys, each checked against its deposit address before it signs a sweep. */
  signingKeys: DepositSigningKeys;
  logger: Logger;
  rpc?: EvmRpc;
}

const erc20 = parseAbi([
  'function transfer(address to, uint256 amount) returns (bool)',
  'function balanceOf(address owner) view returns (uint256)',
]);

const gasPriceOracle = parseAbi(['function getL1Fee(bytes data) view returns (uint256)']);
const GAS_PRICE_ORACLE = '0x420000000000000000000000000000000000000F';
const OP_STACK = new Set<ChainId>(['base', 'optimism']);

interface BundleTx {
  hash: Hex;
  raw: Hex;
  from: string;
  nonce: number;
  /** The top-up this transaction needs mined first (its sender has no gas before it). */
  fundedBy?: Hex;
}

interface Bundle {
  evm: 1;
  chain: ChainId;
  txs: BundleTx[];
}

const hex = (n: number | bigint): Hex => `0x${n.toString(16)}`;
/** Receipts re-read at once before crediting. */
const RECHECK_BATCH = 50;
const BLOCK_CACHE = 32;
const RECONCILE_WARNING =
  'node has neither debug_traceBlockByHash nor trace_block: ether sent to deposit addresses by contracts (internal transfers) is found by balance reconciliation only';

function bundleStoreOf(db: Db | undefined, chain: ChainId, isTest: boolean): BundleStore {
  if (db === undefined) throw new Error('createEvmAdapter needs `db` or `bundles`');
  return {
    byHash: (txHash) => evmRepo.bundleByHash(db, chain, isTest, txHash),
    open: () => evmRepo.openBundles(db, chain, isTest),
  };
}

function parseBundle(raw: string): Bundle {
  const bundle = JSON.parse(raw) as Bundle;
  if (bundle.evm !== 1 || !Array.isArray(bundle.txs)) throw new Error('Not an EVM forward bundle');
  return bundle;
}

function isAlreadyKnown(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error);
  return /already known|known transaction|alreadyknown|already imported|transaction already exists/i.test(
    text,
  );
}

export function createEvmAdapter(deps: EvmAdapterDeps): EvmAdapter {
  const { settings, shared, deriver } = deps;
  const chainId = settings.chain;
  const isTest = settings.isTest;
  const info = getChain(chainId);
  if (info === undefined || info.family !== 'evm') throw new Error(`${chainId} is not an EVM chain`);
  const logger = deps.logger.child({ chain: chainId, mode: isTest ? 'test' : 'live' });
  const bundles: BundleStore = deps.bundles ?? bundleStoreOf(deps.db, chainId, isTest);
  const rpc =
    deps.rpc ??
    createEvmRpc({
      urls: settings.rpcUrls,
      timeoutMs: shared.rpcTimeoutMs,
      retries: shared.rpcRetries,
      logger,
    });
  const expectedChainId = settings.chainId ?? networkOf(info, isTest).evmChainId;
  const nativeCode = info.nativeAsset.code;

  const assetByContract = new Map<string, string>();
  for (const asset of info.assets) {
    const contract = contractOf(asset, isTest);
    if (contract !== null) assetByContract.set(contract.toLowerCase(), asset.code);
  }
  const contracts = [...assetByContract.keys()];
  const transferTopicHash = keccak_256(Buffer.from(TRANSFER_TOPIC.slice(2), 'hex'));
  const contractHashes = contracts.map((c) => keccak_256(Buffer.from(c.slice(2), 'hex')));

  const gasKey: Hex =
    settings.gasKey ??
    (`0x${Buffer.from(deriver.derivePrivateKey(chainId, isTest, MAX_DERIVATION_INDEX)).toString('hex')}` as Hex);
  const gasAccount = privateKeyToAccount(gasKey);

  let traceMode: 'debug' | 'trace' | 'none' | undefined =
    settings.trace === 'debug'
      ? 'debug'
      : settings.trace === 'trace'
        ? 'trace'
        : settings.trace === 'reconcile'
          ? 'none'
          : undefined;
  let chainIdProblem: string | null = null;
  /** Set while the gas wallet cannot pay the top-ups of token sweeps (they wait, signed, until it is funded). */
  let gasShort: string | null = null;
  /** Set once probing finds no trace API (or TRACE=reconcile): then balances are reconciled instead. */
  let reconciler: Reconciler | null = null;
  let lastHead: { number: number; timestamp: Date; seenAt: Date } | null = null;
  const blocks = new Map<string, RpcBlock>();
  const dustLog: Array<{ address: string; asset: string; amount: bigint; at: Date }> = [];
  const recentNonces = new Map<string, { nonce: number; at: number }>();

  const toRef = (block: RpcBlock): BlockRef => ({
    number: Number(block.number),
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: new Date(Number(block.timestamp) * 1000),
  });

  function remember(block: RpcBlock): void {
    blocks.set(block.hash, block);
    while (blocks.size > BLOCK_CACHE) {
      const oldest = blocks.keys().next().value;
      if (oldest === undefined) break;
      blocks.delete(oldest);
    }
  }

  async function probeTrace(): Promise<void> {
    if (traceMode !== undefined) return;
    const head = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
    if (head === null) return;
    try {
      await rpc.request('debug_traceBlockByHash', [head.hash, { tracer: 'callTracer' }]);
      traceMode = 'debug';
    } catch {
      try {
        await rpc.request('trace_block', [head.number]);
        traceMode = 'trace';
      } catch {
        traceMode = 'none';
      }
    }
    logger.info({ traceMode }, 'EVM node tracing');
  }

  async function ensureChainId(): Promise<void> {
    if (expectedChainId === undefined) return;
    const reported = Number(await rpc.request<string>('eth_chainId'));
    if (reported !== expectedChainId) {
      chainIdProblem = `node reports chain id ${reported}, expected ${expectedChainId} (set SVC_${isTest ? 'TEST_' : ''}CHAIN_${chainId.toUpperCase()}_CHAIN_ID for a local node)`;
      logger.error(chainIdProblem);
      throw new Error(chainIdProblem);
    }
    chainIdProblem = null;
  }

  let started: Promise<void> | null = null;
  function ensureStarted(): Promise<void> {
    started ??= (async () => {
      await ensureChainId();
      await probeTrace();
      if (traceMode === 'none' && reconciler === null) {
        logger.warn({ everyBlocks: shared.reconcileEveryBlocks }, RECONCILE_WARNING);
        reconciler = createReconciler({
          every: shared.reconcileEveryBlocks,
          confirmations: () => confirmations,
          asset: nativeCode,
          balances: (addresses, blockHash) =>
            Promise.all(
              addresses.map(async (address) =>
                BigInt(await rpc.request<string>('eth_getBalance', [address, { blockHash }])),
              ),
            ),
          hashAt: async (number) =>
            (await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false]))?.hash ?? null,
          logger,
        });
      }
    })().catch((error: unknown) => {
      started = null;
      throw error;
    });
    return started;
  }

  async function fullBlock(ref: BlockRef): Promise<RpcBlock> {
    const cached = blocks.get(ref.hash);
    if (cached !== undefined) return cached;
    const block = await rpc.request<RpcBlock | null>('eth_getBlockByHash', [ref.hash, true]);
    if (block === null)
      throw new Error(`Block ${ref.number} ${ref.hash} is no longer known to the node (reorg)`);
    remember(block);
    return block;
  }

  async function tokenLogs(block: RpcBlock, watched: ReadonlySet<string>): Promise<RpcLog[]> {
    if (contracts.length === 0 || watched.size === 0) return [];
    if (!bloomMayContain(block.logsBloom, [transferTopicHash])) return [];
    if (!contractHashes.some((h) => bloomMayContain(block.logsBloom, [h]))) return [];
    const number = Number(block.number);
    const ranged = await rangedLogs(number, watched);
    if (ranged?.every((log) => log.blockHash.toLowerCase() === block.hash.toLowerCase())) {
      return ranged;
    }
    const toFilter = watched.size <= shared.logsAddressLimit ? [...watched].map(addressTopic) : null;
    return rpc.request<RpcLog[]>('eth_getLogs', [
      { blockHash: block.hash, address: contracts, topics: [TRANSFER_TOPIC, null, toFilter] },
    ]);
  }

  /**
   * Catching up on blocks already `confirmations` deep (final by the chain's rule, so no fork to mix): Transfer logs
   * are fetched for up to SVC_EVM_LOGS_BLOCK_RANGE blocks at once, with the watched addresses in lists of at most
   * SVC_EVM_LOGS_ADDRESS_LIMIT, and served from there block by block. Null: fetch this block by hash instead.
   */
  let prefetched: { from: number; to: number; covered: Set<string>; byBlock: Map<number, RpcLog[]> } | null =
    null;
  async function rangedLogs(number: number, watched: ReadonlySet<string>): Promise<RpcLog[] | null> {
    if (lastHead === null || shared.logsBlockRange < 2) return null;
    const safeHead = lastHead.number - confirmations;
    if (number > safeHead) return null;
    const usable =
      prefetched !== null &&
      number >= prefetched.from &&
      number <= prefetched.to &&
      [...watched].every((key) => prefetched?.covered.has(key));
    if (!usable) {
      const to = Math.min(safeHead, number + shared.logsBlockRange - 1);
      if (to - number < 8) return null; // not worth it near the head
      const keys = [...watched];
      const byBlock = new Map<number, RpcLog[]>();
      for (let start = 0; start < keys.length; start += shared.logsAddressLimit) {
        const chunk = keys.slice(start, start + shared.logsAddressLimit).map(addressTopic);
        const logs = await rpc.request<RpcLog[]>('eth_getLogs', [
          {
            fromBlock: hex(number),
            toBlock: hex(to),
            address: contracts,
            topics: [TRANSFER_TOPIC, null, chunk],
          },
        ]);
        for (const log of logs) {
          const at = Number((log as RpcLog & { blockNumber: string }).blockNumber);
          const list = byBlock.get(at) ?? [];
          list.push(log);
          byBlock.set(at, list);
        }
      }
      prefetched = { from: number, to, covered: new Set(keys), byBlock };
    }
    return prefetched?.byBlock.get(number) ?? [];
  }

  async function parityInternal(block: RpcBlock, watched: ReadonlySet<string>): Promise<Found[]> {
    const traces = await rpc.request<ParityTrace[]>('trace_block', [block.number]);
    if (traces.some((t) => t.blockHash.toLowerCase() !== block.hash.toLowerCase())) {
      throw new Error(`trace_block ${Number(block.number)} answered for another fork; rescanning`);
    }
    return internalFromParityTraces(traces, watched, nativeCode);
  }

  async function internalTransfers(block: RpcBlock, watched: ReadonlySet<string>): Promise<Found[]> {
    if (traceMode === 'trace') return parityInternal(block, watched);
    if (traceMode !== 'debug') return [];
    const traces = await rpc.request<Array<{ txHash?: string; result?: CallFrame; error?: string }>>(
      'debug_traceBlockByHash',
      [block.hash, { tracer: 'callTracer' }],
    );
    const failed = traces.find((trace) => trace.result === undefined);
    if (failed !== undefined) {
      // The node could not trace some transaction (state not kept, a node restart): try its Parity traces; if it has
      // none either, say so loudly and go on rather than stall every payment on this chain.
      try {
        return await parityInternal(block, watched);
      } catch (error) {
        logger.error(
          {
            block: Number(block.number),
            traceError: failed.error,
            error: error instanceof Error ? error.message : String(error),
          },
          'block could not be traced: ether sent by contracts in it is not seen',
        );
      }
    }
    const out: Found[] = [];
    traces.forEach((trace, index) => {
      const tx = block.transactions[index];
      const txHash = trace.txHash ?? tx?.hash;
      if (txHash === undefined || trace.result === undefined) return;
      out.push(...internalFromCallTrace(trace.result, txHash, index, watched, nativeCode));
    });
    return out;
  }

  async function nonceFor(address: string, taken: Map<string, number>, open: Bundle[]): Promise<number> {
    const key = address.toLowerCase();
    const inBuild = taken.get(key);
    if (inBuild !== undefined) {
      taken.set(key, inBuild + 1);
      return inBuild + 1;
    }
    let nonce = Number(await rpc.request<string>('eth_getTransactionCount', [address, 'pending']));
    for (const bundle of open) {
      for (const tx of bundle.txs)
        if (tx.from.toLowerCase() === key && tx.nonce >= nonce) nonce = tx.nonce + 1;
    }
    const recent = recentNonces.get(key);
    if (recent !== undefined && Date.now() - recent.at < 60_000 && recent.nonce >= nonce)
      nonce = recent.nonce + 1;
    taken.set(key, nonce);
    return nonce;
  }

  async function fees(): Promise<{ baseFee: bigint; tip: bigint; maxFee: bigint }> {
    const latest = await rpc.request<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]);
    const baseFee = BigInt(latest.baseFeePerGas ?? '0x0');
    let tip: bigint;
    try {
      tip = BigInt(await rpc.request<string>('eth_maxPriorityFeePerGas'));
    } catch {
      tip = 1_000_000_000n;
    }
    const wanted = baseFee * 2n + tip;
    if (baseFee + tip > settings.maxFeePerGasWei) {
      throw new Error(
        `network fee ${baseFee + tip} wei/gas is above the cap of ${settings.maxFeePerGasWei} (MAX_FEE_GWEI); sweep waits`,
      );
    }
    const maxFee = wanted < settings.maxFeePerGasWei ? wanted : settings.maxFeePerGasWei;
    return { baseFee, tip: tip < maxFee ? tip : maxFee, maxFee };
  }

  async function sign(
    key: Hex,
    tx: { to: string; value: bigint; gas: bigint; nonce: number; maxFee: bigint; tip: bigint; data?: Hex },
  ): Promise<{ raw: Hex; hash: Hex; from: string }> {
    const account = privateKeyToAccount(key);
    const raw = await account.signTransaction({
      type: 'eip1559',
      chainId: expectedChainId ?? Number(await rpc.request<string>('eth_chainId')),
      nonce: tx.nonce,
      to: tx.to.toLowerCase() as Hex,
      value: tx.value,
      gas: tx.gas,
      maxFeePerGas: tx.maxFee,
      maxPriorityFeePerGas: tx.tip,
      ...(tx.data === undefined ? {} : { data: tx.data }),
    });
    return { raw, hash: keccak256(raw), from: account.address };
  }

  /** The deposit key of an input; throws SignerMismatchError (no signature) unless it signs for that address. */
  const depositKey = (input: { derivationIndex: number; address: string }): Hex =>
    `0x${Buffer.from(deps.signingKeys.keyFor(chainId, isTest, input.derivationIndex, input.address)).toString('hex')}` as Hex;

  /**
   * The L1 data fee an OP-stack chain (Base, OP Mainnet) charges a transaction on top of its gas, from the
   * GasPriceOracle predeploy; 0 elsewhere (and where the oracle does not answer).
   */
  async function l1DataFee(raw: Hex): Promise<bigint> {
    if (!OP_STACK.has(chainId)) return 0n;
    try {
      const answer = await rpc.request<Hex>('eth_call', [
        {
          to: GAS_PRICE_ORACLE,
          data: encodeFunctionData({ abi: gasPriceOracle, functionName: 'getL1Fee', args: [raw] }),
        },
        'latest',
      ]);
      return answer === '0x' ? 0n : BigInt(answer);
    } catch (error) {
      logger.warn({ error: error instanceof Error ? error.message : String(error) }, 'L1 fee oracle failed');
      return 0n;
    }
  }

  async function receipt(hash: string): Promise<RpcReceipt | null> {
    return rpc.request<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
  }

  async function send(tx: BundleTx): Promise<void> {
    try {
      await rpc.request('eth_sendRawTransaction', [tx.raw]);
      logger.info({ txHash: tx.hash, from: tx.from, nonce: tx.nonce }, 'sweep transaction sent');
    } catch (error) {
      if (isAlreadyKnown(error)) return;
      // "nonce too low" for a transaction that is already mined is fine; anything else is reported to the caller.
      if ((await receipt(tx.hash)) !== null) return;
      throw error;
    }
  }

  /** Sends every transaction of the bundle the node does not have yet, in order, each after its top-up is mined. */
  async function push(bundle: Bundle): Promise<void> {
    const mined = new Set<string>();
    for (const tx of bundle.txs) {
      if ((await receipt(tx.hash)) !== null) {
        mined.add(tx.hash);
        continue;
      }
      if (tx.fundedBy !== undefined && !mined.has(tx.fundedBy)) return; // its gas is not there yet: next round
      const known = await rpc.request<unknown>('eth_getTransactionByHash', [tx.hash]);
      if (known === null) await send(tx);
    }
  }

  // FINALITY=finalized: a block is final once it is both `requiredConfirmations` deep and covered by the node's
  // finalized block, expressed to the generic watcher as a confirmation count that follows the finalized head.
  let confirmations = deps.requiredConfirmations;
  async function followFinalized(head: number): Promise<void> {
    if (settings.finality !== 'finalized') return;
    const finalized = await finalizedBlock();
    const depth = finalized === null ? deps.requiredConfirmations : head - finalized + 1;
    confirmations = Math.max(deps.requiredConfirmations, depth);
  }

  async function finalizedBlock(): Promise<number | null> {
    try {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['finalized', false]);
      return block === null ? null : Number(block.number);
    } catch {
      return null;
    }
  }

  const noteDust = (entry: { address: string; asset: string; amount: bigint }): void => {
    const known = dustLog.find((d) => d.address === entry.address && d.asset === entry.asset);
    if (known !== undefined && known.amount === entry.amount) return;
    if (known !== undefined) dustLog.splice(dustLog.indexOf(known), 1);
    dustLog.push({ ...entry, at: new Date() });
    logger.warn(
      { address: entry.address, asset: entry.asset, amount: entry.amount.toString() },
      'deposit worth less than its sweep fee left on its address (dust)',
    );
  };

  return {
    chain: chainId,
    isTest,
    simulated: false,
    get requiredConfirmations() {
      return confirmations;
    },
    ...(settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs }),
    gasWallet: gasAccount.address,

    start: ensureStarted,

    async head() {
      await ensureStarted();
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
      if (block === null) return null;
      const ref = toRef(block);
      lastHead = { number: ref.number, timestamp: ref.timestamp, seenAt: new Date() };
      await followFinalized(ref.number);
      return ref;
    },

    async block(number) {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [hex(number), true]);
      if (block === null) return null;
      remember(block);
      return toRef(block);
    },

    async transfers(ref, watched): Promise<Transfer[]> {
      if (watched.size === 0) return [];
      await ensureStarted();
      const block = await fullBlock(ref);
      const [logs, internal] = await Promise.all([
        tokenLogs(block, watched),
        internalTransfers(block, watched),
      ]);
      const native = nativeCandidates(block, watched, nativeCode);
      const ether = [...native, ...internal];
      // Without traces, the sweeps leaving watched addresses are needed too (balance reconciliation).
      const outgoing =
        reconciler === null ? [] : block.transactions.filter((tx) => watched.has(tx.from.toLowerCase()));
      // Ether counts only from transactions that succeeded in this very block.
      const hashes = [...new Set([...ether.map((f) => f.txHash), ...outgoing.map((tx) => tx.hash)])];
      const receipts = await Promise.all(hashes.map((h) => receipt(h)));
      const ok = new Set<string>();
      const byHash = new Map<string, RpcReceipt>();
      receipts.forEach((r, i) => {
        const h = hashes[i];
        if (r === null || h === undefined)
          throw new Error(`Receipt of ${h} missing; block ${ref.number} rescanned`);
        if (r.blockHash.toLowerCase() !== block.hash.toLowerCase()) {
          throw new Error(
            `Receipt of ${h} is in another block than ${block.hash}; rescanning after the reorg`,
          );
        }
        byHash.set(h, r);
        if (r.status === '0x1') ok.add(h);
      });
      // Gas top-ups from our own gas wallet are not payments.
      const fromOf = new Map(block.transactions.map((tx) => [tx.hash, tx.from.toLowerCase()]));
      const gasFrom = gasAccount.address.toLowerCase();
      const found = [
        ...ether.filter(
          (f) =>
            ok.has(f.txHash) &&
            !(f.outputIndex === NATIVE_TOP_LEVEL_INDEX && fromOf.get(f.txHash) === gasFrom),
        ),
        ...tokenTransfers(logs, block.hash, watched, assetByContract),
      ];
      if (reconciler !== null) {
        const deltas = new Map<string, bigint>();
        const add = (address: string, amount: bigint) =>
          deltas.set(address, (deltas.get(address) ?? 0n) + amount);
        for (const f of native) if (ok.has(f.txHash)) add(f.to.toLowerCase(), f.amount);
        for (const tx of outgoing) {
          const r = byHash.get(tx.hash);
          const fee = BigInt(r?.gasUsed ?? '0x0') * BigInt(r?.effectiveGasPrice ?? '0x0');
          add(tx.from.toLowerCase(), -(fee + (ok.has(tx.hash) ? BigInt(tx.value) : 0n)));
        }
        reconciler.record(ref.number, ref.hash, deltas);
        found.push(...(await reconciler.reconcile(ref, watched)));
      }
      // EIP-55 form whatever the node or a log topic gave (traces and topics are lower-case).
      return inBlockOrder(found).map(({ txIndex: _txIndex, ...transfer }) => ({
        ...transfer,
        to: getAddress(transfer.to),
      }));
    },

    async recheck(deposits) {
      const standing = new Set<string>();
      const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
      // A few at a time: viem batches concurrent calls into one JSON-RPC batch.
      for (let start = 0; start < deposits.length; start += RECHECK_BATCH) {
        await Promise.all(
          deposits.slice(start, start + RECHECK_BATCH).map(async (deposit) => {
            if (deposit.txHash === deposit.blockHash) {
              // Found by balance reconciliation: no transaction of its own, its block is the evidence.
              const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [
                hex(deposit.blockNumber),
                false,
              ]);
              if (block !== null && same(block.hash, deposit.blockHash)) standing.add(deposit.txHash);
              return;
            }
            const found = await receipt(deposit.txHash);
            if (found !== null && found.status === '0x1' && same(found.blockHash, deposit.blockHash)) {
              standing.add(deposit.txHash);
            }
          }),
        );
      }
      return standing;
    },

    addressKey: (address) => address.toLowerCase(),

    async buildForward(intent: ForwardIntent): Promise<BuiltForward> {
      await ensureStarted();
      const asset = getAsset(info, intent.asset);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${intent.asset}`);
      if (intent.to === null) throw new Error(`${chainId}: no payout wallet to forward to`);
      const to = intent.to;
      const { tip, maxFee } = await fees();
      const open = (await bundles.open()).flatMap((raw) => {
        try {
          return [parseBundle(raw)];
        } catch {
          return [];
        }
      });
      const taken = new Map<string, number>();
      const txs: BundleTx[] = [];
      let amount = 0n;
      let fee = 0n;
      let topUps = 0n;
      const left: string[] = [];

      if (asset.isNative) {
        for (const input of intent.inputs) {
          const balance = BigInt(await rpc.request<string>('eth_getBalance', [input.address, 'latest']));
          const available = input.amount < balance ? input.amount : balance;
          let gas = 21_000n;
          try {
            gas = BigInt(
              await rpc.request<string>('eth_estimateGas', [{ from: input.address, to, value: hex(1n) }]),
            );
          } catch {
            gas = 21_000n;
          }
          const cost = gas * maxFee;
          if (available <= cost) {
            noteDust({ address: input.address, asset: asset.code, amount: available });
            left.push(input.address);
            continue;
          }
          const nonce = await nonceFor(input.address, taken, open);
          // Priority fee = max fee: the fee charged is exactly gas × maxFee, so balance − fee leaves nothing behind.
          const key = depositKey(input);
          const draft = { to, value: available - cost, gas, nonce, maxFee, tip: maxFee };
          let signed = await sign(key, draft);
          // OP-stack chains also charge the L1 data fee from the balance: keep twice the oracle's figure back.
          const l1 = await l1DataFee(signed.raw);
          if (l1 > 0n) {
            if (available <= cost + 2n * l1) {
              noteDust({ address: input.address, asset: asset.code, amount: available });
              left.push(input.address);
              continue;
            }
            signed = await sign(key, { ...draft, value: available - cost - 2n * l1 });
          }
          txs.push({ ...signed, nonce });
          amount += available - cost - 2n * l1;
          fee += cost + l1;
        }
      } else {
        const contract = contractOf(asset, isTest);
        if (contract === null) throw new Error(`${asset.code} has no contract on ${chainId} in this mode`);
        for (const input of intent.inputs) {
          const balanceData = await rpc.request<Hex>('eth_call', [
            {
              to: contract,
              data: encodeFunctionData({
                abi: erc20,
                functionName: 'balanceOf',
                args: [input.address as Hex],
              }),
            },
            'latest',
          ]);
          const tokenBalance = BigInt(balanceData === '0x' ? '0x0' : balanceData);
          const value = input.amount < tokenBalance ? input.amount : tokenBalance;
          if (value <= 0n) {
            logger.warn(
              { address: input.address, asset: asset.code },
              'nothing to sweep: token balance is zero',
            );
            left.push(input.address);
            continue;
          }
          const data = encodeFunctionData({ abi: erc20, functionName: 'transfer', args: [to as Hex, value] });
          let gas: bigint;
          try {
            gas = BigInt(
              await rpc.request<string>('eth_estimateGas', [{ from: input.address, to: contract, data }]),
            );
          } catch {
            gas = 100_000n;
          }
          gas = (gas * 12n) / 10n;
          const l1 = await l1DataFee(
            (
              await sign(depositKey(input), {
                to: contract,
                value: 0n,
                gas,
                nonce: 0,
                maxFee,
                tip,
                data,
              })
            ).raw,
          );
          const need = gas * maxFee + 2n * l1;
          const ethBalance = BigInt(await rpc.request<string>('eth_getBalance', [input.address, 'latest']));
          let fundedBy: Hex | undefined;
          if (ethBalance < need) {
            const topUpNonce = await nonceFor(gasAccount.address, taken, open);
            const topUp = await sign(gasKey, {
              to: input.address,
              value: need - ethBalance,
              gas: 21_000n,
              nonce: topUpNonce,
              maxFee,
              tip,
            });
            txs.push({ ...topUp, nonce: topUpNonce });
            fundedBy = topUp.hash;
            fee += 21_000n * maxFee;
            topUps += need - ethBalance + 21_000n * maxFee;
          }
          const nonce = await nonceFor(input.address, taken, open);
          const signed = await sign(depositKey(input), {
            to: contract,
            value: 0n,
            gas,
            nonce,
            maxFee,
            tip,
            data,
          });
          txs.push({ ...signed, nonce, ...(fundedBy === undefined ? {} : { fundedBy }) });
          amount += value;
          fee += need;
        }
      }
      if (topUps > 0n) {
        const has = BigInt(await rpc.request<string>('eth_getBalance', [gasAccount.address, 'pending']));
        if (has < topUps) {
          // Logged once per shortage, not once per attempt.
          if (gasShort === null) {
            logger.error(
              { gasWallet: gasAccount.address, has: has.toString(), needs: topUps.toString() },
              'gas wallet short: token sweeps wait, signed, until it is funded',
            );
          }
          gasShort = `gas wallet ${gasAccount.address} holds ${has} wei, token sweeps need ${topUps}`;
        } else {
          gasShort = null;
        }
      }
      const last = txs.at(-1);
      // Every input is dust: amount 0 tells the forwarder to leave the deposits where they are.
      if (last === undefined) return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left };
      for (const [address, nonce] of taken) recentNonces.set(address, { nonce, at: Date.now() });
      const bundle: Bundle = { evm: 1, chain: chainId, txs };
      return {
        txHash: last.hash,
        rawTx: JSON.stringify(bundle),
        amount,
        fee,
        ...(left.length > 0 ? { left } : {}),
      };
    },

    async broadcast(rawTx) {
      await push(parseBundle(rawTx));
    },

    async forwardStatus(txHash): Promise<ForwardStatus> {
      const raw = await bundles.byHash(txHash);
      if (raw === null) {
        const r = await receipt(txHash);
        return r === null
          ? { state: 'unknown' }
          : { state: 'included', blockNumber: 0, blockHash: r.blockHash };
      }
      const bundle = parseBundle(raw);
      let newest: { blockNumber: number; blockHash: string } | null = null;
      let missing = false;
      const reverted: string[] = [];
      let charged = 0n;
      for (const tx of bundle.txs) {
        const r = await rpc.request<(RpcReceipt & { blockNumber: string; l1Fee?: string }) | null>(
          'eth_getTransactionReceipt',
          [tx.hash],
        );
        if (r === null) {
          missing = true;
          continue;
        }
        // Gas used at the price paid, plus the L1 data fee OP-stack receipts carry.
        charged +=
          BigInt(r.gasUsed ?? '0x0') * BigInt(r.effectiveGasPrice ?? '0x0') + BigInt(r.l1Fee ?? '0x0');
        if (r.status !== '0x1') reverted.push(tx.hash);
        const blockNumber = Number(r.blockNumber);
        if (newest === null || blockNumber > newest.blockNumber)
          newest = { blockNumber, blockHash: r.blockHash };
      }
      if (missing) {
        // Whatever the node dropped or never got (a top-up's follower) is sent again: the same signed bytes.
        await push(bundle).catch((error: unknown) =>
          logger.warn(
            { txHash, error: error instanceof Error ? error.message : String(error) },
            'sweep re-send failed',
          ),
        );
        const anyKnown = await rpc.request<unknown>('eth_getTransactionByHash', [txHash]);
        return anyKnown === null && newest === null ? { state: 'unknown' } : { state: 'pending' };
      }
      if (newest === null) return { state: 'unknown' };
      return reverted.length === 0
        ? { state: 'included', ...newest, fee: charged }
        : { state: 'included', ...newest, reverted: `transaction ${reverted.join(', ')} reverted on chain` };
    },

    async readiness() {
      const name = `${chainId} (${isTest ? 'test' : 'live'})`;
      if (chainIdProblem !== null) return `${name}: ${chainIdProblem}`;
      const health = rpc.health();
      if (health.down !== null) {
        return `${name}: ${health.down.reason} since ${health.down.since.toISOString()}`;
      }
      const maxAge = shared.maxHeadAgeSeconds ?? Math.max(60, info.blockTimeSeconds * 10);
      if (maxAge > 0 && lastHead !== null) {
        const age = (lastHead.seenAt.getTime() - lastHead.timestamp.getTime()) / 1000;
        if (age > maxAge)
          return `${name}: node lagging: head block ${lastHead.number} is ${Math.round(age)} s old`;
      }
      return null;
    },

    finalizedBlock,

    dust: () => [...dustLog],
  };
}
