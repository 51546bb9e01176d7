import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { pgArray } from '../../db/arrays.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { timeKeysetPage } from '../../db/keyset.ts';
import { refunds } from '../../db/schema/index.ts';

export type RefundRow = typeof refunds.$inferSelect;

/** Statuses whose amount counts against the payment's received amount: every one but `failed`. */
const ACTIVE = sql`status <> 'failed'`;

/** All SQL of refunds. */
export const refundsRepo = {
  async insert(tx: Db, row: RefundRow): Promise<void> {
    await tx.insert(refunds).values(row);
  },

  /**
   * Base units the payment's refunds not failed take, read inside the caller's transaction, which holds the payment's
   * row lock: two refunds of one payment never both see room for themselves.
   */
  async activeTotal(tx: Db, paymentId: string): Promise<bigint> {
    const [row] = await queryRows<{ total: string | null }>(
      tx,
      sql`select coalesce(sum(amount), 0) as total from refunds where payment_id = ${paymentId} and ${ACTIVE}`,
    );
    return BigInt(row?.total ?? 0);
  },

  async find(db: Db, id: string): Promise<RefundRow | undefined> {
    const [row] = await db.select().from(refunds).where(eq(refunds.id, id)).limit(1);
    return row;
  },

  async findByIdempotencyKey(
    db: Db,
    merchantId: string,
    isTest: boolean,
    key: string,
  ): Promise<RefundRow | undefined> {
    const [row] = await db
      .select()
      .from(refunds)
      .where(
        and(eq(refunds.merchantId, merchantId), eq(refunds.isTest, isTest), eq(refunds.idempotencyKey, key)),
      )
      .limit(1);
    return row;
  },

  async ofPayment(db: Db, paymentId: string): Promise<RefundRow[]> {
    return db
      .select()
      .from(refunds)
      .where(eq(refunds.paymentId, paymentId))
      .orderBy(asc(refunds.createdAt), asc(refunds.id));
  },

  async list(
    db: Db,
    filter: {
      merchantId: string;
      isTest: boolean | undefined;
      status?: string | undefined;
      limit: number;
      before?: { createdAt: Date; id: string } | undefined;
    },
  ): Promise<RefundRow[]> {
    return db
      .select()
      .from(refunds)
      .where(
        and(
          eq(refunds.merchantId, filter.merchantId),
          filter.isTest === undefined ? undefined : eq(refunds.isTest, filter.isTest),
          filter.status === undefined ? undefined : eq(refunds.status, filter.status),
          filter.before === undefined
            ? undefined
            : sql`(${refunds.createdAt}, ${refunds.id}) < (${filter.before.createdAt.toISOString()}::timestamptz, ${filter.before.id})`,
        ),
      )
      .orderBy(desc(refunds.createdAt), desc(refunds.id))
      .limit(filter.limit);
  },

  /** Refunds of a chain and mode the sender works on (queued, signed, broadcast, or waiting for the merchant). */
  async open(db: Db, chain: string, isTest: boolean): Promise<RefundRow[]> {
    return db
      .select()
      .from(refunds)
      .where(
        and(
          eq(refunds.chain, chain),
          eq(refunds.isTest, isTest),
          inArray(refunds.status, ['queued', 'pending', 'broadcast', 'awaiting_payment']),
        ),
      )
      .orderBy(asc(refunds.createdAt), asc(refunds.id));
  },

  /** Which of these payments already have an automatic refund (of their overpaid excess). */
  async withAutomaticRefund(db: Db, paymentIds: string[]): Promise<Set<string>> {
    if (paymentIds.length === 0) return new Set();
    const rows = await queryRows<{ payment_id: string }>(
      db,
      sql`select distinct payment_id from refunds where automatic and payment_id = any(${pgArray(paymentIds)}::uuid[])`,
    );
    return new Set(rows.map((row) => row.payment_id));
  },

  /** Refunds the merchant is asked to pay, oldest first: the watcher looks for their transfers. */
  async awaitingPayment(db: Db, chain: string, isTest: boolean): Promise<RefundRow[]> {
    return db
      .select()
      .from(refunds)
      .where(
        and(eq(refunds.chain, chain), eq(refunds.isTest, isTest), eq(refunds.status, 'awaiting_payment')),
      )
      .orderBy(asc(refunds.createdAt), asc(refunds.id));
  },

  /** The raw transactions of signed refunds not yet final: an adapter's nonces and re-sends count them. */
  async openRaw(db: Db, chain: string, isTest: boolean): Promise<string[]> {
    const rows = await db
      .select({ rawTx: refunds.rawTx })
      .from(refunds)
      .where(
        and(
          eq(refunds.chain, chain),
          eq(refunds.isTest, isTest),
          inArray(refunds.status, ['pending', 'broadcast']),
        ),
      );
    return rows.flatMap((row) => (row.rawTx === null ? [] : [row.rawTx]));
  },

  async rawByHash(db: Db, chain: string, isTest: boolean, txHash: string): Promise<string | null> {
    const [row] = await db
      .select({ rawTx: refunds.rawTx })
      .from(refunds)
      .where(and(eq(refunds.chain, chain), eq(refunds.isTest, isTest), eq(refunds.txHash, txHash)))
      .limit(1);
    return row?.rawTx ?? null;
  },

  /**
   * Changes a refund from one of `from` to what `patch` says, inside `tx`; returns the row as it is now, or undefined
   * when it was no longer in one of `from` (another round or process changed it first).
   */
  async transition(
    tx: Db,
    id: string,
    from: readonly string[],
    patch: Partial<Omit<RefundRow, 'id'>>,
  ): Promise<RefundRow | undefined> {
    const [row] = await tx
      .update(refunds)
      .set(patch)
      .where(and(eq(refunds.id, id), inArray(refunds.status, [...from])))
      .returning();
    return row;
  },

  /**
   * A broadcast refund's transaction changes to another version of it (a fee bump, or the version the chain mined),
   * only while `txHash` is still its current one.
   */
  async replaceVersion(
    db: Db,
    id: string,
    txHash: string,
    patch: Pick<RefundRow, 'txHash' | 'rawTx' | 'fee' | 'sentAmount' | 'replaced' | 'updatedAt'>,
  ): Promise<RefundRow | undefined> {
    const [row] = await db
      .update(refunds)
      .set(patch)
      .where(and(eq(refunds.id, id), eq(refunds.status, 'broadcast'), eq(refunds.txHash, txHash)))
      .returning();
    return row;
  },

  async noteError(db: Db, id: string, error: string, now: Date): Promise<void> {
    await db.update(refunds).set({ lastError: error, updatedAt: now }).where(eq(refunds.id, id));
  },

  async markBroadcast(db: Db, id: string, now: Date): Promise<void> {
    await db
      .update(refunds)
      .set({
        status: 'broadcast',
        broadcastAt: sql`coalesce(${refunds.broadcastAt}, ${now.toISOString()}::timestamptz)`,
        broadcastCount: sql`${refunds.broadcastCount} + 1`,
        lastError: null,
        updatedAt: now,
      })
      .where(and(eq(refunds.id, id), inArray(refunds.status, ['pending', 'broadcast'])));
  },

  /** Per payment: base units refunded (refunds not failed) and network fees of its refunds (native coin). */
  async totalsByPayments(
    db: Db,
    paymentIds: string[],
  ): Promise<Map<string, { refunded: bigint; fees: bigint }>> {
    const out = new Map<string, { refunded: bigint; fees: bigint }>();
    if (paymentIds.length === 0) return out;
    const rows = await queryRows<{ payment_id: string; refunded: string; fees: string }>(
      db,
      sql`select payment_id, coalesce(sum(amount), 0) as refunded, coalesce(sum(fee), 0) as fees from refunds
          where payment_id = any(${pgArray(paymentIds)}::uuid[]) and ${ACTIVE} group by payment_id`,
    );
    for (const row of rows)
      out.set(row.payment_id, { refunded: BigInt(row.refunded), fees: BigInt(row.fees) });
    return out;
  },

  /** Keyset page of a merchant's refunds, oldest first, for exports. */
  async exportPage(
    db: Db,
    filter: {
      merchantId: string;
      isTest: boolean;
      from?: Date | undefined;
      to?: Date | undefined;
      status?: string | undefined;
      chain?: string | undefined;
      asset?: string | undefined;
    },
    limit: number,
    after: { createdAt: Date; id: string } | undefined,
  ): Promise<RefundRow[]> {
    return db
      .select()
      .from(refunds)
      .where(
        and(
          eq(refunds.merchantId, filter.merchantId),
          eq(refunds.isTest, filter.isTest),
          filter.status === undefined ? undefined : eq(refunds.status, filter.status),
          filter.chain === undefined ? undefined : eq(refunds.chain, filter.chain),
          filter.asset === undefined ? undefined : eq(refunds.asset, filter.asset),
          timeKeysetPage(
            refunds.createdAt,
            refunds.id,
            filter,
            after && { time: after.createdAt, id: after.id },
          ),
        ),
      )
      .orderBy(asc(refunds.createdAt), asc(refunds.id))
      .limit(limit);
  },
};
