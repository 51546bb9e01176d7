import type { Logger } from 'pino';
import type { BlockRef, ChainAdapter, MempoolChanges, SeenDeposit, Transfer } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { getChain } from '../registry.ts';
import {
  BITCOIN_NETWORKS,
  type BitcoinNetwork,
  type BitcoinNetworkName,
  readableNetworks,
} from './network.ts';
import { createBitcoinNode } from './node.ts';
import { createBitcoinRefunds } from './refund.ts';
import { type BitcoinRpc, BitcoinRpcError, createBitcoinRpc } from './rpc.ts';
import { createMempoolWatcher, fetchBlockTransfers, type UtxoTransfer } from './scan.ts';
import { addressSpelling, type BitcoinChainSettings, type BitcoinSettings } from './settings.ts';
import { createBitcoinSweeper } from './sweep.ts';
import { createScriptKeys } from './watched.ts';
import { createZmqWatch, type ZmqWatch } from './zmq.ts';

/**
 * A Bitcoin-family chain (bitcoin, litecoin; live mode, or test mode on testnet, signet or regtest) behind the
 * ChainAdapter interface, over the JSON-RPC of Bitcoin Core or a fork. svc derives and signs: the node's wallet is never
 * used, and a pruned node is enough (blocks are read as they come; see README for the prune depth).
 *
 * - The node's network is read at start (`getblockchaininfo`): live mode needs `main`, test mode one of `test`,
 *   `signet`, `regtest`; anything else is refused before a block is read. Deposit addresses are spelled for the mode
 *   (bc/ltc live; tb/tltc in test mode, or bcrt/rltc when the test node is configured as regtest: addressSpelling),
 *   and read in every spelling of the mode: detection compares output scripts, never address strings.
 * - Blocks: the tip and headers are light calls; a block's transactions are read (`getblock <hash> 2`) only when the
 *   generic watcher scans it, by hash, so a scan never mixes two forks. The watcher keeps the unfinal window's block
 *   hashes and walks back to the common ancestor on a reorganisation (watcher.ts).
 * - Mempool: a `getrawmempool` diff each poll (SVC_CHAIN_<NAME>_POLL_MS, 1 s by default) decodes only new
 *   transactions; a recorded mempool deposit whose output is neither in the mempool nor in the chain's UTXO set
 *   (`gettxout` with the mempool) was replaced or double-spent and stops counting.
 * - ZMQ, where the node offers it (SVC_CHAIN_<NAME>_ZMQ_URL; zmq.ts): each `hashblock` or `rawtx` the node publishes
 *   wakes the loop (onActivity) to poll at once, so a payment shows within milliseconds of reaching the node. The
 *   messages are wake-ups only — what the poll reads decides, and a lost message costs nothing but latency — and the
 *   timed polls go on as the safety net, every ZMQ_POLL_MS (10 s by default) while ZMQ is connected, every POLL_MS
 *   while it is not (or while the optional zeromq library is missing).
 * - Sweeps: see sweep.ts. Refunds from deposit addresses: refund.ts.
 */

export interface BitcoinAdapter extends ChainAdapter {
  readonly simulated: false;
  /** Reads the node's network and checks it against the mode; call once before scanning. */
  start(): Promise<void>;
  recheck(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>>;
  mempool(
    watched: ReadonlySet<string>,
    recorded: ReadonlyArray<{ txHash: string; outputIndex: number }>,
  ): Promise<MempoolChanges>;
  readiness(): Promise<string | null>;
  /** The polling interval now: slower while the node's ZMQ notifications are connected. */
  readonly pollIntervalMs: number;
  /** The node's network once started (bitcoin-regtest, litecoin-main, …). */
  nodeNetwork(): BitcoinNetworkName | null;
  /** Deposits left unswept since start: worth less than the fee to spend them. */
  dust(): Array<{ address: string; amount: bigint; at: Date }>;
  close(): Promise<void>;
}

interface RpcHeader {
  hash: string;
  height: number;
  time: number;
  previousblockhash?: string;
  confirmations: number;
}

const ZERO_HASH = '0'.repeat(64);

export function createBitcoinAdapter(deps: {
  settings: BitcoinChainSettings;
  shared: Pick<BitcoinSettings, 'rpcTimeoutMs' | 'rpcRetries'>;
  requiredConfirmations: number;
  signingKeys: DepositSigningKeys;
  logger: Logger;
  rpc?: BitcoinRpc;
  /** Replaces the ZMQ watch built from settings.zmqUrls (tests). */
  zmq?: ZmqWatch;
}): BitcoinAdapter {
  const { settings } = deps;
  const chainId = settings.chain;
  const isTest = settings.isTest;
  const info = getChain(chainId);
  if (info === undefined || info.family !== 'bitcoin')
    throw new Error(`${chainId} is not a Bitcoin-family chain`);
  const asset = info.assets[0]?.code ?? chainId.toUpperCase();
  const logger = deps.logger.child({ chain: chainId, mode: isTest ? 'test' : 'live' });
  const rpc =
    deps.rpc ??
    createBitcoinRpc({
      urls: settings.rpcUrls,
      ...(settings.cookieFile === undefined ? {} : { cookieFile: settings.cookieFile }),
      timeoutMs: deps.shared.rpcTimeoutMs,
      retries: deps.shared.rpcRetries,
      logger,
    });
  /** svc's spelling of the addresses it writes in this mode (deposits it records); the derivers are told the same. */
  const svcNetwork = BITCOIN_NETWORKS[`${chainId}-${addressSpelling(settings)}`];
  /** Every spelling of the mode it reads: test mode's testnet and regtest prefixes alike. */
  const readable = readableNetworks(chainId, isTest);
  // Watched addresses are keyed by their output script, whichever test spelling a payment's address has.
  const scriptKeys = createScriptKeys(svcNetwork, readable);
  let nodeNetwork: BitcoinNetwork | null = null;
  let node: ReturnType<typeof createBitcoinNode> | null = null;
  let startProblem: string | null = null;
  const mempoolWatcher = createMempoolWatcher(rpc);
  const zmq =
    deps.zmq ?? (settings.zmqUrls.length === 0 ? null : createZmqWatch({ urls: settings.zmqUrls, logger }));
  const headers = new Map<string, RpcHeader>();
  const sweeper = createBitcoinSweeper({
    rpc,
    chainId,
    isTest,
    networks: readable,
    settings,
    signingKeys: deps.signingKeys,
    logger,
  });
  const refunds = createBitcoinRefunds({
    chainId,
    isTest,
    networks: readable,
    signingKeys: deps.signingKeys,
    feeRate: sweeper.feeRate,
    maxFeeRate: settings.maxFeeRate,
    logger,
    outputScript: sweeper.outputScript,
  });

  async function header(hash: string): Promise<RpcHeader> {
    const cached = headers.get(hash);
    if (cached !== undefined) return cached;
    const answer = await rpc.call<RpcHeader>('getblockheader', [hash, true]);
    // Bounded: the tip and the blocks being scanned are what is asked for again.
    if (headers.size > 2000) headers.clear();
    headers.set(hash, answer);
    return answer;
  }

  const toRef = (h: RpcHeader): BlockRef => ({
    number: h.height,
    hash: h.hash,
    parentHash: h.previousblockhash ?? ZERO_HASH,
    timestamp: new Date(h.time * 1000),
  });

  function toTransfers(found: readonly UtxoTransfer[]): Transfer[] {
    const out: Transfer[] = [];
    for (const transfer of found) {
      const to = scriptKeys.addressOf(transfer.script);
      if (to === null) continue;
      if (transfer.coinbase) {
        // Spendable only 100 blocks later, and no payer pays from a coinbase: recorded nowhere, said loudly.
        logger.warn(
          { txid: transfer.txid, vout: transfer.vout },
          'coinbase output to a deposit address ignored',
        );
        continue;
      }
      out.push({ txHash: transfer.txid, outputIndex: transfer.vout, to, asset, amount: transfer.value });
    }
    return out;
  }

  async function start(): Promise<void> {
    const chainInfo = await rpc.call<{ chain: string }>('getblockchaininfo');
    const name = `${chainId}-${chainInfo.chain}`;
    const candidate = (BITCOIN_NETWORKS as Record<string, BitcoinNetwork | undefined>)[name];
    const allowed =
      settings.network !== undefined
        ? chainInfo.chain === settings.network
        : isTest
          ? chainInfo.chain !== 'main'
          : chainInfo.chain === 'main';
    if (candidate === undefined || !allowed) {
      const expected = settings.network ?? (isTest ? 'test, signet or regtest' : 'main');
      startProblem = `${chainId} (${isTest ? 'test' : 'live'}): node is on the "${chainInfo.chain}" network, expected ${expected}`;
      throw new Error(startProblem);
    }
    startProblem = null;
    nodeNetwork = candidate;
    node = createBitcoinNode({
      rpc,
      network: candidate,
      chainId,
      isTest,
      blockTimeSeconds: info?.blockTimeSeconds ?? 600,
      ...(settings.maxHeadAgeSeconds === undefined
        ? candidate.coreChain === 'regtest'
          ? { maxHeadAgeSeconds: 0 }
          : {}
        : { maxHeadAgeSeconds: settings.maxHeadAgeSeconds }),
      logger,
    });
    await node.refresh();
    logger.info({ network: candidate.name }, 'Bitcoin-family node connected');
  }

  function started(): NonNullable<typeof node> {
    if (node === null) throw new Error(`${chainId}: adapter used before start()`);
    return node;
  }

  return {
    chain: chainId,
    isTest,
    simulated: false,
    requiredConfirmations: deps.requiredConfirmations,
    get pollIntervalMs() {
      return zmq?.connected() === true ? settings.zmqPollIntervalMs : settings.pollIntervalMs;
    },
    ...(zmq === null ? {} : { onActivity: zmq.onActivity }),
    sweepPolicy: { minDeposits: settings.sweepBatch, maxWaitMs: settings.sweepMaxAgeSeconds * 1000 },
    start,
    nodeNetwork: () => nodeNetwork?.name ?? null,

    async head() {
      const state = await started().refresh();
      if (state.blocks < 0) return null;
      return toRef(await header(state.bestBlockHash));
    },

    async block(number) {
      let hash: string;
      try {
        hash = await rpc.call<string>('getblockhash', [number]);
      } catch (error) {
        // -8: height out of range (above the tip).
        if (error instanceof BitcoinRpcError && error.code === -8) return null;
        throw error;
      }
      return toRef(await header(hash));
    },

    async transfers(block, watched) {
      if (watched.size === 0) return [];
      return toTransfers(await fetchBlockTransfers(rpc, block.hash, watched));
    },

    async recheck(deposits) {
      // Standing = its block is still on the main chain (a block off it reports confirmations -1).
      const standing = new Set<string>();
      const byBlock = new Map<string, boolean>();
      for (const deposit of deposits) {
        let onChain = byBlock.get(deposit.blockHash);
        if (onChain === undefined) {
          try {
            const h = await rpc.call<RpcHeader>('getblockheader', [deposit.blockHash, true]);
            onChain = h.confirmations >= 1 && h.height === deposit.blockNumber;
          } catch (error) {
            if (!(error instanceof BitcoinRpcError && error.code === -5)) throw error;
            onChain = false;
          }
          byBlock.set(deposit.blockHash, onChain);
        }
        if (onChain) standing.add(deposit.txHash);
      }
      return standing;
    },

    async mempool(watched, recorded) {
      // A node just started answers before it has read its saved mempool back (mempool.dat): until then an empty
      // mempool means nothing, and a recorded deposit missing from it is not gone.
      const info = await rpc.call<{ loaded?: boolean }>('getmempoolinfo');
      if (info.loaded === false) return { transfers: [], gone: [] };
      const changes = await mempoolWatcher.poll(watched);
      const gone: MempoolChanges['gone'] = [];
      const inMempool = mempoolWatcher.known();
      for (const output of recorded) {
        if (inMempool.has(output.txHash)) continue;
        // Not in the mempool: in a block (its output is in the UTXO set; the block scan records it), or gone.
        const utxo = await rpc.call<unknown>('gettxout', [output.txHash, output.outputIndex, true]);
        if (utxo === null) gone.push(output);
      }
      return { transfers: toTransfers(changes.added), gone };
    },

    addressKey: scriptKeys.keyOf,
    buildForward: sweeper.buildForward,
    bumpForward: sweeper.bumpForward,
    bumpAfterMs: settings.sweepBumpAfterSeconds * 1000,
    broadcast: sweeper.broadcast,
    forwardStatus: sweeper.forwardStatus,
    // Refunds from deposit addresses (refund.ts): their outputs spent whole, broadcast and followed like sweeps.
    refundSpendsOutputs: true,
    buildRefund: refunds.buildRefund,
    // A refund stuck unconfirmed past SWEEP_BUMP_AFTER_SECONDS is replaced by a higher fee, as sweeps are.
    bumpRefund: refunds.bumpRefund,
    refundFee: refunds.refundFee,
    checkRefundAddress: refunds.checkRefundAddress,

    async readiness() {
      if (startProblem !== null) return startProblem;
      if (node === null) {
        const health = rpc.health();
        return health.down === null
          ? null
          : `${chainId} (${isTest ? 'test' : 'live'}): ${health.down.reason}`;
      }
      return node.readiness();
    },
    dust: sweeper.dust,
    async close() {
      await zmq?.close();
      await rpc.close();
    },
  };
}
