import type { Logger } from 'pino';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { BlockRef, ChainAdapter, Transfer } from './adapter.ts';
import { type CursorRow, type DepositRow, chainsRepo as repo } from './repo.ts';

export interface WatcherDeps {
  db: Db;
  clock: Clock;
  adapter: ChainAdapter;
  payments: Pick<PaymentsService, 'settle' | 'watchable'>;
  /** Days after its window that a payment's address is still watched (SVC_LATE_WATCH_DAYS). */
  lateWatchDays: number;
  logger?: Logger | undefined;
  /** Blocks recorded in one transaction while catching up. */
  maxBlocksPerCommit?: number;
  /** Blocks one `poll` goes through at most, so a long catch-up yields to the other jobs. */
  maxBlocksPerPoll?: number;
  /** How often the watched set is rebuilt from scratch (dropping payments no longer watched). */
  fullReloadMs?: number;
  /**
   * Addresses watched for someone else than payments (a refund the merchant pays from their own wallet): read before
   * each poll; the transfers to them found in a run of blocks are handed over inside that run's transaction.
   */
  outsideWatch?: OutsideWatch | undefined;
}

export interface OutsideWatch {
  /** The addresses to watch now, as the chain spells them. */
  addresses(chain: string, isTest: boolean): Promise<string[]>;
  /** Transfers to those addresses in `blocks` (each with its block), inside the transaction that records them. */
  found(
    tx: Db,
    chain: string,
    isTest: boolean,
    transfers: Array<Transfer & { block: BlockRef }>,
  ): Promise<void>;
}

export interface PollResult {
  /** The node's head when the round began, and the last block recorded when it ended (null before a cursor). */
  head: number | null;
  scannedTo: number | null;
  blocks: number;
  deposits: number;
  transitions: number;
  events: number;
  reorgs: number;
}

interface Watched {
  paymentId: string;
  asset: string;
}

/** The longest payment window (7 days): a payment whose window ends after T was created after T − 7 days. */
const MAX_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** Payments are re-read this far back on each incremental refresh, for transactions that commit late. */
const REFRESH_OVERLAP_MS = 60_000;

/**
 * The generic watcher of one chain in one mode. It keeps the deposit addresses to watch in memory (open payments and
 * those whose window ended within SVC_LATE_WATCH_DAYS), scans blocks from its persisted cursor, and in ONE
 * transaction per block (or run of blocks while catching up) records the deposits it finds, the blocks and the
 * cursor, marks final every deposit that now has enough confirmations, and lets the payments service apply the
 * state machine and write the events. A restart resumes from the cursor; the unique key of deposits makes a rescan
 * harmless. When a block's parent hash does not match, it walks back to the common ancestor, reverts the unfinal
 * deposits above it (in the same kind of single transaction, with their state changes) and rescans.
 */
export function createWatcher(deps: WatcherDeps) {
  const { db, clock, adapter } = deps;
  const { chain, isTest } = adapter;
  const maxPerCommit = deps.maxBlocksPerCommit ?? 50;
  const maxPerPoll = deps.maxBlocksPerPoll ?? 500;
  const fullReloadMs = deps.fullReloadMs ?? 60_000;
  /** Recent block hashes kept for finding a common ancestor. */
  const window = Math.max(64, adapter.requiredConfirmations * 2);
  const watched = new Map<string, Watched>();
  const watchedKeys = new Set<string>();
  let loadedUpTo: number | null = null;
  let lastFullLoad = 0;

  function watch(rows: Array<{ id: string; address: string; asset: string }>): void {
    for (const row of rows) {
      const key = adapter.addressKey(row.address);
      watched.set(key, { paymentId: row.id, asset: row.asset });
      watchedKeys.add(key);
    }
  }

  /** Brings the watched set up to date: new payments since the last look, and a full rebuild now and then. */
  async function refresh(now: number): Promise<void> {
    const expiresAfter = new Date(now - deps.lateWatchDays * 24 * 3600 * 1000);
    if (loadedUpTo === null || now - lastFullLoad >= fullReloadMs) {
      const rows = await deps.payments.watchable(
        chain,
        isTest,
        new Date(expiresAfter.getTime() - MAX_WINDOW_MS),
        expiresAfter,
      );
      watched.clear();
      watchedKeys.clear();
      watch(rows);
      lastFullLoad = now;
    } else {
      watch(
        await deps.payments.watchable(chain, isTest, new Date(loadedUpTo - REFRESH_OVERLAP_MS), expiresAfter),
      );
    }
    loadedUpTo = now;
  }

  async function initCursor(head: BlockRef): Promise<void> {
    const now = clock.now();
    await db.transaction(async (tx) => {
      await repo.saveBlocks(tx, chain, isTest, [head]);
      await repo.setCursor(tx, {
        chain,
        isTest,
        blockNumber: head.number,
        blockHash: head.hash,
        blockTime: head.timestamp,
        updatedAt: now,
      });
    });
    deps.logger?.info({ chain, isTest, block: head.number }, 'watcher starts at the current head');
  }

  /** Deposits of `block`, all `seen`: the commit makes final those deep enough (catch-up), after their re-check. */
  function depositRows(block: BlockRef, transfers: Transfer[], now: Date): DepositRow[] {
    const rows: DepositRow[] = [];
    for (const transfer of transfers) {
      const target = watched.get(adapter.addressKey(transfer.to));
      if (target === undefined || transfer.amount <= 0n) continue;
      rows.push({
        id: newId('dep'),
        paymentId: target.paymentId,
        chain,
        isTest,
        txHash: transfer.txHash,
        outputIndex: transfer.outputIndex,
        address: transfer.to,
        asset: transfer.asset,
        amount: transfer.amount.toString(),
        blockNumber: block.number,
        blockHash: block.hash,
        blockTime: block.timestamp,
        state: 'seen',
        simulated: adapter.simulated,
        forwardId: null,
        seenAt: now,
        finalAt: null,
        revertedAt: null,
        mempoolSeenAt: null,
        leftAsDustAt: null,
        refundHoldId: null,
        refunded: '0',
      });
    }
    return rows;
  }

  /**
   * UTXO chains: transfers waiting in the node's mempool are recorded as `mempool` deposits (the payment shows
   * `confirming` at once), and recorded ones whose transaction left the mempool without a block (replaced, conflicted,
   * evicted) are reverted, in one transaction with the state changes they cause. Runs after the new blocks were
   * scanned, so a transaction that just reached a block is `seen` there, not gone.
   */
  async function pollMempool(now: Date): Promise<{ deposits: number; transitions: number; events: number }> {
    if (adapter.mempool === undefined) return { deposits: 0, transitions: 0, events: 0 };
    const recorded = await repo.mempoolDeposits(db, chain, isTest);
    const changes = await adapter.mempool(watchedKeys, recorded);
    const rows: DepositRow[] = [];
    for (const row of depositRows(
      { number: -1, hash: '', parentHash: '', timestamp: now },
      changes.transfers,
      now,
    )) {
      rows.push({ ...row, state: 'mempool', mempoolSeenAt: now });
    }
    if (rows.length === 0 && changes.gone.length === 0) return { deposits: 0, transitions: 0, events: 0 };
    for (const gone of changes.gone) {
      deps.logger?.warn(
        { chain, isTest, txHash: gone.txHash, outputIndex: gone.outputIndex },
        'mempool deposit gone without a block (replaced, conflicted or evicted): it no longer counts',
      );
    }
    return db.transaction(async (tx) => {
      const touched = await repo.upsertDeposits(tx, rows);
      const reverted = await repo.revertMempoolDeposits(tx, chain, isTest, changes.gone, now);
      const settled = await deps.payments.settle(tx, [...touched, ...reverted], now);
      return { deposits: touched.length, ...settled };
    });
  }

  /** Records a run of consecutive blocks, their deposits, the cursor, finality and state changes: one transaction. */
  async function commit(
    blocks: BlockRef[],
    rows: DepositRow[],
    now: Date,
    outside: Array<Transfer & { block: BlockRef }> = [],
  ) {
    const last = blocks.at(-1);
    if (last === undefined) throw new Error('commit without blocks');
    const finalUpTo = last.number - adapter.requiredConfirmations + 1;
    const withheld = await recheck(finalUpTo, rows);
    // Found already deep enough (one confirmation required, or catching up): recorded final at once rather than
    // seen and then updated by finalizeDeposits, a second write of every such row.
    const recorded = rows.map((row) =>
      row.blockNumber <= finalUpTo && !withheld.has(row.txHash)
        ? { ...row, state: 'final', finalAt: now }
        : row,
    );
    return db.transaction(async (tx) => {
      const touched = await repo.upsertDeposits(tx, recorded);
      await repo.saveBlocks(tx, chain, isTest, blocks);
      await repo.setCursor(tx, {
        chain,
        isTest,
        blockNumber: last.number,
        blockHash: last.hash,
        blockTime: last.timestamp,
        updatedAt: now,
      });
      if (outside.length > 0) await deps.outsideWatch?.found(tx, chain, isTest, outside);
      const finalized = await repo.finalizeDeposits(tx, chain, isTest, finalUpTo, now, withheld);
      const settled = await deps.payments.settle(tx, [...touched, ...finalized], now);
      return { deposits: touched.length, ...settled };
    });
  }

  /**
   * The deposits about to become final whose transaction no longer stands where it was seen (the adapter re-reads
   * each receipt): they are withheld from this round. A block that was replaced is then found by the parent-hash check
   * when the next block arrives, which reverts them; a node that contradicts itself keeps them unfinal, and says so.
   * Deposits found already deep while catching up (`fresh`) are re-checked the same way.
   */
  async function recheck(finalUpTo: number, fresh: DepositRow[]): Promise<ReadonlySet<string>> {
    if (adapter.recheck === undefined) return new Set();
    const due = [
      ...(await repo.depositsDueFinal(db, chain, isTest, finalUpTo)),
      ...fresh.filter((row) => row.blockNumber <= finalUpTo),
    ];
    if (due.length === 0) return new Set();
    const standing = await adapter.recheck(due);
    const withheld = due.filter((deposit) => !standing.has(deposit.txHash));
    for (const deposit of withheld) {
      deps.logger?.warn(
        { chain, isTest, txHash: deposit.txHash, block: deposit.blockNumber, blockHash: deposit.blockHash },
        'deposit not confirmed where it was seen (moved, failed, or not yet final at the node, as on Solana before finalized): not credited this round',
      );
    }
    // By transaction: a fresh row's id is not the id of the row it may update (a deposit first seen in the mempool).
    return new Set(withheld.map((deposit) => deposit.txHash));
  }

  /** Walks back from the cursor to the newest block both we and the chain have; reverts everything above it. */
  async function handleReorg(cursor: CursorRow): Promise<{ transitions: number; events: number }> {
    let number = cursor.blockNumber;
    let ancestor: BlockRef | null = null;
    const lowest = (await repo.lowestBlock(db, chain, isTest)) ?? cursor.blockNumber;
    while (number >= 0) {
      const onChain = await adapter.block(number);
      const stored = await repo.blockHash(db, chain, isTest, number);
      if (onChain !== null && (stored === onChain.hash || number < lowest)) {
        if (number < lowest) {
          deps.logger?.error(
            { chain, isTest, block: number },
            'reorganisation deeper than the kept block window',
          );
        }
        ancestor = onChain;
        break;
      }
      number -= 1;
    }
    const now = clock.now();
    const ancestorNumber = ancestor?.number ?? -1;
    const deepFinal = await repo.finalDepositsAbove(db, chain, isTest, ancestorNumber);
    if (deepFinal > 0) {
      deps.logger?.error(
        { chain, isTest, ancestor: ancestorNumber, finalDeposits: deepFinal },
        'a reorganisation removed blocks with FINAL deposits: finality assumption broken, check confirmations',
      );
    }
    // No common block at all (the whole chain was replaced): rescan from its first block. (Read before the
    // transaction: an adapter reading the same database must not wait for it.)
    const restart = ancestor ?? (await adapter.block(0));
    const result = await db.transaction(async (tx) => {
      const reverted = await repo.revertDepositsAbove(tx, chain, isTest, ancestorNumber, now);
      await repo.deleteBlocksAbove(tx, chain, isTest, ancestorNumber);
      if (restart !== null) {
        await repo.setCursor(tx, {
          chain,
          isTest,
          blockNumber: ancestor === null ? -1 : restart.number,
          blockHash: ancestor === null ? restart.parentHash : restart.hash,
          blockTime: restart.timestamp,
          updatedAt: now,
        });
      }
      return deps.payments.settle(tx, reverted, now);
    });
    deps.logger?.warn(
      { chain, isTest, from: cursor.blockNumber, ancestor: ancestorNumber },
      'chain reorganisation: unfinal deposits above the common ancestor reverted, rescanning',
    );
    return result;
  }

  return {
    /** Scans every new block (up to `maxBlocksPerPoll`), handling reorganisations on the way. */
    async poll(): Promise<PollResult> {
      const result: PollResult = {
        head: null,
        scannedTo: null,
        blocks: 0,
        deposits: 0,
        transitions: 0,
        events: 0,
        reorgs: 0,
      };
      // The head first, then the watched set: every block scanned below was mined before the set was read, so any
      // payment paid in it (its address was handed out, so its row was committed, before the payer could pay) is in.
      const head = await adapter.head();
      await refresh(clock.now().getTime());
      const outsideKeys = new Set(
        ((await deps.outsideWatch?.addresses(chain, isTest)) ?? []).map((address) =>
          adapter.addressKey(address),
        ),
      );
      const scanned = outsideKeys.size === 0 ? watchedKeys : new Set([...watchedKeys, ...outsideKeys]);
      if (head === null) return result;
      result.head = head.number;
      let cursor = await repo.cursor(db, chain, isTest);
      if (cursor === undefined) {
        await initCursor(head);
        return result;
      }
      let reorgsInARow = 0;
      while (cursor !== undefined && cursor.blockNumber < head.number && result.blocks < maxPerPoll) {
        const blocks: BlockRef[] = [];
        let parentHash = cursor.blockHash;
        let mismatch = false;
        const last = Math.min(head.number, cursor.blockNumber + maxPerCommit);
        for (let number = cursor.blockNumber + 1; number <= last; number++) {
          const block = await adapter.block(number);
          if (block === null) break;
          if (block.parentHash !== parentHash) {
            mismatch = blocks.length === 0;
            break;
          }
          blocks.push(block);
          parentHash = block.hash;
        }
        if (mismatch) {
          if (reorgsInARow++ > 10) throw new Error(`${chain}: chain keeps reorganising under the watcher`);
          const reverted = await handleReorg(cursor);
          result.reorgs += 1;
          result.transitions += reverted.transitions;
          result.events += reverted.events;
          cursor = await repo.cursor(db, chain, isTest);
          continue;
        }
        if (blocks.length === 0) break;
        const now = clock.now();
        const rows: DepositRow[] = [];
        const outside: Array<Transfer & { block: BlockRef }> = [];
        for (const block of blocks) {
          const transfers = await adapter.transfers(block, scanned);
          rows.push(...depositRows(block, transfers, now));
          for (const transfer of transfers) {
            if (outsideKeys.has(adapter.addressKey(transfer.to))) outside.push({ ...transfer, block });
          }
        }
        const committed = await commit(blocks, rows, now, outside);
        result.blocks += blocks.length;
        result.deposits += committed.deposits;
        result.transitions += committed.transitions;
        result.events += committed.events;
        const newest = blocks.at(-1) as BlockRef;
        // Now and then (each time the height passes a multiple of 100), forget block hashes below the window.
        if (Math.floor(newest.number / 100) !== Math.floor(cursor.blockNumber / 100)) {
          await repo.pruneBlocksBelow(db, chain, isTest, newest.number - window);
        }
        cursor = await repo.cursor(db, chain, isTest);
      }
      result.scannedTo = cursor?.blockNumber ?? null;
      if (result.blocks < maxPerPoll) {
        const mempool = await pollMempool(clock.now());
        result.deposits += mempool.deposits;
        result.transitions += mempool.transitions;
        result.events += mempool.events;
      }
      return result;
    },

    /** How many addresses are watched now. */
    watchedCount: () => watched.size,
  };
}

export type Watcher = ReturnType<typeof createWatcher>;
