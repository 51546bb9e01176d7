import { coinsToBaseUnits, parseJsonKeepingDecimals } from './json.ts';
import { type BitcoinRpc, BitcoinRpcError, BitcoinRpcTransportError } from './rpc.ts';

/**
 * Detection on a Bitcoin-family chain: by output script, never by address string (one script has several spellings).
 * A block (`getblock <hash> 2`: its text walked, blockTransfersFromAnswer) or a mempool transaction
 * (`getrawtransaction <txid> true`: rpc.callExact) is read with exact amounts, and every output paying a watched script
 * is one transfer, identified by its outpoint (txid, vout):
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
 * The transfers to watched scripts in a block (`getblock <hash> 2`), with exact amounts, read straight from the answer's
 * text (blockTransfersFromAnswer).
 */
export async function fetchBlockTransfers(
  rpc: BitcoinRpc,
  hash: string,
  watched: ReadonlySet<string>,
): Promise<UtxoTransfer[]> {
  return blockTransfersFromAnswer(await rpc.callText('getblock', [hash, 2]), watched);
}

/**
 * The transfers to watched scripts in a `getblock <hash> 2` answer's text (`{"result":{…block…},"error":null,…}`), in
 * block order. A block's text is megabytes of hex of which only a few outputs matter: it is walked once
 * (walkBlockAnswer), each output's script taken as text and tested against the watched set, and the amount of a
 * watched one read from its exact decimal literal; nothing else is built (JSON.parse alone of a 2,000-transaction
 * block took longer than the whole walk, and the exact re-read of the paying transactions as much again). Text with a
 * backslash (an escape the walk does not decode; the node never writes one in a block), or a block of another shape
 * than the node's (a field missing, repeated or of another type, an index that is not digits), is read the general
 * way instead: the whole answer parsed with exact decimals, then blockTransfers. Correctness never rests on the walk.
 */
export function blockTransfersFromAnswer(text: string, watched: ReadonlySet<string>): UtxoTransfer[] {
  if (text.indexOf('\\') === -1) {
    const found = walkBlockAnswer(text, watched);
    if (found !== null) return found;
  }
  let answer: { result?: RpcBlock | null; error?: { code?: unknown; message?: unknown } | null };
  try {
    answer = parseJsonKeepingDecimals(text) as typeof answer;
  } catch {
    // As rpc.ts says of an answer it parses itself.
    throw new BitcoinRpcTransportError('malformed', 'getblock: an answer that is not JSON');
  }
  if (answer.error !== undefined && answer.error !== null) {
    const { code, message } = answer.error;
    throw new BitcoinRpcError(
      'getblock',
      typeof code === 'number' ? code : 0,
      typeof message === 'string' ? message : 'unknown error',
    );
  }
  if (typeof answer.result !== 'object' || answer.result === null)
    throw new Error('getblock: the answer holds no block');
  return blockTransfers(answer.result, watched);
}

/** An output paying a watched script, its amount still text. */
interface PaidOutput {
  n: number;
  script: string;
  valueStart: number;
  valueEnd: number;
}

// The containers of a block answer the walk reads from (any other one, OTHER, is walked and checked, not read).
const OTHER = 0;
const ANSWER = 1;
const BLOCK = 2;
const TXS = 3;
const TX = 4;
const INPUTS = 5;
const INPUT = 6;
const OUTPUTS = 7;
const OUTPUT = 8;
const SCRIPT = 9;
// What the value about to be read is (by its key and container): SKIP is checked and passed over.
const SKIP = 0;
const ROOT = 1;
const RESULT = 2;
const ERROR = 3;
const TX_LIST = 4;
const TXID = 5;
const VIN = 6;
const VOUT = 7;
const VALUE = 8;
const INDEX = 9;
const SCRIPT_PUB_KEY = 10;
const HEX = 11;
const A_TX = 12;
const FIRST_INPUT = 13;
const AN_OUTPUT = 14;
/** Deeper than a block answer nests: refused (the general reading decides). */
const MAX_DEPTH = 64;

/** Whether text[start, end) is `name` (char by char: cheaper than a call for these short names). */
function named(text: string, start: number, end: number, name: string): boolean {
  const length = name.length;
  if (end - start !== length) return false;
  for (let i = 0; i < length; i++) if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * One pass over the text of a `getblock <hash> 2` answer without a backslash (no escapes, so a string is its text up
 * to the next quote: one native indexOf over the long hex strings that make most of a block): the transfers to watched
 * scripts, or null where the text is not JSON (every value, read or passed over, is checked against JSON's grammar)
 * or not a block answer of the node's shape (a field missing, repeated or of another type). One leniency: a string is
 * not searched for raw control characters, which JSON.parse refuses (a txid that is returned is).
 *
 * A loop over tokens with the path kept as a small stack of container kinds (a recursive reader with a cursor object
 * took about a fifth longer). What remains is mostly the indexOf per string (some 100,000 in a 2,000-transaction
 * block) and the watched-set lookup per output (a miss in a 100,000-entry Set costs a few cache misses).
 */
export function walkBlockAnswer(text: string, watched: ReadonlySet<string>): UtxoTransfer[] | null {
  const length = text.length;
  /** The open containers: kind × 2, + 1 for an object. */
  const stack = new Uint8Array(MAX_DEPTH);
  let depth = 0;
  let at = 0;
  let c = 0;
  let field = ROOT;
  // The answer and its block.
  let transfers: UtxoTransfer[] | null = null;
  let sawResult = false;
  let sawError = false;
  // The transaction being read.
  let txidStart = -1;
  let txidEnd = -1;
  let inputs = -1;
  let coinbase = false;
  let sawVout = false;
  let paid: PaidOutput[] | null = null;
  // The output being read.
  let index = -1;
  let valueStart = -1;
  let valueEnd = -1;
  let sawScript = false;
  let scriptStart = -1;
  let scriptEnd = -1;
  for (;;) {
    // A value, of the kind `field` says.
    c = text.charCodeAt(at);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
    let opened = -1;
    if (c === 34 /* " */) {
      const end = text.indexOf('"', at + 1);
      if (end === -1) return null;
      if (field === HEX) {
        if (scriptStart !== -1) return null;
        scriptStart = at + 1;
        scriptEnd = end;
      } else if (field === TXID) {
        if (txidStart !== -1) return null;
        txidStart = at + 1;
        txidEnd = end;
      } else if (field !== SKIP) {
        return null;
      }
      at = end + 1;
    } else if (c === 123 /* { */) {
      let kind = OTHER;
      if (field === AN_OUTPUT) {
        kind = OUTPUT;
        index = -1;
        valueStart = -1;
        sawScript = false;
        scriptStart = -1;
      } else if (field === SCRIPT_PUB_KEY) {
        if (sawScript) return null;
        sawScript = true;
        kind = SCRIPT;
      } else if (field === A_TX) {
        kind = TX;
        txidStart = -1;
        inputs = -1;
        coinbase = false;
        sawVout = false;
        paid = null;
      } else if (field === FIRST_INPUT) {
        kind = INPUT;
      } else if (field === RESULT) {
        kind = BLOCK;
      } else if (field === ROOT) {
        kind = ANSWER;
      } else if (field !== SKIP) {
        return null;
      }
      opened = kind * 2 + 1;
    } else if (c === 91 /* [ */) {
      let kind = OTHER;
      if (field === VIN) {
        if (inputs !== -1) return null;
        kind = INPUTS;
        inputs = 0;
      } else if (field === VOUT) {
        if (sawVout) return null;
        sawVout = true;
        kind = OUTPUTS;
      } else if (field === TX_LIST) {
        if (transfers !== null) return null;
        kind = TXS;
        transfers = [];
      } else if (field !== SKIP) {
        return null;
      }
      opened = kind * 2;
    } else if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = at;
      if (c === 45) c = text.charCodeAt(++at);
      if (c === 48) {
        c = text.charCodeAt(++at);
      } else if (c >= 49 && c <= 57) {
        do c = text.charCodeAt(++at);
        while (c >= 48 && c <= 57);
      } else {
        return null;
      }
      if (c === 46 /* . */) {
        c = text.charCodeAt(++at);
        if (!(c >= 48 && c <= 57)) return null;
        do c = text.charCodeAt(++at);
        while (c >= 48 && c <= 57);
      }
      if (c === 101 /* e */ || c === 69 /* E */) {
        c = text.charCodeAt(++at);
        if (c === 43 /* + */ || c === 45 /* - */) c = text.charCodeAt(++at);
        if (!(c >= 48 && c <= 57)) return null;
        do c = text.charCodeAt(++at);
        while (c >= 48 && c <= 57);
      }
      if (field === VALUE) {
        if (valueStart !== -1) return null;
        valueStart = start;
        valueEnd = at;
      } else if (field === INDEX) {
        // An output index: digits only (no sign, fraction or exponent), at most nine.
        if (index !== -1 || at - start > 9) return null;
        let value = 0;
        for (let i = start; i < at; i++) {
          const d = text.charCodeAt(i) - 48;
          if (d < 0 || d > 9) return null;
          value = value * 10 + d;
        }
        index = value;
      } else if (field !== SKIP) {
        return null;
      }
    } else if (c === 110 /* n */ && text.startsWith('null', at)) {
      if (field === ERROR) {
        if (sawError) return null;
        sawError = true;
      } else if (field !== SKIP) {
        return null;
      }
      at += 4;
    } else if (field !== SKIP) {
      return null;
    } else if (c === 116 /* t */ && text.startsWith('true', at)) {
      at += 4;
    } else if (c === 102 /* f */ && text.startsWith('false', at)) {
      at += 5;
    } else {
      return null;
    }

    // What follows: a container's first member, commas and closing brackets, until the next value to read.
    let next = false;
    if (opened !== -1) {
      if (depth === MAX_DEPTH) return null;
      stack[depth++] = opened;
      at += 1;
      c = text.charCodeAt(at);
      while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
      next = c !== ((opened & 1) === 1 ? 125 : 93);
    }
    while (!next) {
      if (depth === 0) {
        // The answer is read: nothing but whitespace may follow. Never read past the end: an out-of-bounds charCodeAt
        // throws the optimized code away (a deopt at the end of every block, each next one walked slowly again).
        for (; at < length; at++) {
          c = text.charCodeAt(at);
          if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return null;
        }
        return sawResult ? transfers : null;
      }
      const top = stack[depth - 1] as number;
      if (opened === -1) {
        c = text.charCodeAt(at);
        while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
        if (c === 44 /* , */) {
          at += 1;
          next = true;
          break;
        }
      }
      opened = -1;
      if (c !== ((top & 1) === 1 ? 125 : 93)) return null;
      at += 1;
      depth -= 1;
      // A container closed: what it completes.
      const kind = top >> 1;
      if (kind === OUTPUT) {
        if (index === -1 || valueStart === -1 || scriptStart === -1) return null;
        const script = text.slice(scriptStart, scriptEnd);
        if (watched.has(script)) {
          paid ??= [];
          paid.push({ n: index, script, valueStart, valueEnd });
        }
      } else if (kind === TX) {
        if (txidStart === -1 || inputs === -1 || !sawVout || transfers === null) return null;
        if (paid !== null) {
          // JSON.parse refuses raw control characters in a string: so does the walk, in the one it returns.
          for (let i = txidStart; i < txidEnd; i++) if (text.charCodeAt(i) < 32) return null;
          const txid = text.slice(txidStart, txidEnd);
          const isCoinbase = inputs === 1 && coinbase;
          for (const output of paid) {
            transfers.push({
              txid,
              vout: output.n,
              script: output.script,
              value: coinsToBaseUnits(text.slice(output.valueStart, output.valueEnd)),
              coinbase: isCoinbase,
            });
          }
        }
      } else if (kind === BLOCK) {
        if (transfers === null) return null;
        sawResult = true;
      }
    }

    // The next member of the innermost container: in an object its key, then the value's field.
    const top = stack[depth - 1] as number;
    const kind = top >> 1;
    if ((top & 1) === 0) {
      if (kind === TXS) field = A_TX;
      else if (kind === OUTPUTS) field = AN_OUTPUT;
      else if (kind === INPUTS) field = inputs++ === 0 ? FIRST_INPUT : SKIP;
      else field = SKIP;
      continue;
    }
    c = text.charCodeAt(at);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
    if (c !== 34) return null;
    const keyStart = at + 1;
    const keyEnd = text.indexOf('"', keyStart);
    if (keyEnd === -1) return null;
    at = keyEnd + 1;
    c = text.charCodeAt(at);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++at);
    if (c !== 58 /* : */) return null;
    at += 1;
    field = SKIP;
    if (kind === OUTPUT) {
      if (named(text, keyStart, keyEnd, 'value')) field = VALUE;
      else if (named(text, keyStart, keyEnd, 'n')) field = INDEX;
      else if (named(text, keyStart, keyEnd, 'scriptPubKey')) field = SCRIPT_PUB_KEY;
    } else if (kind === SCRIPT) {
      if (named(text, keyStart, keyEnd, 'hex')) field = HEX;
    } else if (kind === TX) {
      if (named(text, keyStart, keyEnd, 'txid')) field = TXID;
      else if (named(text, keyStart, keyEnd, 'vin')) field = VIN;
      else if (named(text, keyStart, keyEnd, 'vout')) field = VOUT;
    } else if (kind === INPUT) {
      if (named(text, keyStart, keyEnd, 'coinbase')) {
        if (coinbase) return null;
        coinbase = true;
      }
    } else if (kind === BLOCK) {
      if (named(text, keyStart, keyEnd, 'tx')) field = TX_LIST;
    } else if (kind === ANSWER) {
      if (named(text, keyStart, keyEnd, 'result')) {
        if (sawResult || transfers !== null) return null;
        field = RESULT;
      } else if (named(text, keyStart, keyEnd, 'error')) {
        field = ERROR;
      }
    }
  }
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
