import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Logger } from 'pino';
import type { BlockRef, ChainAdapter, Transfer } from '../adapter.ts';
import { toChecksumAddress } from '../addresses.ts';
import { type ChainInfo, contractOf } from '../registry.ts';
import { type EvmNode, hex } from './node.ts';
import type { EvmRpc } from './rpc.ts';
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
  sameHex,
  TRANSFER_TOPIC,
  tokenTransfers,
} from './scan.ts';
import type { EvmSettings } from './settings.ts';

/**
 * The scanning side of an EVM chain: heads and blocks (always read by hash, so a scan never mixes two forks), the
 * transfers in a block to watched addresses, and the re-check of deposits before they are credited.
 */

/** Receipts re-read at once before crediting. */
const RECHECK_BATCH = 50;
const BLOCK_CACHE = 32;

export function createEvmTransfers(deps: {
  rpc: EvmRpc;
  node: EvmNode;
  info: ChainInfo;
  isTest: boolean;
  shared: EvmSettings;
  /** The gas wallet: its top-ups of deposit addresses are not payments. */
  gasAddress: string;
  logger: Logger;
}): Pick<ChainAdapter, 'head' | 'block' | 'transfers'> & { recheck: NonNullable<ChainAdapter['recheck']> } {
  const { rpc, node, shared, logger, info, isTest } = deps;
  const nativeCode = info.nativeAsset.code;
  const assetByContract = new Map<string, string>();
  for (const asset of info.assets) {
    const contract = contractOf(asset, isTest);
    if (contract !== null) assetByContract.set(contract.toLowerCase(), asset.code);
  }
  const contracts = [...assetByContract.keys()];
  const transferTopicHash = keccak_256(Buffer.from(TRANSFER_TOPIC.slice(2), 'hex'));
  const contractHashes = contracts.map((c) => keccak_256(Buffer.from(c.slice(2), 'hex')));
  const blocks = new Map<string, RpcBlock>();

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
    if (ranged?.every((log) => sameHex(log.blockHash, block.hash))) {
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
    const lastHead = node.lastHead();
    if (lastHead === null || shared.logsBlockRange < 2) return null;
    const safeHead = lastHead.number - node.confirmations();
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
    if (traces.some((t) => !sameHex(t.blockHash, block.hash))) {
      throw new Error(`trace_block ${Number(block.number)} answered for another fork; rescanning`);
    }
    return internalFromParityTraces(traces, watched, nativeCode);
  }

  async function internalTransfers(block: RpcBlock, watched: ReadonlySet<string>): Promise<Found[]> {
    if (node.traceMode() === 'trace') return parityInternal(block, watched);
    if (node.traceMode() !== 'debug') return [];
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

  return {
    async head() {
      await node.start();
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
      if (block === null) return null;
      const ref = toRef(block);
      await node.noteHead(ref);
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
      await node.start();
      const reconciler = node.reconciler();
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
      const receipts = await Promise.all(hashes.map((h) => node.receipt(h)));
      const ok = new Set<string>();
      const byHash = new Map<string, RpcReceipt>();
      receipts.forEach((r, i) => {
        const h = hashes[i];
        if (r === null || h === undefined)
          throw new Error(`Receipt of ${h} missing; block ${ref.number} rescanned`);
        if (!sameHex(r.blockHash, block.hash)) {
          throw new Error(
            `Receipt of ${h} is in another block than ${block.hash}; rescanning after the reorg`,
          );
        }
        byHash.set(h, r);
        if (r.status === '0x1') ok.add(h);
      });
      // Gas top-ups from our own gas wallet are not payments.
      const fromOf = new Map(block.transactions.map((tx) => [tx.hash, tx.from]));
      const gasFrom = deps.gasAddress.toLowerCase();
      const found = [
        ...ether.filter(
          (f) =>
            ok.has(f.txHash) &&
            !(f.outputIndex === NATIVE_TOP_LEVEL_INDEX && fromOf.get(f.txHash)?.toLowerCase() === gasFrom),
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
      return inBlockOrder(found).map(
        (f): Transfer => ({
          txHash: f.txHash,
          outputIndex: f.outputIndex,
          to: toChecksumAddress(f.to),
          asset: f.asset,
          amount: f.amount,
        }),
      );
    },

    async recheck(deposits) {
      const standing = new Set<string>();
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
              if (block !== null && sameHex(block.hash, deposit.blockHash)) standing.add(deposit.txHash);
              return;
            }
            const found = await node.receipt(deposit.txHash);
            if (found !== null && found.status === '0x1' && sameHex(found.blockHash, deposit.blockHash)) {
              standing.add(deposit.txHash);
            }
          }),
        );
      }
      return standing;
    },
  };
}
