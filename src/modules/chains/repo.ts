import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { pgArray } from '../../db/arrays.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { jsonRowsOf, jsonValue, type ReadPart, type RowRefs, rowsFromJson } from '../../db/json-rows.ts';
import { timeKeysetPage } from '../../db/keyset.ts';
import { chainBlocks, chainCursors, deposits, forwards, forwardVersions } from '../../db/schema/index.ts';
import type { ConfirmationSummary, DepositFacts } from '../payments/deposit-facts.ts';
import type { ForwardUsage } from './adapter.ts';

export type DepositRow = typeof deposits.$inferSelect;
export type ForwardRow = typeof forwards.$inferSelect;
export type CursorRow = typeof chainCursors.$inferSelect;
export type ForwardVersionRow = typeof forwardVersions.$inferSelect;

const INSERT_CHUNK = 1000;

/** A payment's deposits in the order they are shown: by block, then as seen, then by output. */
const depositOrder = [asc(deposits.blockNumber), asc(deposits.seenAt), asc(deposits.outputIndex)];

/** All SQL of the chain side: deposits, chain cursors and recent blocks, forwarding transactions. */
export const chainsRepo = {
  // ---- deposits ----

  /**
   * Records deposits (as `seen`: the watcher makes them final after a re-check; or `mempool`); a transfer already
   * recorded (same chain, mode, tx, index) is left alone unless it had been reverted, in which case it is recorded
   * again in its new block, or was in the mempool and is now in a block (keeping when it was first seen). Returns the
   * payments of the rows written.
   */
  async upsertDeposits(tx: Db, rows: DepositRow[]): Promise<string[]> {
    const paymentIds: string[] = [];
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
      const chunk = rows.slice(start, start + INSERT_CHUNK);
      const column = (pick: (row: DepositRow) => string | number | boolean) => pgArray(chunk.map(pick));
      // One bind value per column (unnest), not one per cell: a block of 1,000 deposits is one short statement.
      const written = await queryRows<{ payment_id: string }>(
        tx,
        sql`insert into deposits (id, payment_id, chain, is_test, tx_hash, output_index, address, asset, amount,
                                  block_number, block_hash, block_time, state, simulated, seen_at, final_at,
                                  mempool_seen_at)
            select * from unnest(${column((r) => r.id)}::text[], ${column((r) => r.paymentId)}::uuid[],
                                 ${column((r) => r.chain)}::text[], ${column((r) => r.isTest)}::boolean[],
                                 ${column((r) => r.txHash)}::text[], ${column((r) => r.outputIndex)}::integer[],
                                 ${column((r) => r.address)}::text[], ${column((r) => r.asset)}::text[],
                                 ${column((r) => r.amount)}::numeric[], ${column((r) => r.blockNumber)}::bigint[],
                                 ${column((r) => r.blockHash)}::text[],
                                 ${column((r) => r.blockTime.toISOString())}::timestamptz[],
                                 ${column((r) => r.state)}::text[], ${column((r) => r.simulated)}::boolean[],
                                 ${column((r) => r.seenAt.toISOString())}::timestamptz[],
                                 ${pgArray(chunk.map((r) => r.finalAt?.toISOString() ?? null))}::timestamptz[],
                                 ${pgArray(chunk.map((r) => r.mempoolSeenAt?.toISOString() ?? null))}::timestamptz[])
            on conflict (chain, is_test, tx_hash, output_index) do update
              set state = excluded.state, block_number = excluded.block_number, block_hash = excluded.block_hash,
                  block_time = excluded.block_time, final_at = excluded.final_at, reverted_at = null,
                  seen_at = case when deposits.state = 'mempool' then deposits.seen_at else excluded.seen_at end,
                  mempool_seen_at = coalesce(deposits.mempool_seen_at, excluded.mempool_seen_at)
              where deposits.state = 'reverted' or (deposits.state = 'mempool' and excluded.state <> 'mempool')
            returning payment_id`,
      );
      for (const row of written) paymentIds.push(row.payment_id);
    }
    return paymentIds;
  },

  /** Marks final every unfinal deposit at or below `maxBlock` but those of `withheldTxHashes`; returns their payments. */
  async finalizeDeposits(
    tx: Db,
    chain: string,
    isTest: boolean,
    maxBlock: number,
    now: Date,
    withheldTxHashes: ReadonlySet<string> = new Set(),
  ): Promise<string[]> {
    const rows = await queryRows<{ payment_id: string }>(
      tx,
      sql`update deposits set state = 'final', final_at = ${now.toISOString()}::timestamptz
          where chain = ${chain} and is_test = ${isTest} and state = 'seen' and block_number <= ${maxBlock}
            ${
              withheldTxHashes.size === 0
                ? sql``
                : sql`and not (tx_hash = any(${pgArray([...withheldTxHashes])}::text[]))`
            }
          returning payment_id`,
    );
    return rows.map((row) => row.payment_id);
  },

  /** Unfinal deposits at or below `maxBlock`: those `finalizeDeposits` would make final now. */
  async depositsDueFinal(
    db: Db,
    chain: string,
    isTest: boolean,
    maxBlock: number,
  ): Promise<Array<{ id: string; txHash: string; blockNumber: number; blockHash: string }>> {
    const rows = await queryRows<{
      id: string;
      tx_hash: string;
      block_number: string | number;
      block_hash: string;
    }>(
      db,
      sql`select id, tx_hash, block_number, block_hash from deposits
          where chain = ${chain} and is_test = ${isTest} and state = 'seen' and block_number <= ${maxBlock}`,
    );
    return rows.map((row) => ({
      id: row.id,
      txHash: row.tx_hash,
      blockNumber: Number(row.block_number),
      blockHash: row.block_hash,
    }));
  },

  /** Reverts the unfinal deposits above `ancestor` (their blocks were reorganised away); returns their payments. */
  async revertDepositsAbove(
    tx: Db,
    chain: string,
    isTest: boolean,
    ancestor: number,
    now: Date,
  ): Promise<string[]> {
    const rows = await queryRows<{ payment_id: string }>(
      tx,
      sql`update deposits set state = 'reverted', reverted_at = ${now.toISOString()}::timestamptz
          where chain = ${chain} and is_test = ${isTest} and state = 'seen' and block_number > ${ancestor}
          returning payment_id`,
    );
    return rows.map((row) => row.payment_id);
  },

  /** Final deposits above `ancestor`: a reorganisation deeper than finality, which must never go unnoticed. */
  async finalDepositsAbove(db: Db, chain: string, isTest: boolean, ancestor: number): Promise<number> {
    const [row] = await queryRows<{ count: string | number }>(
      db,
      sql`select count(*) as count from deposits
          where chain = ${chain} and is_test = ${isTest} and state = 'final' and block_number > ${ancestor}`,
    );
    return Number(row?.count ?? 0);
  },

  async depositFacts(
    tx: Db,
    payments: Array<{ id: string; asset: string; expiresAt: Date }>,
  ): Promise<Map<string, DepositFacts>> {
    const out = new Map<string, DepositFacts>();
    if (payments.length === 0) return out;
    const rows = await queryRows<{
      payment_id: string;
      received: string;
      received_in_time: string;
      unfinal_in_time: string | number;
      latest_tx: string | null;
    }>(
      tx,
      sql`select d.payment_id,
                 coalesce(sum(d.amount) filter (where d.state = 'final' and d.asset = v.asset), 0) as received,
                 coalesce(sum(d.amount) filter (where d.state = 'final' and d.asset = v.asset
                                                  and least(d.block_time, d.mempool_seen_at) < v.expires_at), 0)
                   as received_in_time,
                 count(*) filter (where d.state in ('seen', 'mempool')
                                    and least(d.block_time, d.mempool_seen_at) < v.expires_at) as unfinal_in_time,
                 (array_agg(d.tx_hash order by d.state = 'mempool' desc, d.block_number desc, d.seen_at desc,
                                       d.output_index desc)
                    filter (where d.state <> 'reverted'))[1] as latest_tx
          from unnest(${pgArray(payments.map((p) => p.id))}::uuid[],
                      ${pgArray(payments.map((p) => p.asset))}::text[],
                      ${pgArray(payments.map((p) => p.expiresAt.toISOString()))}::timestamptz[])
               as v(id, asset, expires_at)
          join deposits d on d.payment_id = v.id
          group by d.payment_id`,
    );
    for (const row of rows) {
      out.set(row.payment_id, {
        received: BigInt(row.received),
        receivedInTime: BigInt(row.received_in_time),
        unfinalInTime: Number(row.unfinal_in_time),
        latestTxHash: row.latest_tx,
      });
    }
    return out;
  },

  /** The deposits recorded from the mempool (no block yet) of a chain: checked again on every mempool poll. */
  async mempoolDeposits(
    db: Db,
    chain: string,
    isTest: boolean,
  ): Promise<Array<{ txHash: string; outputIndex: number }>> {
    return db
      .select({ txHash: deposits.txHash, outputIndex: deposits.outputIndex })
      .from(deposits)
      .where(and(eq(deposits.chain, chain), eq(deposits.isTest, isTest), eq(deposits.state, 'mempool')));
  },

  /**
   * Reverts mempool deposits whose transaction left the mempool without a block (replaced, conflicted, evicted): they
   * stop counting at once. Returns their payments.
   */
  async revertMempoolDeposits(
    tx: Db,
    chain: string,
    isTest: boolean,
    gone: ReadonlyArray<{ txHash: string; outputIndex: number }>,
    now: Date,
  ): Promise<string[]> {
    if (gone.length === 0) return [];
    const rows = await queryRows<{ payment_id: string }>(
      tx,
      sql`update deposits set state = 'reverted', reverted_at = ${now.toISOString()}::timestamptz
          from unnest(${pgArray(gone.map((g) => g.txHash))}::text[], ${pgArray(gone.map((g) => g.outputIndex))}::integer[])
               as g(tx_hash, output_index)
          where deposits.chain = ${chain} and deposits.is_test = ${isTest} and deposits.state = 'mempool'
            and deposits.tx_hash = g.tx_hash and deposits.output_index = g.output_index
          returning deposits.payment_id`,
    );
    return rows.map((row) => row.payment_id);
  },

  async depositsOfPayment(db: Db, paymentId: string): Promise<DepositRow[]> {
    return db
      .select()
      .from(deposits)
      .where(eq(deposits.paymentId, paymentId))
      .orderBy(...depositOrder);
  },

  /**
   * The deposits of the payment another statement is reading (`payment` refers to its row), as depositsOfPayment
   * orders them, with the height its chain's watcher reached in its mode: a part of that statement (see
   * db/json-rows.ts). The height is undefined when the payment has no deposit (nothing to count confirmations of).
   */
  depositsOfPaymentPart(
    payment: RowRefs<'id' | 'chain' | 'isTest'>,
  ): ReadPart<{ deposits: DepositRow[]; height: number | undefined }> {
    const rows = jsonRowsOf(deposits, {
      where: sql`${deposits.paymentId} = ${payment.id}`,
      orderBy: depositOrder,
    });
    const height = sql`(select ${chainCursors.blockNumber}::text from ${chainCursors}
                        where ${chainCursors.chain} = ${payment.chain} and ${chainCursors.isTest} = ${payment.isTest})`;
    return {
      sql: sql`json_build_array(${rows}, ${height})`,
      read(value) {
        const [rowsValue, heightValue] = jsonValue(value) as [unknown, string | null];
        const found = rowsFromJson(deposits, rowsValue);
        return {
          deposits: found,
          height: found.length === 0 || heightValue === null ? undefined : Number(heightValue),
        };
      },
    };
  },

  async confirmationSummaries(db: Db, paymentIds: string[]): Promise<Map<string, ConfirmationSummary>> {
    const out = new Map<string, ConfirmationSummary>();
    if (paymentIds.length === 0) return out;
    const rows = await queryRows<{
      payment_id: string;
      newest_unfinal: string | number | null;
      any_final: boolean;
    }>(
      db,
      sql`select payment_id, max(block_number) filter (where state = 'seen') as newest_unfinal,
                 bool_or(state = 'final') as any_final
          from deposits where payment_id = any(${pgArray(paymentIds)}::uuid[]) group by payment_id`,
    );
    for (const row of rows) {
      out.set(row.payment_id, {
        newestUnfinalBlock: row.newest_unfinal === null ? null : Number(row.newest_unfinal),
        anyFinal: row.any_final,
      });
    }
    return out;
  },

  /** Final deposits not yet swept, oldest first, after `after` (keyset pagination). */
  async unforwardedDeposits(
    db: Db,
    chain: string,
    isTest: boolean,
    limit: number,
    after?: { finalAt: Date; id: string },
  ): Promise<DepositRow[]> {
    return db
      .select()
      .from(deposits)
      .where(
        and(
          eq(deposits.chain, chain),
          eq(deposits.isTest, isTest),
          eq(deposits.state, 'final'),
          sql`${deposits.forwardId} is null`,
          // Held by a refund sending from the address, or sent back whole: nothing for a sweep.
          sql`${deposits.refundHoldId} is null`,
          sql`${deposits.amount} > ${deposits.refunded}`,
          after === undefined
            ? undefined
            : sql`(${deposits.finalAt}, ${deposits.id}) > (${after.finalAt.toISOString()}::timestamptz, ${after.id})`,
        ),
      )
      .orderBy(asc(deposits.finalAt), asc(deposits.id))
      .limit(limit);
  },

  /** Ties deposits to a forward; returns how many were still free (all must be, or the caller rolls back). */
  /** Records that these final deposits were left unswept (worth less than the fee to spend them). */
  async markLeftAsDust(db: Db, depositIds: string[], at: Date): Promise<void> {
    if (depositIds.length === 0) return;
    await db
      .update(deposits)
      .set({ leftAsDustAt: at })
      .where(and(inArray(deposits.id, depositIds), sql`${deposits.forwardId} is null`));
  },

  async assignForward(tx: Db, depositIds: string[], forwardId: string): Promise<number> {
    const rows = await tx
      .update(deposits)
      .set({ forwardId, leftAsDustAt: null })
      .where(
        and(
          inArray(deposits.id, depositIds),
          sql`${deposits.forwardId} is null`,
          sql`${deposits.refundHoldId} is null`,
          eq(deposits.state, 'final'),
        ),
      )
      .returning({ id: deposits.id });
    return rows.length;
  },

  /** What each payment put into a forward, in base units of its asset. */
  async forwardShares(tx: Db, forwardId: string): Promise<Array<{ paymentId: string; amount: bigint }>> {
    const rows = await queryRows<{ payment_id: string; amount: string }>(
      tx,
      sql`select payment_id, sum(amount - refunded) as amount from deposits where forward_id = ${forwardId}
          group by payment_id order by payment_id`,
    );
    return rows.map((row) => ({ paymentId: row.payment_id, amount: BigInt(row.amount) }));
  },

  /** Whether the chain has unfinal deposits or forwards not yet final (something waits for blocks). */
  async hasOpenWork(db: Db, chain: string, isTest: boolean): Promise<boolean> {
    const [row] = await queryRows<{ busy: boolean }>(
      db,
      sql`select exists (select 1 from deposits where chain = ${chain} and is_test = ${isTest} and state = 'seen')
              or exists (select 1 from forwards where chain = ${chain} and is_test = ${isTest}
                                                 and state in ('intent', 'broadcast')) as busy`,
    );
    return row?.busy === true;
  },

  // ---- exports ----

  /** The deposits of these payments, by payment then time (exports read them a page of payments at a time). */
  async depositsOfPayments(db: Db, paymentIds: string[]): Promise<DepositRow[]> {
    if (paymentIds.length === 0) return [];
    return db
      .select()
      .from(deposits)
      .where(sql`${deposits.paymentId} = any(${pgArray(paymentIds)}::uuid[])`)
      .orderBy(asc(deposits.paymentId), asc(deposits.seenAt), asc(deposits.outputIndex));
  },

  /** A keyset page of a merchant's sweeps of one mode, oldest first, created in [from, to). */
  async forwardsPage(
    db: Db,
    filter: {
      merchantId: string;
      isTest: boolean;
      from?: Date | undefined;
      to?: Date | undefined;
      chain?: string | undefined;
      asset?: string | undefined;
    },
    limit: number,
    after: { createdAt: Date; id: string } | undefined,
  ): Promise<ForwardRow[]> {
    return db
      .select()
      .from(forwards)
      .where(
        and(
          eq(forwards.merchantId, filter.merchantId),
          eq(forwards.isTest, filter.isTest),
          filter.chain === undefined ? undefined : eq(forwards.chain, filter.chain),
          filter.asset === undefined ? undefined : eq(forwards.asset, filter.asset),
          timeKeysetPage(
            forwards.createdAt,
            forwards.id,
            filter,
            after && { time: after.createdAt, id: after.id },
          ),
        ),
      )
      .orderBy(asc(forwards.createdAt), asc(forwards.id))
      .limit(limit);
  },

  /** Reports: a merchant's final sweeps of one mode per UTC month and chain, with their network fees (native units). */
  async sweepFeesByMonth(
    db: Db,
    filter: { merchantId: string; isTest: boolean; from: Date; to: Date },
  ): Promise<Array<{ month: string; chain: string; sweeps: number; fee: string }>> {
    const rows = await queryRows<{ month: string; chain: string; sweeps: string | number; fee: string }>(
      db,
      sql`select to_char(date_trunc('month', final_at at time zone 'UTC'), 'YYYY-MM') as month, chain,
                 count(*) as sweeps, coalesce(sum(fee), 0) as fee
          from forwards
          where merchant_id = ${filter.merchantId} and is_test = ${filter.isTest} and state = 'final'
            and final_at >= ${filter.from.toISOString()}::timestamptz and final_at < ${filter.to.toISOString()}::timestamptz
          group by 1, 2 order by 1, 2`,
    );
    return rows.map((row) => ({
      month: row.month,
      chain: row.chain,
      sweeps: Number(row.sweeps),
      fee: String(row.fee),
    }));
  },

  // ---- refunds sent from deposit addresses ----

  /**
   * Holds the unswept final deposits of a payment for the refund `refundId` (inside `tx`, with the payment locked), if
   * those in `asset` still hold `amount` base units beyond what earlier refunds took: returns how much each gives
   * (oldest first), or null when they do not (swept, or never enough). Held deposits are left alone by the forwarder
   * until `releaseRefundHold`: one address never sends a sweep and a refund at once.
   */
  async holdDepositsForRefund(
    tx: Db,
    paymentId: string,
    asset: string,
    refundId: string,
    amount: bigint,
  ): Promise<Array<{ depositId: string; amount: string }> | null> {
    const rows = await queryRows<{ id: string; asset: string; available: string }>(
      tx,
      sql`select id, asset, amount - refunded as available from deposits
          where payment_id = ${paymentId} and state = 'final' and forward_id is null and refund_hold_id is null
            and amount > refunded
          order by final_at, id
          for update`,
    );
    let rest = amount;
    const allocations: Array<{ depositId: string; amount: string }> = [];
    for (const row of rows) {
      if (rest === 0n || row.asset !== asset) continue;
      const available = BigInt(row.available);
      const take = available < rest ? available : rest;
      allocations.push({ depositId: row.id, amount: take.toString() });
      rest -= take;
    }
    if (rest > 0n) return null;
    await tx.execute(
      sql`update deposits set refund_hold_id = ${refundId}
          where id = any(${pgArray(rows.map((row) => row.id))}::text[])`,
    );
    return allocations;
  },

  /**
   * Ends a refund's hold on its deposits; `spent` (a refund that was sent): what it took from each, which the
   * forwarder no longer sweeps.
   */
  async releaseRefundHold(
    tx: Db,
    refundId: string,
    spent: ReadonlyArray<{ depositId: string; amount: string }> | null,
    /**
     * UTXO chains: the refund's transaction spent the outputs of `spent` whole, sending what it did not take to the
     * payout wallet: those deposits are closed with the refund as what swept them (forward_id), never swept again.
     */
    outputsSpent = false,
  ): Promise<void> {
    if (spent !== null && spent.length > 0) {
      await tx.execute(
        sql`update deposits d set refunded = d.refunded + v.amount
            from unnest(${pgArray(spent.map((s) => s.depositId))}::text[],
                        ${pgArray(spent.map((s) => s.amount))}::numeric[]) as v(id, amount)
            where d.id = v.id and d.refund_hold_id = ${refundId}`,
      );
      if (outputsSpent) {
        await tx.execute(
          sql`update deposits set forward_id = ${refundId}
              where id = any(${pgArray(spent.map((s) => s.depositId))}::text[])
                and refund_hold_id = ${refundId} and forward_id is null and amount > refunded`,
        );
      }
    }
    await tx.execute(sql`update deposits set refund_hold_id = null where refund_hold_id = ${refundId}`);
  },

  /** The outputs behind deposits (UTXO chains: what a refund from their address spends), in the order of `ids`. */
  async depositOutputs(
    db: Db,
    ids: readonly string[],
  ): Promise<Array<{ id: string; txHash: string; outputIndex: number; amount: bigint }>> {
    if (ids.length === 0) return [];
    const rows = await db
      .select({
        id: deposits.id,
        txHash: deposits.txHash,
        outputIndex: deposits.outputIndex,
        amount: deposits.amount,
      })
      .from(deposits)
      .where(inArray(deposits.id, [...ids]));
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row === undefined ? [] : [{ ...row, amount: BigInt(row.amount) }];
    });
  },

  // ---- cursors and recent blocks ----

  async cursor(db: Db, chain: string, isTest: boolean): Promise<CursorRow | undefined> {
    const [row] = await db
      .select()
      .from(chainCursors)
      .where(and(eq(chainCursors.chain, chain), eq(chainCursors.isTest, isTest)))
      .limit(1);
    return row;
  },

  async cursorHeights(db: Db): Promise<Map<string, number>> {
    const rows = await db
      .select({
        chain: chainCursors.chain,
        isTest: chainCursors.isTest,
        blockNumber: chainCursors.blockNumber,
      })
      .from(chainCursors);
    return new Map(rows.map((row) => [`${row.chain}:${row.isTest}`, row.blockNumber]));
  },

  async setCursor(tx: Db, row: CursorRow): Promise<void> {
    await tx
      .insert(chainCursors)
      .values(row)
      .onConflictDoUpdate({
        target: [chainCursors.chain, chainCursors.isTest],
        set: {
          blockNumber: row.blockNumber,
          blockHash: row.blockHash,
          blockTime: row.blockTime,
          updatedAt: row.updatedAt,
        },
      });
  },

  async saveBlocks(
    tx: Db,
    chain: string,
    isTest: boolean,
    blocks: Array<{ number: number; hash: string; parentHash: string }>,
  ): Promise<void> {
    if (blocks.length === 0) return;
    await tx
      .insert(chainBlocks)
      .values(blocks.map((block) => ({ chain, isTest, ...block })))
      .onConflictDoUpdate({
        target: [chainBlocks.chain, chainBlocks.isTest, chainBlocks.number],
        set: { hash: sql`excluded.hash`, parentHash: sql`excluded.parent_hash` },
      });
  },

  async blockHash(db: Db, chain: string, isTest: boolean, number: number): Promise<string | null> {
    const [row] = await db
      .select({ hash: chainBlocks.hash })
      .from(chainBlocks)
      .where(
        and(eq(chainBlocks.chain, chain), eq(chainBlocks.isTest, isTest), eq(chainBlocks.number, number)),
      )
      .limit(1);
    return row?.hash ?? null;
  },

  async lowestBlock(db: Db, chain: string, isTest: boolean): Promise<number | null> {
    const [row] = await queryRows<{ low: string | number | null }>(
      db,
      sql`select min(number) as low from chain_blocks where chain = ${chain} and is_test = ${isTest}`,
    );
    return row?.low === null || row?.low === undefined ? null : Number(row.low);
  },

  async deleteBlocksAbove(tx: Db, chain: string, isTest: boolean, number: number): Promise<void> {
    await tx.execute(
      sql`delete from chain_blocks where chain = ${chain} and is_test = ${isTest} and number > ${number}`,
    );
  },

  async pruneBlocksBelow(db: Db, chain: string, isTest: boolean, number: number): Promise<void> {
    await db.execute(
      sql`delete from chain_blocks where chain = ${chain} and is_test = ${isTest} and number < ${number}`,
    );
  },

  // ---- forwards ----

  async insertForward(tx: Db, row: ForwardRow): Promise<void> {
    await tx.insert(forwards).values(row);
  },

  /**
   * What the forwards that became final in [from, to) cost, per chain and mode: how many, the network fees they paid
   * and the energy they used (null where no forward recorded any), summed exactly in SQL numeric.
   */
  async sweepCosts(
    db: Db,
    from: Date,
    to: Date,
  ): Promise<
    Array<{
      chain: string;
      is_test: boolean;
      sweeps: number;
      fee: string;
      energy_used: string | null;
      energy_delegated: string | null;
    }>
  > {
    return queryRows(
      db,
      sql`select chain, is_test, count(*)::int as sweeps, sum(fee)::text as fee,
                 sum(energy_used)::text as energy_used, sum(energy_delegated)::text as energy_delegated
          from forwards
          where state = 'final' and final_at >= ${from.toISOString()}::timestamptz
            and final_at < ${to.toISOString()}::timestamptz
          group by chain, is_test
          order by chain, is_test`,
    );
  },

  async openForwards(db: Db, chain: string, isTest: boolean): Promise<ForwardRow[]> {
    return db
      .select()
      .from(forwards)
      .where(
        and(
          eq(forwards.chain, chain),
          eq(forwards.isTest, isTest),
          inArray(forwards.state, ['intent', 'broadcast']),
        ),
      )
      .orderBy(asc(forwards.createdAt), asc(forwards.id));
  },

  async markBroadcast(db: Db, id: string, now: Date, error: string | null): Promise<void> {
    await db
      .update(forwards)
      .set({
        state: 'broadcast',
        broadcastAt: now,
        broadcastCount: sql`${forwards.broadcastCount} + 1`,
        lastError: error,
        updatedAt: now,
      })
      .where(eq(forwards.id, id));
  },

  async noteForwardError(db: Db, id: string, now: Date, error: string): Promise<void> {
    await db.update(forwards).set({ lastError: error, updatedAt: now }).where(eq(forwards.id, id));
  },

  /** Marks a forward failed (its transaction reverted); its deposits stay tied to it, held for the operator. */
  async markForwardFailed(
    db: Db,
    id: string,
    blockNumber: number,
    now: Date,
    reason: string,
  ): Promise<boolean> {
    const rows = await db
      .update(forwards)
      .set({ state: 'failed', blockNumber, lastError: reason, updatedAt: now })
      .where(and(eq(forwards.id, id), inArray(forwards.state, ['intent', 'broadcast'])))
      .returning({ id: forwards.id });
    return rows.length === 1;
  },

  /** Marks a forward final (with the fee the chain charged, when known); false if it already was final. */
  async markForwardFinal(
    tx: Db,
    id: string,
    blockNumber: number,
    now: Date,
    charged?: bigint,
    usage?: ForwardUsage,
  ): Promise<boolean> {
    const rows = await tx
      .update(forwards)
      .set({
        state: 'final',
        blockNumber,
        finalAt: now,
        updatedAt: now,
        ...(charged === undefined ? {} : { fee: charged.toString() }),
        ...(usage === undefined
          ? {}
          : { energyUsed: usage.energyUsed.toString(), energyDelegated: usage.energyDelegated.toString() }),
      })
      .where(and(eq(forwards.id, id), inArray(forwards.state, ['intent', 'broadcast'])))
      .returning({ id: forwards.id });
    return rows.length === 1;
  },

  /** The deposits a forward spends. */
  async depositsOfForward(db: Db, forwardId: string): Promise<DepositRow[]> {
    return db
      .select()
      .from(deposits)
      .where(eq(deposits.forwardId, forwardId))
      .orderBy(asc(deposits.txHash), asc(deposits.outputIndex));
  },

  /** The earlier (replaced) versions of a forward's transaction, oldest first. */
  async forwardVersions(db: Db, forwardId: string): Promise<ForwardVersionRow[]> {
    return db
      .select()
      .from(forwardVersions)
      .where(eq(forwardVersions.forwardId, forwardId))
      .orderBy(asc(forwardVersions.replacedAt));
  },

  /**
   * Makes `next` the forward's current version and keeps the current one among its versions, if the forward still
   * holds `current` (false otherwise: another round changed it). `next` may be a new signed replacement or an earlier
   * version (then it leaves the versions table): one transaction, so exactly one version is ever the forward's.
   */
  async switchForwardVersion(
    tx: Db,
    current: Pick<ForwardRow, 'id' | 'txHash' | 'rawTx' | 'fee' | 'amount'> & { since: Date },
    next: { txHash: string; rawTx: string; fee: string; amount: string },
    now: Date,
  ): Promise<boolean> {
    const moved = await tx
      .update(forwards)
      .set({ txHash: next.txHash, rawTx: next.rawTx, fee: next.fee, amount: next.amount, updatedAt: now })
      .where(and(eq(forwards.id, current.id), eq(forwards.txHash, current.txHash)))
      .returning({ id: forwards.id });
    if (moved.length !== 1) return false;
    await tx
      .delete(forwardVersions)
      .where(and(eq(forwardVersions.forwardId, current.id), eq(forwardVersions.txHash, next.txHash)));
    await tx.insert(forwardVersions).values({
      forwardId: current.id,
      txHash: current.txHash,
      rawTx: current.rawTx,
      fee: current.fee,
      amount: current.amount,
      createdAt: current.since,
      replacedAt: now,
    });
    return true;
  },

  async forwardsOfPayment(db: Db, paymentId: string): Promise<ForwardRow[]> {
    return db
      .select()
      .from(forwards)
      .where(sql`${forwards.paymentIds} @> ${JSON.stringify([paymentId])}::jsonb`)
      .orderBy(asc(forwards.createdAt));
  },
};
