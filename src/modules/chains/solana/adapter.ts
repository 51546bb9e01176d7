import { isSolanaError, type Signature } from '@solana/kit';
import type { Logger } from 'pino';
import type { BlockRef, BuiltRefund, ChainAdapter, RefundIntent, SeenDeposit, Transfer } from '../adapter.ts';
import { type AddressDeriver, MAX_DERIVATION_INDEX } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { contractOf, getChain } from '../registry.ts';
import { associatedTokenAccount } from './ata.ts';
import { createSolanaRefunds } from './refund.ts';
import { createSolanaRpcClient, type SolanaRpcClient } from './rpc.ts';
import { blockTransfers, type RpcBlock } from './scan.ts';
import { MAINNET_GENESIS_HASH, MAX_FORWARD_INPUTS, type SolanaChainSettings } from './settings.ts';
import { createSlotWatch, type SlotWatch } from './slots.ts';
import { createSolanaSweeper } from './sweep.ts';

/**
 * Solana (live mode, or test mode on devnet or a local validator) behind the ChainAdapter interface, over JSON-RPC
 * through @solana/kit. svc derives and signs; the node only serves blocks and takes transactions.
 *
 * Detection scans blocks, not addresses (see index.ts for the numbers): every block of the `confirmed` commitment is
 * read once (`getBlocks` for the slots that have one, skipped slots being normal, then `getBlock` with full
 * transactions), and payments are read from its balances (scan.ts). The ChainAdapter's block numbers are block
 * heights, which have no gaps (slots do): the adapter keeps the height → slot map, found with `getBlocks` from a known
 * block; a block's parent is the previous height's block (`previousBlockhash`), so the generic watcher's parent-hash
 * check and its walk back work unchanged.
 *
 * Finality: a deposit is `seen` in a confirmed block (the payment turns `confirming`); once CONFIRMATIONS blocks stand
 * on it, `recheck` asks `getSignatureStatuses` (with the history) and credits only a successful transaction at the
 * `finalized` commitment in the very block it was seen in. One not finalized yet is withheld and asked again next round.
 *
 * WebSocket, where configured (WS_URL; slots.ts): each slot the node announces (`slotSubscribe`) wakes the loop
 * (onActivity) to poll at once, so a payment shows `confirming` within a slot or so of its block being confirmed. The
 * notifications are wake-ups only — what the poll reads decides, a lost one costs nothing but latency — and the timed
 * polls go on as the safety net, every WS_POLL_MS while the socket delivers, every POLL_MS while it does not.
 */

export interface SolanaAdapter extends ChainAdapter {
  readonly simulated: false;
  start(): Promise<void>;
  recheck(deposits: readonly SeenDeposit[]): Promise<ReadonlySet<string>>;
  readiness(): Promise<string | null>;
  /** RPC requests sent so far (the bench's count). */
  requests(): number;
  /** The fee payer's address and its balance when last read (null before). */
  feePayer(): { address: string | null; lamports: bigint | null };
  /** The polling interval now: slower while the node's slot notifications arrive. */
  readonly pollIntervalMs: number;
  buildRefund(intent: RefundIntent): Promise<BuiltRefund>;
  refundFee(asset: string): Promise<bigint>;
  checkRefundAddress(address: string): Promise<string | null>;
  close(): Promise<void>;
}

interface Known {
  slot: number;
  ref: BlockRef;
  block: RpcBlock | null;
}

const HEALTH_EVERY_MS = 10_000;
/** Full blocks kept: the watcher scans a block right after `block` returned it. */
const MAX_FULL_BLOCKS = 64;

export function createSolanaAdapter(deps: {
  settings: SolanaChainSettings;
  requiredConfirmations: number;
  signingKeys: DepositSigningKeys;
  /** Derives the default fee payer (FEE_PAYER_KEY unset): the mode's mnemonic at the last index. */
  deriver?: Pick<AddressDeriver, 'derivePrivateKey'>;
  logger: Logger;
  client?: SolanaRpcClient;
  /** How often getHealth and the fee payer's balance are read (default 10 s). */
  healthEveryMs?: number;
  /** Replaces the slot watch built from settings.wsUrl (tests). */
  slots?: SlotWatch;
}): SolanaAdapter {
  const { settings } = deps;
  const isTest = settings.isTest;
  const info = getChain('solana');
  if (info === undefined) throw new Error('solana is missing from the registry');
  const logger = deps.logger.child({ chain: 'solana', mode: isTest ? 'test' : 'live' });
  const client =
    deps.client ??
    createSolanaRpcClient({
      urls: settings.rpcUrls,
      timeoutMs: settings.rpcTimeoutMs,
      retries: settings.rpcRetries,
      logger,
    });
  const { rpc } = client;
  const slots =
    deps.slots ?? (settings.wsUrl === undefined ? null : createSlotWatch({ url: settings.wsUrl, logger }));
  const name = `solana (${isTest ? 'test' : 'live'})`;
  /** Mint → asset code, in this mode. */
  const assets = new Map<string, string>();
  for (const asset of info.assets) {
    const mint = contractOf(asset, isTest);
    if (!asset.isNative && mint !== null) assets.set(mint, asset.code);
  }
  const mints = new Set(assets.keys());
  const nativeCode = info.nativeAsset.code;
  const byHeight = new Map<number, Known>();
  /** The highest height in byHeight or slotByHeight (a bound: it may be above what they still hold). */
  let highestKnown = -1;
  /** Heights whose full block is kept, oldest first. */
  const fullHeights: number[] = [];
  let startProblem: string | null = null;
  let started = false;
  let health: { problem: string | null; at: number } = { problem: null, at: 0 };
  let feePayerLamports: bigint | null = null;
  const feePayerKey =
    settings.feePayerKey ?? deps.deriver?.derivePrivateKey('solana', isTest, MAX_DERIVATION_INDEX);
  const sweeper = createSolanaSweeper({
    rpc,
    isTest,
    settings: { ...settings, feePayerKey },
    signingKeys: deps.signingKeys,
    mintOf: (code) => [...assets].find(([, asset]) => asset === code)?.[0] ?? null,
    blockAtSlot: async (slot) => (await known(slot)).ref,
    logger,
  });
  const refunds = createSolanaRefunds({
    rpc,
    isTest,
    signingKeys: deps.signingKeys,
    mintOf: (code) => [...assets].find(([, asset]) => asset === code)?.[0] ?? null,
    buildForward: sweeper.buildForward,
  });

  function remember(entry: Known): Known {
    byHeight.set(entry.ref.number, entry);
    highestKnown = Math.max(highestKnown, entry.ref.number);
    if (byHeight.size > 4096) {
      const lowest = [...byHeight.keys()].sort((a, b) => a - b).slice(0, 1024);
      for (const height of lowest) byHeight.delete(height);
    }
    if (entry.block !== null) {
      fullHeights.push(entry.ref.number);
      while (fullHeights.length > MAX_FULL_BLOCKS) {
        const height = fullHeights.shift();
        const kept = height === undefined ? undefined : byHeight.get(height);
        if (kept !== undefined && kept !== entry) kept.block = null;
      }
    }
    return entry;
  }

  async function fetchBlock(slot: number, full: boolean): Promise<RpcBlock | null> {
    try {
      const answer = await client.raw<RpcBlock | null>('getBlock', [
        slot,
        {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
          rewards: false,
          transactionDetails: full ? 'full' : 'none',
        },
      ]);
      return answer;
    } catch (error) {
      // -32004 not available (above the commitment), -32007 / -32009 skipped or missing.
      if (isSolanaError(error) && [-32004, -32007, -32009].includes(Number(error.context.__code)))
        return null;
      throw error;
    }
  }

  function toKnown(slot: number, block: RpcBlock, full: boolean): Known {
    if (block.blockHeight === null) throw new Error(`solana: block at slot ${slot} has no block height`);
    return {
      slot,
      block: full ? block : null,
      ref: {
        number: Number(block.blockHeight),
        hash: block.blockhash,
        parentHash: block.previousBlockhash,
        timestamp: new Date(Number(block.blockTime ?? Math.floor(Date.now() / 1000)) * 1000),
      },
    };
  }

  /** The block at `slot` (which has one), by its height. */
  async function known(slot: number): Promise<Known> {
    for (const entry of byHeight.values()) if (entry.slot === slot) return entry;
    const block = await fetchBlock(slot, false);
    if (block === null) throw new Error(`solana: no block at slot ${slot}`);
    return remember(toKnown(slot, block, false));
  }

  /** Heights → slots learnt from getBlocks (skipped slots are not in it), ahead of the blocks fetched. */
  const slotByHeight = new Map<number, number>();
  /** The confirmed head as the last `head()` read it. */
  let lastHead: Known | null = null;

  /** getBlocks answers at most this wide a range of slots. */
  const MAX_SLOT_RANGE = 499_999;
  /** Heights learnt ahead of the one asked for (the next polls' blocks). */
  const LEARN_AHEAD = 20_000;

  /** `slots` (in order, the last one at `lastHeight`) by height, from `from` up to LEARN_AHEAD above it. */
  function learn(slots: number[], lastHeight: number, from: number): void {
    if (slotByHeight.size > 50_000) slotByHeight.clear();
    slots.forEach((slot, index) => {
      const height = lastHeight - (slots.length - 1 - index);
      if (height >= from && height <= from + LEARN_AHEAD) {
        slotByHeight.set(height, slot);
        highestKnown = Math.max(highestKnown, height);
      }
    });
  }

  const blocksIn = async (first: number, last: number): Promise<number[]> =>
    (await rpc.getBlocks(BigInt(first), BigInt(last), { commitment: 'confirmed' }).send()).map(Number);

  /**
   * The slot of the block at `height`, or null above the confirmed head. A block's height is its parent's plus one,
   * and `getBlocks` lists the slots that have a block in order, so from one block whose height is known every later
   * (or earlier) slot in the list has its height. One `getBlocks` per poll covers every new block; after a long
   * outage the list is read in ranges of at most 500,000 slots (the RPC's limit).
   */
  async function slotOf(height: number): Promise<number | null> {
    const cached = byHeight.get(height)?.slot ?? slotByHeight.get(height);
    if (cached !== undefined) return cached;
    const head = lastHead ?? (await headKnown());
    if (height > head.ref.number) return null;
    if (height === head.ref.number) return head.slot;
    let anchor: { height: number; slot: number } | undefined;
    for (const entry of byHeight.values()) {
      if (entry.ref.number < height && (anchor === undefined || entry.ref.number > anchor.height)) {
        anchor = { height: entry.ref.number, slot: entry.slot };
      }
    }
    if (anchor === undefined || height - anchor.height > 10_000) {
      // No block known below (a restart): read back from the head's slot, far enough for twice the blocks between
      // plus a margin (every block takes a slot; skipped slots only add), counting heights down from the head.
      let top = { slot: head.slot, height: head.ref.number };
      for (;;) {
        const first = Math.max(0, top.slot - Math.min(2 * (top.height - height) + 1000, MAX_SLOT_RANGE));
        const slots = await blocksIn(first, top.slot);
        if (slots.at(-1) !== top.slot) throw new Error(`solana: getBlocks does not end at slot ${top.slot}`);
        learn(slots, top.height, height);
        const slot = slotByHeight.get(height);
        if (slot !== undefined) return slot;
        const lowest = slots[0];
        if (first === 0 || lowest === undefined || slots.length === 1) {
          throw new Error(`solana: block height ${height} is below the node's first block`);
        }
        top = { slot: lowest, height: top.height - (slots.length - 1) };
      }
    }
    // Forward from the anchor: the n-th block after it has height anchor + n.
    let from = anchor;
    for (;;) {
      const wanted = height - from.height;
      const last = Math.min(
        head.slot,
        from.slot + Math.min(Math.max(2 * wanted + 1000, 5000), MAX_SLOT_RANGE),
      );
      const slots = await blocksIn(from.slot + 1, last);
      learn(slots, from.height + slots.length, height);
      const slot = slotByHeight.get(height);
      if (slot !== undefined) return slot;
      if (last >= head.slot) return null;
      // More skipped slots than the range allowed for (or a long run of them): on from the last block found.
      from = { height: from.height + slots.length, slot: slots.at(-1) ?? last };
    }
  }

  /** Heights `block` has answered up to; asking for one again drops what is cached from there up. */
  let highestReturned = -1;

  function forgetFrom(height: number): void {
    dropAbove(height - 1);
    if (lastHead !== null && lastHead.ref.number >= height) lastHead = null;
    highestReturned = height - 1;
  }

  /** Forgets the blocks and slots known above `height`. */
  function dropAbove(height: number): void {
    for (const key of [...byHeight.keys()]) if (key > height) byHeight.delete(key);
    for (const key of [...slotByHeight.keys()]) if (key > height) slotByHeight.delete(key);
    highestKnown = Math.min(highestKnown, height);
  }

  async function headKnown(): Promise<Known> {
    const slot = Number(await rpc.getSlot({ commitment: 'confirmed' }).send());
    let entry: Known | undefined;
    for (const candidate of byHeight.values()) if (candidate.slot === slot) entry = candidate;
    if (entry !== undefined) {
      lastHead = entry;
      return entry;
    }
    // The head is the next block the watcher scans when it keeps up: fetched whole once.
    const block = await fetchBlock(slot, true);
    if (block === null) throw new Error(`solana: no block at the confirmed slot ${slot}`);
    const head = toKnown(slot, block, true);
    // Nothing stands above the confirmed head: blocks known above it were of a fork the cluster abandoned.
    if (highestKnown > head.ref.number) dropAbove(head.ref.number);
    lastHead = remember(head);
    return lastHead;
  }

  async function refreshHealth(): Promise<void> {
    if (Date.now() - health.at < (deps.healthEveryMs ?? HEALTH_EVERY_MS)) return;
    let problem: string | null = null;
    try {
      await rpc.getHealth().send();
    } catch (error) {
      if (!isSolanaError(error)) throw error;
      const behind = Number((error.context as { numSlotsBehind?: unknown }).numSlotsBehind ?? Number.NaN);
      if (!Number.isFinite(behind) || behind > settings.maxSlotsBehind) {
        problem = `${name}: node unhealthy: ${error.message}`;
      }
    }
    feePayerLamports = await sweeper.checkFeePayer();
    health = { problem, at: Date.now() };
  }

  async function start(): Promise<void> {
    const genesis = await rpc.getGenesisHash().send();
    const allowed =
      settings.genesisHash !== undefined
        ? genesis === settings.genesisHash
        : isTest
          ? genesis !== MAINNET_GENESIS_HASH
          : genesis === MAINNET_GENESIS_HASH;
    if (!allowed) {
      const expected =
        settings.genesisHash ?? (isTest ? 'a test cluster' : `mainnet-beta (${MAINNET_GENESIS_HASH})`);
      startProblem = `${name}: node's genesis hash is ${genesis}, expected ${expected}`;
      throw new Error(startProblem);
    }
    startProblem = null;
    started = true;
    await refreshHealth();
    logger.info(
      {
        genesis,
        feePayer: sweeper.feePayerAddress(),
        feePayerDerived: settings.feePayerKey === undefined,
        feePayerLamports: feePayerLamports?.toString() ?? null,
      },
      'Solana RPC connected; the fee payer pays every sweep: keep it funded',
    );
  }

  return {
    chain: 'solana',
    isTest,
    simulated: false,
    requiredConfirmations: deps.requiredConfirmations,
    get pollIntervalMs() {
      return slots?.connected() === true ? settings.wsPollIntervalMs : settings.pollIntervalMs;
    },
    ...(slots === null
      ? {}
      : {
          // Until the node is known to be the right cluster (start), a wake-up would only retry start() at every slot.
          onActivity: (wake: () => void) =>
            slots.onActivity(() => {
              if (started) wake();
            }),
        }),
    start,
    async close() {
      await slots?.close();
    },
    requests: client.requests,
    feePayer: () => ({ address: sweeper.feePayerAddress(), lamports: feePayerLamports }),

    async feeWallet() {
      const address = sweeper.feePayerAddress();
      if (address === null) return null;
      try {
        feePayerLamports = await sweeper.checkFeePayer();
      } catch {
        // The node did not answer: the balance last read stands (null if none yet).
      }
      return {
        role: 'pays the fee (and the rent of created token accounts) of every sweep',
        address,
        balance: feePayerLamports,
        lowBelow: settings.feePayerMinLamports,
        low: feePayerLamports !== null && feePayerLamports < settings.feePayerMinLamports,
      };
    },

    async head() {
      if (!started) throw new Error('solana: adapter used before start()');
      await refreshHealth();
      return (await headKnown()).ref;
    },

    async block(number) {
      // A height asked again (the watcher walking back after a parent mismatch, or retrying after an error) is read
      // from the RPC afresh: what was cached at and above it may be of a fork the cluster left.
      if (number <= highestReturned) forgetFrom(number);
      const cached = byHeight.get(number);
      if (cached?.block !== null && cached !== undefined) {
        highestReturned = Math.max(highestReturned, number);
        return cached.ref;
      }
      for (let attempt = 1; ; attempt++) {
        const slot = await slotOf(number);
        if (slot === null) return null;
        const block = await fetchBlock(slot, true);
        const found = block === null ? null : toKnown(slot, block, true);
        if (found !== null && found.ref.number === number) {
          remember(found);
          highestReturned = Math.max(highestReturned, number);
          return found.ref;
        }
        // The slot map is stale: that slot's block was on a fork the cluster abandoned (its slot skipped now), or the
        // heights were counted from such a block. Forget it all and count the slots back from the confirmed head.
        forgetFrom(0);
        if (attempt === 2) {
          // Still no block: a node whose getBlock lags its getSlot (a load-balanced provider); the next poll asks again.
          if (found === null) return null;
          throw new Error(`solana: slot ${slot} holds block height ${found.ref.number}, not ${number}`);
        }
      }
    },

    async transfers(block, watched) {
      if (watched.size === 0) return [];
      let entry = byHeight.get(block.number);
      if (entry?.block === null || entry === undefined || entry.ref.hash !== block.hash) {
        const slot = entry?.slot ?? (await slotOf(block.number));
        const full = slot === null ? null : await fetchBlock(slot, true);
        if (slot === null || full === null || full.blockhash !== block.hash) {
          throw new Error(`solana: block ${block.number} (${block.hash}) is no longer on the chain`);
        }
        entry = remember(toKnown(slot, full, true));
      }
      const found = blockTransfers(entry.block as RpcBlock, watched, mints);
      const out: Transfer[] = [];
      for (const transfer of found) {
        if (transfer.mint === null) {
          out.push({
            txHash: transfer.signature,
            outputIndex: transfer.outputIndex,
            to: transfer.to,
            asset: nativeCode,
            amount: transfer.amount,
          });
          continue;
        }
        const asset = assets.get(transfer.mint);
        if (asset === undefined) continue;
        // Only the owner's associated token account is swept (its address is derived): tokens in another account
        // the deposit address owns are not counted as paid, and said loudly.
        if (transfer.tokenAccount !== associatedTokenAccount(transfer.to, transfer.mint)) {
          logger.warn(
            { signature: transfer.signature, owner: transfer.to, account: transfer.tokenAccount, asset },
            'tokens paid to a token account of a deposit address that is not its associated token account: not credited',
          );
          continue;
        }
        out.push({
          txHash: transfer.signature,
          outputIndex: transfer.outputIndex,
          to: transfer.to,
          asset,
          amount: transfer.amount,
        });
      }
      return out;
    },

    async recheck(deposits) {
      const standing = new Set<string>();
      const signatures = [...new Set(deposits.map((deposit) => deposit.txHash))];
      for (let start = 0; start < signatures.length; start += 256) {
        const batch = signatures.slice(start, start + 256);
        const { value } = await rpc
          .getSignatureStatuses(batch as Signature[], { searchTransactionHistory: true })
          .send();
        for (const [index, status] of value.entries()) {
          const signature = batch[index];
          if (signature === undefined || status === null) continue;
          if (status.err !== null || status.confirmationStatus !== 'finalized') continue;
          const block = await known(Number(status.slot));
          for (const deposit of deposits) {
            if (
              deposit.txHash === signature &&
              deposit.blockHash === block.ref.hash &&
              deposit.blockNumber === block.ref.number
            ) {
              standing.add(signature);
            }
          }
        }
      }
      return standing;
    },

    addressKey: (address) => address,
    maxForwardInputs: MAX_FORWARD_INPUTS,
    buildForward: sweeper.buildForward,
    bumpForward: sweeper.resign,
    broadcast: sweeper.broadcast,
    forwardStatus: sweeper.forwardStatus,
    // Refunds from deposit addresses (refund.ts): broadcast and followed like sweeps.
    buildRefund: refunds.buildRefund,
    refundFee: refunds.refundFee,
    checkRefundAddress: refunds.checkRefundAddress,

    async readiness() {
      if (startProblem !== null) return startProblem;
      const down = client.health().down;
      if (down !== null) return `${name}: ${down.reason} since ${down.since.toISOString()}`;
      return health.problem;
    },
  };
}
