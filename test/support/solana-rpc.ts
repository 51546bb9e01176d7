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
}

interface Block {
  slot: number;
  parentSlot: number;
  blockHeight: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  transactions: RecordedTransaction[];
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
  skipSlots(count: number): void;
  /**
   * The newest block (empty, above finalized) is replaced by another at the same slot and height with another
   * blockhash, as when the cluster confirms another fork; returns the new hash.
   */
  replaceNewestBlock(): string;
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
  let drops = 0;
  /** Signatures whose every send is dropped. */
  const dropped = new Set<string>();
  let behindSlots = 0;
  let limited = 0;
  const counts = new Map<string, number>();
  const sent: string[] = [];

  // Genesis block at slot 0.
  const genesis: Block = {
    slot: 0,
    parentSlot: 0,
    blockHeight: 0,
    blockhash: hashOf('block-0'),
    previousBlockhash: hashOf('genesis'),
    blockTime: Math.floor(Date.now() / 1000),
    transactions: [],
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
    };
    for (const tx of open) tx.slot = slot;
    open = [];
    blocks.set(slot, block);
    slotsWithBlocks.push(slot);
    blockhashHeight.set(block.blockhash, block.blockHeight);
    return slot;
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
          tick();
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
    skipSlots(count) {
      skipping += count;
    },
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function getTransactionEncoderBytes(tx: Transaction): Uint8Array {
  return new Uint8Array(getTransactionEncoder().encode(tx));
}
