import { and, desc, eq, gte, lt, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { idempotencyKeys, payments } from '../../db/schema/index.ts';
import type { PaymentStatus } from './schemas.ts';

export type PaymentRow = typeof payments.$inferSelect;
export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

export interface PaymentFilter {
  merchantId: string;
  isTest: boolean | undefined;
  limit: number;
  startingAfter?: string | undefined;
  status?: PaymentStatus | undefined;
  orderId?: string | undefined;
  createdGte?: Date | undefined;
  createdLt?: Date | undefined;
}

export function createPaymentsRepo(db: Db) {
  return {
    /** Takes the next derivation index of an index space and mode inside the caller's transaction. */
    async allocateDerivationIndex(tx: Db, indexSpace: string, isTest: boolean): Promise<number> {
      const [row] = await queryRows<{ index: number }>(
        tx,
        sql`insert into deposit_index_counters (index_space, is_test, next_index) values (${indexSpace}, ${isTest}, 1)
            on conflict (index_space, is_test) do update set next_index = deposit_index_counters.next_index + 1
            returning next_index - 1 as index`,
      );
      if (row === undefined) throw new Error('derivation index allocation returned no row');
      return Number(row.index);
    },

    async insert(tx: Db, row: PaymentRow): Promise<void> {
      await tx.insert(payments).values(row);
    },

    async find(merchantId: string, isTest: boolean | undefined, id: string): Promise<PaymentRow | undefined> {
      const [row] = await db
        .select()
        .from(payments)
        .where(
          and(
            eq(payments.id, id),
            eq(payments.merchantId, merchantId),
            isTest === undefined ? undefined : eq(payments.isTest, isTest),
          ),
        )
        .limit(1);
      return row;
    },

    /** Any payment by id, for the public checkout view (which shows no merchant data). */
    async findPublic(id: string): Promise<PaymentRow | undefined> {
      const [row] = await db.select().from(payments).where(eq(payments.id, id)).limit(1);
      return row;
    },

    async list(filter: PaymentFilter): Promise<PaymentRow[]> {
      return db
        .select()
        .from(payments)
        .where(
          and(
            eq(payments.merchantId, filter.merchantId),
            filter.isTest === undefined ? undefined : eq(payments.isTest, filter.isTest),
            filter.startingAfter === undefined ? undefined : lt(payments.id, filter.startingAfter),
            filter.status === undefined ? undefined : eq(payments.status, filter.status),
            filter.orderId === undefined ? undefined : eq(payments.orderId, filter.orderId),
            filter.createdGte === undefined ? undefined : gte(payments.createdAt, filter.createdGte),
            filter.createdLt === undefined ? undefined : lt(payments.createdAt, filter.createdLt),
          ),
        )
        .orderBy(desc(payments.id))
        .limit(filter.limit);
    },

    async findIdempotency(
      merchantId: string,
      isTest: boolean,
      key: string,
    ): Promise<IdempotencyRow | undefined> {
      const [row] = await db
        .select()
        .from(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.merchantId, merchantId),
            eq(idempotencyKeys.isTest, isTest),
            eq(idempotencyKeys.key, key),
          ),
        )
        .limit(1);
      return row;
    },

    /**
     * Claims an idempotency key in the caller's transaction. A concurrent request with the same key blocks on the
     * unique index until this transaction ends, then finds the row: so exactly one request does the work.
     */
    async claimIdempotency(tx: Db, row: IdempotencyRow, expiredBefore: Date): Promise<boolean> {
      const inserted = await tx
        .insert(idempotencyKeys)
        .values(row)
        .onConflictDoUpdate({
          target: [idempotencyKeys.merchantId, idempotencyKeys.isTest, idempotencyKeys.key],
          set: {
            requestHash: row.requestHash,
            responseStatus: row.responseStatus,
            responseBody: row.responseBody,
            createdAt: row.createdAt,
          },
          // A remembered key past its lifetime may be used afresh.
          setWhere: lt(idempotencyKeys.createdAt, expiredBefore),
        })
        .returning({ key: idempotencyKeys.key });
      return inserted.length === 1;
    },

    async saveIdempotencyResponse(
      tx: Db,
      merchantId: string,
      isTest: boolean,
      key: string,
      status: number,
      body: unknown,
    ): Promise<void> {
      await tx
        .update(idempotencyKeys)
        .set({ responseStatus: status, responseBody: body })
        .where(
          and(
            eq(idempotencyKeys.merchantId, merchantId),
            eq(idempotencyKeys.isTest, isTest),
            eq(idempotencyKeys.key, key),
          ),
        );
    },

    async deleteIdempotencyOlderThan(cutoff: Date): Promise<void> {
      await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff));
    },
  };
}

export type PaymentsRepo = ReturnType<typeof createPaymentsRepo>;
