import type { Transfer } from '../adapter.ts';

/**
 * The pure part of finding deposits in an EVM block: which transactions pay a watched address directly, which calls
 * inside a transaction's trace do, and which token Transfer logs do. No I/O here, so every rule is unit-tested.
 *
 * `outputIndex` (unique within a transaction, stable across rescans):
 * - a token Transfer log: its log index in the block (>= 0);
 * - ether sent by the transaction itself (`tx.to`, `tx.value`): -1;
 * - ether sent by an internal call: -(2 + k), k the call's position in the trace walked depth-first (the transaction's
 *   own top-level call is not counted: it is the -1 above).
 */

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export const NATIVE_TOP_LEVEL_INDEX = -1;

/**
 * Whether two hex strings (hashes, topics) are the same whatever their case. Nodes write them in lower case, so the
 * text is usually equal as it is and nothing is lower-cased (this runs for every log of a scanned block).
 */
export function sameHex(a: string, b: string): boolean {
  return a === b || a.toLowerCase() === b.toLowerCase();
}
const internalIndex = (k: number): number => -(2 + k);

interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: string;
  transactionIndex: string;
}

export interface RpcBlock {
  number: string;
  hash: string;
  parentHash: string;
  timestamp: string;
  logsBloom: string;
  transactions: RpcTransaction[];
}

export interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockHash: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed?: boolean;
}

export interface RpcReceipt {
  transactionHash: string;
  blockHash: string;
  status: string;
  gasUsed?: string;
  effectiveGasPrice?: string;
}

/** A callTracer frame (debug_traceBlockByHash / debug_traceTransaction with tracer "callTracer"). */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  error?: string;
  calls?: CallFrame[];
}

/** One element of a Parity/OpenEthereum-style trace_block answer. */
export interface ParityTrace {
  type: string;
  action: {
    callType?: string;
    to?: string;
    value?: string;
    address?: string;
    refundAddress?: string;
    balance?: string;
  };
  error?: string;
  traceAddress: number[];
  transactionHash: string | null;
  transactionPosition: number | null;
  blockHash: string;
}

/** A transfer with the position of its transaction in the block, for ordering. */
export interface Found extends Transfer {
  txIndex: number;
}

const toBig = (hex: string | undefined): bigint =>
  hex === undefined || hex === '' || hex === '0x' ? 0n : BigInt(hex);

/** Top-level ether payments to watched addresses (their receipts still have to say success). */
export function nativeCandidates(block: RpcBlock, watched: ReadonlySet<string>, asset: string): Found[] {
  const out: Found[] = [];
  for (const tx of block.transactions) {
    // Most transactions of a real block are contract calls moving no ether: skipped before the address lookup.
    if (tx.to === null || tx.value === '0x0') continue;
    const key = tx.to.toLowerCase();
    if (!watched.has(key)) continue;
    const amount = toBig(tx.value);
    if (amount <= 0n) continue;
    out.push({
      txHash: tx.hash,
      outputIndex: NATIVE_TOP_LEVEL_INDEX,
      to: tx.to,
      asset,
      amount,
      txIndex: Number(tx.transactionIndex),
    });
  }
  return out;
}

const VALUE_FRAMES = new Set(['CALL', 'SELFDESTRUCT']);

/**
 * Ether moved to watched addresses by calls inside one transaction's callTracer trace. A frame that reverted (has
 * `error`) moved nothing, and neither did anything below it; the root frame is the transaction's own transfer and is
 * left to `nativeCandidates`.
 */
export function internalFromCallTrace(
  root: CallFrame,
  txHash: string,
  txIndex: number,
  watched: ReadonlySet<string>,
  asset: string,
): Found[] {
  const out: Found[] = [];
  if (root.error !== undefined) return out;
  walkCalls(root.calls, 0, { txHash, txIndex, watched, asset, out });
  return out;
}

/** Depth-first over `frames`, the first at position `k`; returns the position after the last frame below them. */
function walkCalls(
  frames: CallFrame[] | undefined,
  k: number,
  tx: { txHash: string; txIndex: number; watched: ReadonlySet<string>; asset: string; out: Found[] },
): number {
  if (frames === undefined) return k;
  for (const frame of frames) {
    const position = k;
    k += 1;
    if (frame.error !== undefined) {
      // Reverted: its value and its children's never moved. Children still take positions so indices stay stable.
      k += countFrames(frame.calls);
      continue;
    }
    const amount = toBig(frame.value);
    if (
      VALUE_FRAMES.has(frame.type.toUpperCase()) &&
      frame.to !== undefined &&
      amount > 0n &&
      tx.watched.has(frame.to.toLowerCase())
    ) {
      const { txHash, txIndex, asset } = tx;
      tx.out.push({ txHash, outputIndex: internalIndex(position), to: frame.to, asset, amount, txIndex });
    }
    k = walkCalls(frame.calls, k, tx);
  }
  return k;
}

function countFrames(frames: CallFrame[] | undefined): number {
  let n = 0;
  for (const frame of frames ?? []) n += 1 + countFrames(frame.calls);
  return n;
}

/**
 * The same from a Parity-style `trace_block`: traces come flat, depth-first, each with its `traceAddress`. The
 * transaction's own call (empty traceAddress) is skipped; a trace under a failed one (its traceAddress extends a
 * failed trace's) moved nothing. Position k counts the non-root traces of the transaction in order, like the
 * callTracer walk, so both tracers give a transfer the same outputIndex.
 */
export function internalFromParityTraces(
  traces: ParityTrace[],
  watched: ReadonlySet<string>,
  asset: string,
): Found[] {
  const out: Found[] = [];
  let currentTx: string | null = null;
  let k = 0;
  let failed: number[][] = [];
  let rootFailed = false;
  for (const trace of traces) {
    if (trace.transactionHash === null || trace.transactionPosition === null) continue; // block rewards
    if (trace.transactionHash !== currentTx) {
      currentTx = trace.transactionHash;
      k = 0;
      failed = [];
      rootFailed = false;
    }
    if (trace.traceAddress.length === 0) {
      rootFailed = trace.error !== undefined;
      continue;
    }
    const position = k;
    k += 1;
    const underFailed = failed.some(
      (prefix) =>
        prefix.length <= trace.traceAddress.length && prefix.every((v, i) => trace.traceAddress[i] === v),
    );
    if (trace.error !== undefined) {
      failed.push(trace.traceAddress);
      continue;
    }
    if (rootFailed || underFailed) continue;
    let to: string | undefined;
    let value: string | undefined;
    if (trace.type === 'call' && (trace.action.callType ?? 'call') === 'call') {
      to = trace.action.to;
      value = trace.action.value;
    } else if (trace.type === 'suicide' || trace.type === 'selfdestruct') {
      to = trace.action.refundAddress;
      value = trace.action.balance;
    }
    const amount = toBig(value);
    if (to === undefined || amount <= 0n || !watched.has(to.toLowerCase())) continue;
    out.push({
      txHash: trace.transactionHash,
      outputIndex: internalIndex(position),
      to,
      asset,
      amount,
      txIndex: trace.transactionPosition,
    });
  }
  return out;
}

/** The 32-byte topic form of an address (what `eth_getLogs` matches the indexed `to` against). */
export function addressTopic(address: string): string {
  return `0x${address.toLowerCase().replace(/^0x/, '').padStart(64, '0')}`;
}

function topicAddress(topic: string): string {
  return `0x${topic.slice(-40)}`.toLowerCase();
}

/**
 * Token payments: ERC-20 Transfer logs of the registry's contracts (`assetByContract`, lower-case keys) whose `to`
 * is watched, only from the block being scanned. The amount is the log's value: what actually arrived (a
 * fee-on-transfer token logs the net amount to the recipient).
 */
export function tokenTransfers(
  logs: RpcLog[],
  blockHash: string,
  watched: ReadonlySet<string>,
  assetByContract: ReadonlyMap<string, string>,
): Found[] {
  const out: Found[] = [];
  for (const log of logs) {
    if (log.removed === true) continue;
    if (!sameHex(log.blockHash, blockHash)) continue;
    const topic = log.topics[0];
    if (log.topics.length !== 3 || topic === undefined) continue; // ERC-721 has 4
    if (!sameHex(topic, TRANSFER_TOPIC)) continue;
    const asset = assetByContract.get(log.address) ?? assetByContract.get(log.address.toLowerCase());
    if (asset === undefined) continue;
    const toTopic = log.topics[2];
    if (toTopic === undefined) continue;
    const to = topicAddress(toTopic);
    if (!watched.has(to)) continue;
    const amount = toBig(log.data.length > 66 ? log.data.slice(0, 66) : log.data);
    if (amount <= 0n) continue;
    out.push({
      txHash: log.transactionHash,
      outputIndex: Number(log.logIndex),
      to,
      asset,
      amount,
      txIndex: Number(log.transactionIndex),
    });
  }
  return out;
}

/** Block order: by transaction, then the transaction's own transfer, its internal calls, its logs. */
export function inBlockOrder(found: Found[]): Found[] {
  const rank = (f: Found): number => (f.outputIndex >= 0 ? 1e9 + f.outputIndex : -f.outputIndex);
  return [...found].sort((a, b) => a.txIndex - b.txIndex || rank(a) - rank(b));
}

/**
 * Whether a 2048-bit logs bloom may contain a log with `address` and `topic` (false: certainly none, so the
 * eth_getLogs call can be skipped). Bloom: 3 bits from the first 6 bytes of keccak256 of each item.
 */
export function bloomMayContain(bloomHex: string, itemHashes: Uint8Array[]): boolean {
  const bloom = Buffer.from(bloomHex.replace(/^0x/, ''), 'hex');
  if (bloom.length !== 256) return true;
  for (const hash of itemHashes) {
    for (let i = 0; i < 6; i += 2) {
      const bit = (((hash[i] ?? 0) << 8) | (hash[i + 1] ?? 0)) & 2047;
      const byte = bloom[255 - Math.floor(bit / 8)] ?? 0;
      if ((byte & (1 << (bit % 8))) === 0) return false;
    }
  }
  return true;
}
