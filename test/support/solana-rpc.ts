import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  lamports,
  type Transaction,
} from '@solana/kit';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { startSolanaPubSub } from './solana-pubsub.ts';

/**
 * A small Solana JSON-RPC server over LiteSVM (the real SVM with the System, SPL Token and Associated Token Account
 * programs, in-process) for tests: it answers the methods svc's solana adapter uses, with the response shapes of
 * Solana's RPC documentation, and models what LiteSVM has not:
 * - Slots and blocks: `tick()` (or a timer, `slotMs`) closes the open slot into a block holding the transactions
 *   executed since, with its own blockhash, parent slot and block height; `skipSlots(n)` makes the next n slots
 *   skipped (no block), as on the real cluster.
 * - Commitment by slot lag: `processed` is the open slot, `confirmed` the newest block, `finalized` the block
 *   `finalizedLag` blocks below it. getBlock/getBlocks/getSlot/getSignatureStatuses answer per commitment.
 * - Blockhash lifetime: a transaction's recent blockhash must be one of the last `blockhashLifetime` blocks' (LiteSVM's
 *   own check is off), so a signed transaction expires as on the cluster; getLatestBlockhash gives lastValidBlockHeight.
 * - Pre/post balances and token balances are read around each transaction, so getBlock's `meta` is what the cluster's
 *   would be (failed transactions pay their fee and change nothing else, `meta.err` set).
 * - Forks: `fork(depth)` abandons the newest blocks above finalized as when the cluster confirms another fork: their
 *   slots become skipped (getBlock answers -32007, getBlocks omits them, at every commitment), the next block's parent
 *   is the block under them, at the same heights; their transactions are dropped (their effects undone in the SVM,
 *   getSignatureStatuses answers null) unless named to land again in the new fork's next block.
 * - PubSub: a WebSocket (`wsUrl`, its own port as a validator's RPC port + 1) serves `slotSubscribe`: a
 *   `slotNotification` for each new block's slot. `websocket(false)` drops every socket and refuses new ones.
 * - Faults: `down(true)` answers every request with HTTP 503; `dropSends(n)` accepts the next n transactions sent over
 *   RPC (their signature returned) and every re-send of them without executing them, as leaders that never got them
 *   (so they expire unseen); `behind(n)` makes getHealth
 *   report the node behind; `rateLimit(n)` answers the next n requests with HTTP 429.
 * Every request is counted per method (`counts`).
 */

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

interface RecordedTransaction {
  signature: string;
  wire: Uint8Array;
  slot: number;
  err: unknown;
  json: Record<string, unknown>;
  /** The accounts it writes as they were before it ran (absent: did not exist), to undo it when a fork drops it. */
  before: Array<{ key: string; account: StoredAccount | null }>;
}

interface StoredAccount {
  data: Uint8Array;
  executable: boolean;
  lamports: bigint;
  programAddress: Address;
}

interface Block {
  slot: number;
  parentSlot: number;
  blockHeight: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  transactions: RecordedTransaction[];
  /** When tick() made it (ms since epoch). */
  madeAt: number;
}

export interface SolanaTestRpc {
  url: string;
  /** What getGenesisHash answers (for SVC_CHAIN_SOLANA_GENESIS_HASH). */
  genesisHash: string;
  svm: LiteSVM;
  /** Closes the open slot into a block (or a skipped slot); returns the new confirmed slot. */
  tick(): number;
  /** Ticks `count` times. */
  ticks(count: number): void;
  /** true: the slot timer (`slotMs`) makes no slots until false again; `tick()` still does. */
  hold(on: boolean): void;
  skipSlots(count: number): void;
  /**
   * The newest block (empty, above finalized) is replaced by another at the same slot and height with another
   * blockhash, as when the cluster confirms another fork; returns the new hash.
   */
  replaceNewestBlock(): string;
  /**
   * The newest `depth` blocks (all above finalized) are abandoned for another fork, as the cluster may do to blocks
   * that were only `confirmed`: their slots become skipped, their blockhashes unknown, and the next `tick()` builds the
   * new fork's first block on the block under them, at the first abandoned height. Their transactions are dropped and
   * undone in the SVM, except those in `reland`, which land again (same signature, same effects) in that next block,
   * as when the new fork's leader includes a transaction it also received. A dropped transaction cannot be sent again
   * (LiteSVM remembers its signature). Returns the abandoned slots.
   */
  fork(depth: number, options?: { reland?: readonly string[] }): number[];
  /** The time (ms since epoch) the slot holding this transaction was made, while it is in a block. */
  landedAt(signature: string): number | undefined;
  /** The PubSub WebSocket (slotSubscribe). */
  wsUrl: string;
  /** false: every WebSocket is dropped and new ones are refused (HTTP 503) until true again. */
  websocket(on: boolean): void;
  /** WebSocket connections accepted, and refused while `websocket(false)`, so far. */
  wsConnections(): { accepted: number; refused: number };
  /** Submits a signed transaction as a payer's wallet would (skipPreflight: failed transactions land with meta.err). */
  submit(tx: Transaction, options?: { skipPreflight?: boolean }): { signature: string; err: unknown };
  /** The latest blockhash and its last valid block height, for payers' transactions. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint };
  airdrop(to: Address, amount: bigint): void;
  down(on: boolean): void;
  dropSends(count: number): void;
  behind(slots: number): void;
  rateLimit(count: number): void;
  confirmedSlot(): number;
  finalizedSlot(): number;
  counts: Map<string, number>;
  /** sendTransaction calls received (executed or dropped), by signature. */
  sent: string[];
  close(): Promise<void>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const base58 = { encode: getBase58Decoder(), decode: getBase58Encoder() };

function hashOf(text: string): string {
  return base58.encode.decode(createHash('sha256').update(text).digest());
}

function readU64(data: Uint8Array, offset: number): bigint {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).readBigUInt64LE(offset);
}

function uiAmount(amount: bigint, decimals: number): string {
  const text = amount.toString().padStart(decimals + 1, '0');
  const whole = text.slice(0, text.length - decimals);
  const frac = text.slice(text.length - decimals).replace(/0+$/, '');
  return frac === '' ? whole : `${whole}.${frac}`;
}

/** A JSON text where bigints are written as bare integers (u64 lamports beyond 2^53 stay exact, as on the cluster). */
function stringify(value: unknown): string {
  const marks: string[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') {
      marks.push(v.toString());
      return `\u0000big${marks.length - 1}\u0000`;
    }
    return v;
  });
  return text.replace(/"\\u0000big(\d+)\\u0000"/g, (_m, index: string) => marks[Number(index)] ?? '0');
}

export async function startSolanaTestRpc(
  options: {
    /** Milliseconds between slots; 0: only `tick()` makes slots. */
    slotMs?: number;
    finalizedLag?: number;
    blockhashLifetime?: number;
    /** Answers of getRecentPrioritizationFees (micro-lamports per compute unit). */
    prioritizationFees?: number[];
  } = {},
): Promise<SolanaTestRpc> {
  const svm = new LiteSVM().withBlockhashCheck(false).withTransactionHistory(100_000n);
  const finalizedLag = options.finalizedLag ?? 3;
  const lifetime = options.blockhashLifetime ?? 150;
  const blocks = new Map<number, Block>();
  const slotsWithBlocks: number[] = [];
  const signatures = new Map<string, RecordedTransaction>();
  const blockhashHeight = new Map<string, number>();
  let openSlot = 1;
  let open: RecordedTransaction[] = [];
  let skipping = 0;
  let isDown = false;
  let held = false;
  let drops = 0;
  /** Signatures whose every send is dropped. */
  const dropped = new Set<string>();
  let behindSlots = 0;
  let limited = 0;
  const counts = new Map<string, number>();
  const sent: string[] = [];
  /** The PubSub WebSocket: slotSubscribe, a notification per new block. */
  const pubsub = await startSolanaPubSub({
    count: (method) => counts.set(method, (counts.get(method) ?? 0) + 1),
  });

  function notifySlot(block: Block): void {
    pubsub.notifySlot({ slot: block.slot, parent: block.parentSlot, root: finalizedSlot() });
  }

  // Genesis block at slot 0.
  const genesis: Block = {
    slot: 0,
    parentSlot: 0,
    blockHeight: 0,
    blockhash: hashOf('block-0'),
    previousBlockhash: hashOf('genesis'),
    blockTime: Math.floor(Date.now() / 1000),
    transactions: [],
    madeAt: Date.now(),
  };
  blocks.set(0, genesis);
  slotsWithBlocks.push(0);
  blockhashHeight.set(genesis.blockhash, 0);

  const newest = (): Block => blocks.get(slotsWithBlocks.at(-1) ?? 0) as Block;
  const confirmedSlot = () => newest().slot;
  const finalizedSlot = () => slotsWithBlocks[Math.max(0, slotsWithBlocks.length - 1 - finalizedLag)] ?? 0;
  const slotAt = (commitment: unknown): number =>
    commitment === 'processed' ? openSlot : commitment === 'confirmed' ? confirmedSlot() : finalizedSlot();

  function tick(): number {
    const slot = openSlot;
    openSlot += 1;
    if (skipping > 0 && open.length === 0) {
      skipping -= 1;
      return confirmedSlot();
    }
    const parent = newest();
    const block: Block = {
      slot,
      parentSlot: parent.slot,
      blockHeight: parent.blockHeight + 1,
      blockhash: hashOf(`block-${slot}`),
      previousBlockhash: parent.blockhash,
      blockTime: Math.floor(Date.now() / 1000),
      transactions: open,
      madeAt: Date.now(),
    };
    for (const tx of open) tx.slot = slot;
    open = [];
    blocks.set(slot, block);
    slotsWithBlocks.push(slot);
    blockhashHeight.set(block.blockhash, block.blockHeight);
    notifySlot(block);
    return slot;
  }

  /** The accounts a message writes (signers first, then the others; the header counts the read-only ones). */
  function writableKeys(
    keys: string[],
    header: {
      numSignerAccounts: number;
      numReadonlySignerAccounts: number;
      numReadonlyNonSignerAccounts: number;
    },
  ): string[] {
    return keys.filter((_key, index) =>
      index < header.numSignerAccounts
        ? index < header.numSignerAccounts - header.numReadonlySignerAccounts
        : index < keys.length - header.numReadonlyNonSignerAccounts,
    );
  }

  function stored(key: string): StoredAccount | null {
    const account = svm.getAccount(address(key));
    if (!account.exists) return null;
    return {
      data: new Uint8Array(account.data),
      executable: account.executable,
      lamports: BigInt(account.lamports),
      programAddress: account.programAddress,
    };
  }

  function restore(key: string, account: StoredAccount | null): void {
    svm.setAccount({
      address: address(key),
      data: account?.data ?? new Uint8Array(),
      executable: account?.executable ?? false,
      // Zero lamports: the account is gone, as before it was created.
      lamports: lamports(account?.lamports ?? 0n),
      programAddress: account?.programAddress ?? address('11111111111111111111111111111111'),
      space: BigInt(account?.data.length ?? 0),
    });
  }

  function fork(depth: number, reland: ReadonlySet<string>): number[] {
    const abandoned = slotsWithBlocks.slice(-depth);
    if (depth < 1 || abandoned.length < depth || abandoned.some((slot) => slot <= finalizedSlot())) {
      throw new Error(`cannot fork ${depth} blocks: only blocks above finalized can be abandoned`);
    }
    const dropped: RecordedTransaction[] = [];
    const kept: RecordedTransaction[] = [];
    for (const slot of abandoned) {
      const block = blocks.get(slot) as Block;
      for (const tx of block.transactions) (reland.has(tx.signature) ? kept : dropped).push(tx);
      blocks.delete(slot);
      blockhashHeight.delete(block.blockhash);
    }
    slotsWithBlocks.splice(slotsWithBlocks.length - depth, depth);
    // Undo the dropped ones newest first; refused when a transaction that stands wrote the same account after them.
    const standing = [...kept, ...open];
    for (const tx of dropped.reverse()) {
      for (const { key, account } of tx.before) {
        if (standing.some((other) => other.before.some((entry) => entry.key === key))) {
          throw new Error(`cannot drop ${tx.signature}: a transaction that stands also writes ${key}`);
        }
        restore(key, account);
      }
      signatures.delete(tx.signature);
    }
    if (reland.size > kept.length)
      throw new Error('a transaction to land again was not in the abandoned blocks');
    open = [...kept, ...open];
    return abandoned;
  }

  function tokenBalances(keys: string[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const account = svm.getAccount(address(key));
      if (!account.exists || account.programAddress !== TOKEN_PROGRAM || account.data.length !== 165) return;
      const mint = base58.encode.decode(account.data.slice(0, 32));
      const owner = base58.encode.decode(account.data.slice(32, 64));
      const amount = readU64(account.data, 64);
      const mintAccount = svm.getAccount(address(mint));
      const decimals = mintAccount.exists ? (mintAccount.data[44] ?? 0) : 0;
      const text = uiAmount(amount, decimals);
      out.push({
        accountIndex,
        mint,
        owner,
        programId: TOKEN_PROGRAM,
        uiTokenAmount: { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text },
      });
    });
    return out;
  }

  function execute(
    wire: Uint8Array,
    skipPreflight: boolean,
    viaRpc: boolean,
  ): { signature: string; err: unknown } {
    const tx = getTransactionDecoder().decode(wire) as Transaction;
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    if (message.version !== 'legacy' && message.version !== 0)
      throw new RpcError(-32602, `transaction version ${message.version} is not supported by the test RPC`);
    const firstSignature = Object.values(tx.signatures)[0];
    if (firstSignature === undefined || firstSignature === null)
      throw new RpcError(-32602, 'transaction has no signature');
    const signature = base58.encode.decode(firstSignature);
    if (viaRpc) sent.push(signature);
    if (viaRpc && (dropped.has(signature) || drops > 0)) {
      if (!dropped.has(signature)) {
        drops -= 1;
        dropped.add(signature);
      }
      return { signature, err: null };
    }
    if (signatures.has(signature)) return { signature, err: null }; // already processed: the cluster ignores it
    const recent = message.lifetimeToken;
    const height = blockhashHeight.get(recent);
    if (height === undefined || newest().blockHeight > height + lifetime) {
      throw new RpcError(-32002, 'Transaction simulation failed: Blockhash not found', {
        err: 'BlockhashNotFound',
      });
    }
    if (message.version === 0 && (message.addressTableLookups?.length ?? 0) > 0)
      throw new RpcError(-32602, 'address table lookups are not supported by the test RPC');
    const keys = message.staticAccounts.map(String);
    if (!skipPreflight) {
      const simulated = svm.simulateTransaction(tx);
      if (simulated instanceof FailedTransactionMetadata) {
        throw new RpcError(-32002, `Transaction simulation failed: ${simulated.toString().slice(0, 200)}`, {
          err: String(simulated.err()),
          logs: simulated.meta().logs(),
        });
      }
    }
    const preBalances = keys.map((key) => BigInt(svm.getBalance(address(key)) ?? 0n));
    const preTokenBalances = tokenBalances(keys);
    const before = writableKeys(keys, message.header).map((key) => ({ key, account: stored(key) }));
    const result = svm.sendTransaction(tx);
    let err: unknown = null;
    let logs: string[];
    if (result instanceof FailedTransactionMetadata) {
      const failure = result.err() as unknown as { index?: number; error?: unknown };
      // Failures before execution (bad signature, no funds for the fee, already processed) never reach a block.
      if (typeof failure !== 'object' || failure === null || failure.index === undefined) {
        throw new RpcError(-32002, `Transaction failed before execution: ${String(failure)}`);
      }
      const inner = failure.error as { code?: number } | number | undefined;
      err = {
        InstructionError: [
          failure.index,
          typeof inner === 'object' && inner !== null && typeof inner.code === 'number'
            ? { Custom: inner.code }
            : String(inner),
        ],
      };
      logs = result.meta().logs();
    } else {
      logs = result.logs();
    }
    const postBalances = keys.map((key) => BigInt(svm.getBalance(address(key)) ?? 0n));
    const postTokenBalances = tokenBalances(keys);
    const fee = 5000n * BigInt(message.header.numSignerAccounts);
    const record: RecordedTransaction = {
      signature,
      wire,
      slot: openSlot,
      err,
      before,
      json: {
        meta: {
          err,
          status: err === null ? { Ok: null } : { Err: err },
          fee,
          preBalances,
          postBalances,
          preTokenBalances,
          postTokenBalances,
          innerInstructions: [],
          logMessages: logs,
          loadedAddresses: { writable: [], readonly: [] },
          rewards: [],
          computeUnitsConsumed: 0,
        },
        transaction: {
          signatures: Object.values(tx.signatures).map((s) =>
            s === null ? '1'.repeat(64) : base58.encode.decode(s),
          ),
          message: {
            accountKeys: keys,
            header: {
              numRequiredSignatures: message.header.numSignerAccounts,
              numReadonlySignedAccounts: message.header.numReadonlySignerAccounts,
              numReadonlyUnsignedAccounts: message.header.numReadonlyNonSignerAccounts,
            },
            instructions: (message.instructions ?? []).map((ix) => ({
              programIdIndex: ix.programAddressIndex,
              accounts: [...(ix.accountIndices ?? [])],
              data: base58.encode.decode(ix.data ?? new Uint8Array()),
              stackHeight: null,
            })),
            recentBlockhash: recent,
            ...(message.version === 'legacy' ? {} : { addressTableLookups: [] }),
          },
        },
        version: message.version === 'legacy' ? 'legacy' : 0,
      },
    };
    signatures.set(signature, record);
    open.push(record);
    return { signature, err };
  }

  function blockAnswer(slot: number, config: Record<string, unknown>) {
    if (slot > slotAt(config.commitment ?? 'finalized')) {
      throw new RpcError(-32004, `Block not available for slot ${slot}`);
    }
    const block = blocks.get(slot);
    if (block === undefined) {
      throw new RpcError(
        -32007,
        `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`,
      );
    }
    const details = config.transactionDetails ?? 'full';
    const maxVersion = config.maxSupportedTransactionVersion;
    if (maxVersion === undefined && block.transactions.some((tx) => tx.json.version !== 'legacy')) {
      throw new RpcError(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    return {
      blockHeight: block.blockHeight,
      blockTime: block.blockTime,
      blockhash: block.blockhash,
      parentSlot: block.parentSlot,
      previousBlockhash: block.previousBlockhash,
      ...(details === 'full'
        ? { transactions: block.transactions.map((tx) => tx.json) }
        : details === 'signatures'
          ? { signatures: block.transactions.map((tx) => tx.signature) }
          : {}),
      ...(config.rewards === false ? {} : { rewards: [] }),
    };
  }

  function accountInfo(key: string, config: Record<string, unknown>) {
    const account = svm.getAccount(address(key));
    if (!account.exists) return null;
    const encoding = config.encoding ?? 'base64';
    if (encoding !== 'base64') throw new RpcError(-32602, 'the test RPC answers base64 only');
    return {
      data: [Buffer.from(account.data).toString('base64'), 'base64'],
      executable: account.executable,
      lamports: BigInt(account.lamports),
      owner: account.programAddress,
      rentEpoch: 18446744073709551615n,
      space: account.data.length,
    };
  }

  const context = (commitment: unknown) => ({ apiVersion: '2.2.0', slot: slotAt(commitment ?? 'finalized') });

  function handle(method: string, params: unknown[]): unknown {
    const config = (params.find((p) => typeof p === 'object' && p !== null && !Array.isArray(p)) ??
      {}) as Record<string, unknown>;
    switch (method) {
      case 'getHealth':
        if (behindSlots > 0)
          throw new RpcError(-32005, `Node is behind by ${behindSlots} slots`, {
            numSlotsBehind: behindSlots,
          });
        return 'ok';
      case 'getVersion':
        return { 'solana-core': '2.2.0', 'feature-set': 0 };
      case 'getGenesisHash':
        return genesis.previousBlockhash;
      case 'getSlot':
        return slotAt(config.commitment ?? 'finalized');
      case 'getBlockHeight': {
        const slot = slotAt(config.commitment ?? 'finalized');
        return blocks.get(slot)?.blockHeight ?? newest().blockHeight;
      }
      case 'getBlocks': {
        const start = Number(params[0]);
        const endParam = typeof params[1] === 'number' ? params[1] : undefined;
        const top = Math.min(endParam ?? Number.MAX_SAFE_INTEGER, slotAt(config.commitment ?? 'finalized'));
        if (endParam !== undefined && endParam - start > 500_000)
          throw new RpcError(-32602, 'range too large');
        return slotsWithBlocks.filter((slot) => slot >= start && slot <= top);
      }
      case 'getBlock':
        return blockAnswer(Number(params[0]), config);
      case 'getLatestBlockhash': {
        const block = blocks.get(slotAt(config.commitment ?? 'finalized')) ?? newest();
        return {
          context: context(config.commitment),
          value: { blockhash: block.blockhash, lastValidBlockHeight: block.blockHeight + lifetime },
        };
      }
      case 'isBlockhashValid': {
        const height = blockhashHeight.get(String(params[0]));
        const at = blocks.get(slotAt(config.commitment ?? 'finalized'))?.blockHeight ?? 0;
        return {
          context: context(config.commitment),
          value: height !== undefined && at <= height + lifetime,
        };
      }
      case 'sendTransaction': {
        if (config.encoding !== 'base64') throw new RpcError(-32602, 'the test RPC takes base64 only');
        const wire = new Uint8Array(getBase64Encoder().encode(String(params[0])));
        return execute(wire, config.skipPreflight === true, true).signature;
      }
      case 'getSignatureStatuses': {
        const list = (params[0] as string[]) ?? [];
        return {
          context: context('processed'),
          value: list.map((signature) => {
            const tx = signatures.get(signature);
            if (tx === undefined) return null;
            const landed = blocks.get(tx.slot)?.transactions.includes(tx) === true;
            const confirmationStatus = !landed
              ? 'processed'
              : tx.slot <= finalizedSlot()
                ? 'finalized'
                : 'confirmed';
            const depth = slotsWithBlocks.filter((slot) => slot > tx.slot).length;
            return {
              slot: tx.slot,
              confirmations: confirmationStatus === 'finalized' ? null : depth,
              err: tx.err,
              status: tx.err === null ? { Ok: null } : { Err: tx.err },
              confirmationStatus,
            };
          }),
        };
      }
      case 'getBalance':
        return {
          context: context(config.commitment),
          value: BigInt(svm.getBalance(address(String(params[0]))) ?? 0n),
        };
      case 'getAccountInfo':
        return { context: context(config.commitment), value: accountInfo(String(params[0]), config) };
      case 'getMultipleAccounts':
        return {
          context: context(config.commitment),
          value: ((params[0] as string[]) ?? []).map((key) => accountInfo(key, config)),
        };
      case 'getTokenAccountBalance': {
        const [balance] = tokenBalances([String(params[0])]);
        if (balance === undefined) throw new RpcError(-32602, 'Invalid param: could not find account');
        return { context: context(config.commitment), value: balance.uiTokenAmount };
      }
      case 'getMinimumBalanceForRentExemption':
        return svm.minimumBalanceForRentExemption(BigInt(Number(params[0])));
      case 'getRecentPrioritizationFees':
        return (options.prioritizationFees ?? [0]).map((fee, index) => ({
          slot: Math.max(0, confirmedSlot() - index),
          prioritizationFee: fee,
        }));
      case 'getFeeForMessage':
        return { context: context(config.commitment), value: 5000 };
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  function answer(id: unknown, run: () => unknown): Record<string, unknown> {
    try {
      return { jsonrpc: '2.0', id, result: run() };
    } catch (error) {
      if (error instanceof RpcError) {
        return {
          jsonrpc: '2.0',
          id,
          error: {
            code: error.code,
            message: error.message,
            ...(error.data === undefined ? {} : { data: error.data }),
          },
        };
      }
      return {
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
      };
    }
  }

  function onRequest(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (isDown) {
        response.writeHead(503).end('unavailable');
        return;
      }
      if (limited > 0) {
        limited -= 1;
        response.writeHead(429, { 'retry-after': '0' }).end('Too many requests');
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        response.writeHead(400).end('bad json');
        return;
      }
      const one = (call: { id?: unknown; method?: unknown; params?: unknown }) => {
        const method = String(call.method);
        counts.set(method, (counts.get(method) ?? 0) + 1);
        return answer(call.id ?? null, () => handle(method, Array.isArray(call.params) ? call.params : []));
      };
      const result = Array.isArray(body) ? body.map(one) : one(body as Record<string, unknown>);
      response.writeHead(200, { 'content-type': 'application/json' }).end(stringify(result));
    });
  }

  const server: Server = createServer(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const timer =
    (options.slotMs ?? 0) > 0
      ? setInterval(() => {
          if (!held) tick();
        }, options.slotMs)
      : undefined;
  // A few blocks so that the finalized commitment has one above genesis.
  for (let i = 0; i < finalizedLag + 2; i++) tick();

  return {
    url: `http://127.0.0.1:${port}`,
    genesisHash: genesis.previousBlockhash,
    svm,
    tick,
    ticks(count) {
      for (let i = 0; i < count; i++) tick();
    },
    hold(on) {
      held = on;
    },
    skipSlots(count) {
      skipping += count;
    },
    fork(depth, forkOptions) {
      return fork(depth, new Set(forkOptions?.reland ?? []));
    },
    landedAt(signature) {
      const tx = signatures.get(signature);
      const block = tx === undefined ? undefined : blocks.get(tx.slot);
      return block?.transactions.includes(tx as RecordedTransaction) === true ? block.madeAt : undefined;
    },
    wsUrl: pubsub.url,
    websocket: pubsub.accepting,
    wsConnections: pubsub.connections,
    replaceNewestBlock() {
      const block = newest();
      if (block.transactions.length > 0 || block.slot <= finalizedSlot()) {
        throw new Error('only an empty block above finalized can be replaced');
      }
      blockhashHeight.delete(block.blockhash);
      block.blockhash = hashOf(`block-${block.slot}-fork-${Date.now()}`);
      blockhashHeight.set(block.blockhash, block.blockHeight);
      return block.blockhash;
    },
    submit(tx, submitOptions) {
      const wire = new Uint8Array(getTransactionEncoderBytes(tx));
      return execute(wire, submitOptions?.skipPreflight ?? true, false);
    },
    latestBlockhash() {
      const block = newest();
      return { blockhash: block.blockhash, lastValidBlockHeight: BigInt(block.blockHeight + lifetime) };
    },
    airdrop(to, amount) {
      svm.airdrop(to, lamports(amount));
    },
    down(on) {
      isDown = on;
    },
    dropSends(count) {
      drops = count;
    },
    behind(slots) {
      behindSlots = slots;
    },
    rateLimit(count) {
      limited = count;
    },
    confirmedSlot,
    finalizedSlot,
    counts,
    sent,
    async close() {
      if (timer !== undefined) clearInterval(timer);
      await pubsub.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function getTransactionEncoderBytes(tx: Transaction): Uint8Array {
  return new Uint8Array(getTransactionEncoder().encode(tx));
}
