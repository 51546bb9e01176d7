import { coinsToBaseUnits, jsonValueEnd, parseJsonKeepingDecimals } from './json.ts';
import { type BitcoinRpc, BitcoinRpcError } from './rpc.ts';

/**
 * Detection on a Bitcoin-family chain: by output script, never by address string (one script has several spellings).
 * A block (`getblock <hash> 2`) or a mempool transaction (`getrawtransaction <txid> true`) is read with exact amounts
 * (rpc.callExact) and every output paying a watched script is one transfer, identified by its outpoint (txid, vout):
 * several outputs to one address are several transfers, one transaction paying several addresses gives one transfer
 * per output, and the same outpoint seen in the mempool and then in a block is the same transfer (the caller keys its
 * records by outpoint, so it is counted once).
 */

/** An output as the node writes it with exact decimals: `value` in coins as decimal text. */
interface RpcVout {
  value: string | number;
  n: number;
  scriptPubKey: { hex: string; type?: string };
}

interface RpcTx {
  txid: string;
  vin: ReadonlyArray<{ coinbase?: string; txid?: string; vout?: number }>;
  vout: readonly RpcVout[];
}

/** `getblock <hash> 2`: the block with every transaction decoded. */
export interface RpcBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  time: number;
  tx: readonly RpcTx[];
}

export interface UtxoTransfer {
  txid: string;
  vout: number;
  /** The output script (lower-case hex) it pays: one of the watched ones. */
  script: string;
  /** Base units (satoshis, litoshis). */
  value: bigint;
  /** A coinbase output can be spent only after 100 blocks: whoever credits it must wait for that. */
  coinbase: boolean;
}

/**
 * The outputs of one transaction that pay a watched script. Scripts are compared as lower-case hex: what the node
 * writes and what network.ts's addressToScript gives.
 */
function transactionTransfers(tx: RpcTx, watched: ReadonlySet<string>): UtxoTransfer[] {
  const transfers: UtxoTransfer[] = [];
  const coinbase = tx.vin.length === 1 && tx.vin[0]?.coinbase !== undefined;
  for (const output of tx.vout) {
    const script = output.scriptPubKey.hex;
    if (!watched.has(script)) continue;
    transfers.push({
      txid: tx.txid,
      vout: output.n,
      script,
      value: coinsToBaseUnits(output.value),
      coinbase,
    });
  }
  return transfers;
}

/** The transfers to watched scripts in a block, in block order. */
export function blockTransfers(block: RpcBlock, watched: ReadonlySet<string>): UtxoTransfer[] {
  const transfers: UtxoTransfer[] = [];
  for (const tx of block.tx) transfers.push(...transactionTransfers(tx, watched));
  return transfers;
}

/**
 * A block read with plain JSON.parse: its ids, output indexes and scripts are exact, its amounts are floats and are
 * never read (the type leaves them out).
 */
interface BlockOutline {
  tx: ReadonlyArray<{
    txid: string;
    vout: ReadonlyArray<{ n: number; scriptPubKey: { hex: string } }>;
  }>;
}

/**
 * The transfers to watched scripts in a block (`getblock <hash> 2`), with exact amounts, for about the cost of one
 * JSON.parse of its text. Reading the whole block with exact decimals (every amount quoted first, then parsed) took
 * twice as long, and only the few transactions that pay a watched script need exact amounts: the block is parsed
 * plainly to find them, and each of those is read again, exactly, from its own text. A transaction's text is found by
 * its id from where the previous one ended: a block lists a transaction before any that spends it, so the first
 * `{"txid":"<id>"` from there is its own object, and it must then agree with the outline (id, output indexes and
 * scripts). If it ever does not, the whole block is read exactly instead: correctness never rests on the shortcut.
 */
export async function fetchBlockTransfers(
  rpc: BitcoinRpc,
  hash: string,
  watched: ReadonlySet<string>,
): Promise<UtxoTransfer[]> {
  const { result, text } = await rpc.callWithText<BlockOutline>('getblock', [hash, 2]);
  return blockTransfersFromText(result, text, watched);
}

/** fetchBlockTransfers on a block already fetched: `outline` is `text`'s result parsed with JSON.parse. */
export function blockTransfersFromText(
  outline: BlockOutline,
  text: string,
  watched: ReadonlySet<string>,
): UtxoTransfer[] {
  const transfers: UtxoTransfer[] = [];
  let from = 0;
  for (const tx of outline.tx) {
    if (!tx.vout.some((output) => watched.has(output.scriptPubKey.hex))) continue;
    const exact = exactTransaction(text, tx, from);
    if (exact === null) {
      const whole = parseJsonKeepingDecimals(text) as { result: RpcBlock };
      return blockTransfers(whole.result, watched);
    }
    from = exact.end;
    transfers.push(...transactionTransfers(exact.tx, watched));
  }
  return transfers;
}

function exactTransaction(
  text: string,
  outline: BlockOutline['tx'][number],
  from: number,
): { tx: RpcTx; end: number } | null {
  const start = text.indexOf(`{"txid":"${outline.txid}"`, from);
  if (start === -1) return null;
  const end = jsonValueEnd(text, start);
  if (end === -1) return null;
  let tx: RpcTx;
  try {
    tx = parseJsonKeepingDecimals(text.slice(start, end)) as RpcTx;
  } catch {
    return null;
  }
  const same =
    tx.txid === outline.txid &&
    Array.isArray(tx.vin) &&
    Array.isArray(tx.vout) &&
    tx.vout.length === outline.vout.length &&
    tx.vout.every((output, i) => {
      const expected = outline.vout[i];
      return (
        expected !== undefined &&
        output.n === expected.n &&
        output.scriptPubKey?.hex === expected.scriptPubKey.hex
      );
    });
  return same ? { tx, end } : null;
}

interface MempoolChanges {
  /** Transfers to watched scripts in transactions that entered the mempool since the last poll. */
  added: UtxoTransfer[];
  /**
   * Transactions that left the mempool since the last poll: mined, replaced (BIP125), conflicted by a double spend or
   * evicted. Which one it was is for the caller to find out (a block holds it or not).
   */
  removed: string[];
}

export interface MempoolWatcher {
  /** Diffs `getrawmempool` against the previous poll and decodes only the new transactions. */
  poll(watched: ReadonlySet<string>): Promise<MempoolChanges>;
  /** Transactions known to be in the mempool at the last poll. */
  size(): number;
  /** Their txids. */
  known(): ReadonlySet<string>;
}

/** Rounds of `getrawtransaction` at once: enough to keep the node busy, few enough not to queue behind its 4 threads. */
const FETCH_CONCURRENCY = 8;

/**
 * The cheap mempool watch: each poll asks for the txids (`getrawmempool`) and decodes only those not seen before. The
 * first poll decodes the whole mempool (what was already waiting when svc started). A transaction that leaves the
 * mempool between the two calls (-5, not found) is skipped: it is either in a block the block scan reads, or gone.
 */
export function createMempoolWatcher(rpc: BitcoinRpc): MempoolWatcher {
  let known = new Set<string>();
  return {
    async poll(watched) {
      const txids = await rpc.call<string[]>('getrawmempool', [false]);
      const current = new Set(txids);
      const fresh = txids.filter((txid) => !known.has(txid));
      const removed = [...known].filter((txid) => !current.has(txid));
      const added: UtxoTransfer[] = [];
      const gone = new Set<string>();
      for (let start = 0; start < fresh.length; start += FETCH_CONCURRENCY) {
        const batch = fresh.slice(start, start + FETCH_CONCURRENCY);
        const txs = await Promise.all(
          batch.map(async (txid) => {
            try {
              return await rpc.callExact<RpcTx>('getrawtransaction', [txid, true]);
            } catch (error) {
              if (error instanceof BitcoinRpcError && error.code === -5) {
                gone.add(txid);
                return null;
              }
              throw error;
            }
          }),
        );
        for (const tx of txs) if (tx !== null) added.push(...transactionTransfers(tx, watched));
      }
      for (const txid of gone) current.delete(txid);
      known = current;
      return { added, removed };
    },
    size: () => known.size,
    known: () => known,
  };
}
