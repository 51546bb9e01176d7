import {
  and,
  asc,
  Column,
  desc,
  eq,
  getTableColumns,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  lte,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { pgArray } from '../../db/arrays.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { jsonRowOf, type ReadPart, type RowRefs, rowFromJson } from '../../db/json-rows.ts';
import { depositIndexSpaces, idempotencyKeys, LAST_DEPOSIT_INDEX, payments } from '../../db/schema/index.ts';
import type { PaymentStatus } from './statuses.ts';

/** A payment as stored: chain, asset, address, expected amount and rate are null until a chain is picked. */
export type StoredPaymentRow = typeof payments.$inferSelect;

/** What parts composed into a read of a payment (prepareFindWithParts) refer to of the payment's row. */
export type PaymentRowRefs = RowRefs<'id' | 'merchantId' | 'chain' | 'isTest'>;

type PartValue<Part> = Part extends ReadPart<infer T> ? T : never;
/** The columns a pick (or a creation naming its chain) sets, all together. */
export type PickedColumns =
  | 'chain'
  | 'asset'
  | 'address'
  | 'derivationIndex'
  | 'expectedBaseUnits'
  | 'rate'
  | 'rateSource';
/** Those columns once set. */
type Picked = { [K in PickedColumns]: NonNullable<StoredPaymentRow[K]> };
/** A payment on a chain: what the chains side (watchers, forwarder, simulator) ever sees. */
export type PaymentRow = Omit<StoredPaymentRow, PickedColumns> & Picked;

/** Whether a payment has its chain (named at creation, or picked by the payer); any read holding those columns. */
export function isPicked<Row extends Pick<StoredPaymentRow, PickedColumns>>(row: Row): row is Row & Picked {
  return (
    row.chain !== null &&
    row.asset !== null &&
    row.address !== null &&
    row.derivationIndex !== null &&
    row.expectedBaseUnits !== null &&
    row.rate !== null &&
    row.rateSource !== null
  );
}

/** The picked rows of `rows` (the others have no address: nothing of the chains side concerns them). */
function pickedOnly(rows: StoredPaymentRow[]): PaymentRow[] {
  return rows.filter(isPicked);
}
export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;

/** One payment's new settlement figures; `confirmation` when it became paid in this change (with the rate then). */
export interface SettlementUpdate {
  id: string;
  status: string;
  receivedBaseUnits: string;
  txHash: string | null;
  confirmation?: { rate: string | null; source: string | null };
}

/** What an export of payments (and of what belongs to them) selects. */
export interface ExportFilter {
  merchantId: string;
  isTest: boolean;
  from?: Date | undefined;
  to?: Date | undefined;
  status?: string | undefined;
  chain?: string | undefined;
  asset?: string | undefined;
}

export interface PaymentFilter {
  merchantId: string;
  isTest: boolean | undefined;
  limit: number;
  startingAfter?: string | undefined;
  status?: PaymentStatus | undefined;
  orderId?: string | undefined;
  createdGte?: Date | undefined;
  createdLt?: Date | undefined;
  paymentLinkId?: string | undefined;
}

const paymentColumns = getTableColumns(payments);
const paymentKeys = Object.keys(paymentColumns) as Array<keyof StoredPaymentRow>;

/** The most payments one prepared insert takes (25 parameters each). */
export const MAX_INSERT_ROWS = 32;

/**
 * Each column with its placeholders' names in the prepared inserts (`id_0`, `id_1`, … for the nth payment) and the
 * encoder it needs, if any: most pass their value as it is (dates and JSON do not).
 */
const paymentEncoders = paymentKeys.map((key) => {
  const column = paymentColumns[key];
  const encodes = column.mapToDriverValue !== Column.prototype.mapToDriverValue;
  return {
    key,
    names: Array.from({ length: MAX_INSERT_ROWS }, (_, n) => `${key}_${n}`),
    encode: encodes ? (value: unknown) => column.mapToDriverValue(value) : undefined,
  };
});

/**
 * Every column of the `n`th payment of an insert as a bare placeholder, for the prepared inserts. Bare (inside
 * sql``) because drizzle would otherwise run each column's encoder on the value, null included, which a nullable
 * timestamp does not survive; driverValues encodes instead.
 */
function insertPlaceholders(n: number): Record<keyof StoredPaymentRow, SQL> {
  return Object.fromEntries(
    paymentEncoders.map(({ key, names }) => [key, sql`${sql.placeholder(names[n] as string)}`]),
  ) as Record<keyof StoredPaymentRow, SQL>;
}

/** Payment rows as the driver takes them, named as insertPlaceholders names them: non-null values encoded. */
function driverValues(rows: readonly StoredPaymentRow[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  rows.forEach((row, n) => {
    for (const { key, names, encode } of paymentEncoders) {
      const value = row[key];
      values[names[n] as string] = value === null || encode === undefined ? value : encode(value);
    }
  });
  return values;
}

/**
 * The statements of the hot paths (creation without an idempotency key, the public checkout read), prepared once:
 * drizzle's query builder costs more per call than PostgreSQL takes to run either, and on PostgreSQL a named
 * statement is parsed and planned once per connection (see webhooks/endpoints/repo.ts prepareFind). Inserts of 1 to
 * MAX_INSERT_ROWS payments each have their own.
 */
function prepareInsert(db: Db, count: number) {
  return db
    .insert(payments)
    .values(Array.from({ length: count }, (_, n) => insertPlaceholders(n)))
    .prepare(`payments_insert_${count}`);
}

/**
 * What the public checkout reads of a payment: its state, chain side, choice and window, never the merchant's own
 * fields (metadata, order id, email) or the forwarding. The checkout is polled by every open payer page, and each
 * column is decoded on every read (metadata is JSON).
 */
const checkoutColumns = {
  id: payments.id,
  merchantId: payments.merchantId,
  isTest: payments.isTest,
  status: payments.status,
  amount: payments.amount,
  currency: payments.currency,
  chain: payments.chain,
  asset: payments.asset,
  address: payments.address,
  derivationIndex: payments.derivationIndex,
  expectedBaseUnits: payments.expectedBaseUnits,
  receivedBaseUnits: payments.receivedBaseUnits,
  rate: payments.rate,
  rateSource: payments.rateSource,
  paymentOptions: payments.paymentOptions,
  selectedAt: payments.selectedAt,
  quoteExpiresAt: payments.quoteExpiresAt,
  locale: payments.locale,
  txHash: payments.txHash,
  redirectUrl: payments.redirectUrl,
  cancelUrl: payments.cancelUrl,
  expiresAt: payments.expiresAt,
};
export type CheckoutPaymentRow = Pick<StoredPaymentRow, keyof typeof checkoutColumns>;

function prepareFindCheckout(db: Db) {
  return db
    .select(checkoutColumns)
    .from(payments)
    .where(eq(payments.id, sql.placeholder('id')))
    .limit(1)
    .prepare('payments_find_checkout');
}

function prepareFindPublic(db: Db) {
  return db
    .select()
    .from(payments)
    .where(eq(payments.id, sql.placeholder('id')))
    .limit(1)
    .prepare('payments_find_public');
}

export function createPaymentsRepo(db: Db) {
  const insertsPrepared = new Map<number, ReturnType<typeof prepareInsert>>();
  let findPublicPrepared: ReturnType<typeof prepareFindPublic> | undefined;
  let findCheckoutPrepared: ReturnType<typeof prepareFindCheckout> | undefined;
  return {
    /**
     * Takes the next `count` derivation indices of an index space and mode from its counter row (see
     * db/schema/deposit-indices.ts), in one statement that commits at once: call it on the database, never inside a
     * payment's transaction, or the row stays locked until that commits.
     */
    async allocateDerivationIndices(
      db: Db,
      indexSpace: string,
      isTest: boolean,
      count: number,
    ): Promise<number[]> {
      if (!(depositIndexSpaces as readonly string[]).includes(indexSpace)) {
        throw new Error(`No derivation indices for index space ${indexSpace}`);
      }
      const rows = await queryRows<{ next_index: string | number }>(
        db,
        sql`insert into deposit_index_next (index_space, is_test, next_index) values (${indexSpace}, ${isTest}, ${count})
          on conflict (index_space, is_test) do update set next_index = deposit_index_next.next_index + excluded.next_index
          returning next_index`,
      );
      const next = Number(rows[0]?.next_index);
      if (!Number.isSafeInteger(next) || next - 1 > LAST_DEPOSIT_INDEX) {
        throw new Error(`The derivation indices of ${indexSpace} (${isTest ? 'test' : 'live'}) are used up`);
      }
      return Array.from({ length: count }, (_, n) => next - count + n);
    },

    /** Inserts a payment on `tx`, an open transaction. */
    async insert(tx: Db, row: StoredPaymentRow): Promise<void> {
      await tx.insert(payments).values(row);
    },

    /** Inserts up to MAX_INSERT_ROWS payments in one statement (prepared), on the database itself. */
    async insertMany(rows: readonly StoredPaymentRow[]): Promise<void> {
      if (rows.length === 0) return;
      if (rows.length > MAX_INSERT_ROWS) throw new RangeError(`at most ${MAX_INSERT_ROWS} payments at once`);
      let prepared = insertsPrepared.get(rows.length);
      if (prepared === undefined) {
        prepared = prepareInsert(db, rows.length);
        insertsPrepared.set(rows.length, prepared);
      }
      await prepared.execute(driverValues(rows));
    },

    async find(
      merchantId: string,
      isTest: boolean | undefined,
      id: string,
    ): Promise<StoredPaymentRow | undefined> {
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

    /**
     * Prepares a read of one of a merchant's payments (of one mode, or of either when `isTest` is undefined) together
     * with parts of other modules' tables, which `partsOf` composes from references to the payment's row: one
     * statement, so one round trip and one snapshot (a commit that changed the payment and those tables together
     * shows whole or not at all). The statement is built and prepared at its first use, not at start.
     */
    prepareFindWithParts<P extends Record<string, ReadPart<unknown>>>(
      name: string,
      partsOf: (payment: PaymentRowRefs) => P,
    ): (
      merchantId: string,
      isTest: boolean | undefined,
      id: string,
    ) => Promise<{ row: StoredPaymentRow; parts: { [K in keyof P]: PartValue<P[K]> } } | undefined> {
      const prepare = () => {
        const parts = Object.entries(
          partsOf({
            id: payments.id,
            merchantId: payments.merchantId,
            chain: payments.chain,
            isTest: payments.isTest,
          }),
        );
        const fields: Record<string, SQL> = Object.fromEntries(parts.map(([key, part]) => [key, part.sql]));
        const isTest = sql.placeholder('isTest');
        const statement = db
          .select({ row: jsonRowOf(payments), parts: fields })
          .from(payments)
          .where(
            and(
              eq(payments.id, sql.placeholder('id')),
              eq(payments.merchantId, sql.placeholder('merchantId')),
              sql`(${isTest}::boolean is null or ${payments.isTest} = ${isTest})`,
            ),
          )
          .limit(1)
          .prepare(name);
        return { parts, statement };
      };
      let prepared: ReturnType<typeof prepare> | undefined;
      return async (merchantId, isTestValue, id) => {
        prepared ??= prepare();
        const { parts, statement } = prepared;
        const [found] = await statement.execute({ id, merchantId, isTest: isTestValue ?? null });
        if (found === undefined) return undefined;
        const values = Object.fromEntries(parts.map(([key, part]) => [key, part.read(found.parts[key])]));
        return {
          row: rowFromJson(payments, found.row),
          parts: values as { [K in keyof P]: PartValue<P[K]> },
        };
      };
    },

    /** Any payment by id, for the public checkout view (which shows no merchant data). */
    async findPublic(id: string): Promise<StoredPaymentRow | undefined> {
      findPublicPrepared ??= prepareFindPublic(db);
      const [row] = await findPublicPrepared.execute({ id });
      return row;
    },

    /** Any payment by id, as the public checkout view reads it (checkoutColumns). */
    async findCheckout(id: string): Promise<CheckoutPaymentRow | undefined> {
      findCheckoutPrepared ??= prepareFindCheckout(db);
      const [row] = await findCheckoutPrepared.execute({ id });
      return row;
    },

    async list(filter: PaymentFilter): Promise<StoredPaymentRow[]> {
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
            filter.paymentLinkId === undefined ? undefined : eq(payments.paymentLinkId, filter.paymentLinkId),
          ),
        )
        .orderBy(desc(payments.id))
        .limit(filter.limit);
    },

    /**
     * Per payment link: its payments, those paid (completed or overpaid) and their amounts added up (exactly, as
     * numeric: every payment of a link has the link's currency).
     */
    async linkTotals(
      merchantId: string,
      linkIds: string[],
    ): Promise<Map<string, { payments: number; paid: number; paidAmount: string }>> {
      const totals = new Map<string, { payments: number; paid: number; paidAmount: string }>();
      if (linkIds.length === 0) return totals;
      const rows = await queryRows<{
        link: string;
        payments: string | number;
        paid: string | number;
        paid_amount: string | null;
      }>(
        db,
        sql`select payment_link_id as link, count(*) as payments,
                   count(*) filter (where status in ('completed', 'overpaid')) as paid,
                   coalesce(sum(amount::numeric) filter (where status in ('completed', 'overpaid')), 0)::text as paid_amount
            from payments
            where merchant_id = ${merchantId} and payment_link_id = any(${pgArray(linkIds)}::text[])
            group by payment_link_id`,
      );
      for (const row of rows) {
        totals.set(row.link, {
          payments: Number(row.payments),
          paid: Number(row.paid),
          paidAmount: row.paid_amount ?? '0',
        });
      }
      return totals;
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

    // ---- settlement ----

    /** Locks payments for a state change in the caller's transaction (in id order, so lockers never deadlock). */
    async lockForSettlement(tx: Db, ids: string[]): Promise<StoredPaymentRow[]> {
      if (ids.length === 0) return [];
      return (
        tx
          .select()
          .from(payments)
          .where(sql`${payments.id} = any(${pgArray(ids)}::uuid[])`)
          .orderBy(asc(payments.id))
          // NO KEY UPDATE: excludes every other writer of these rows, without blocking inserts that reference them.
          .for('no key update')
      );
    },

    /** Payments by id that have their chain (only those have deposits or forwards). */
    async byIds(tx: Db, ids: string[]): Promise<PaymentRow[]> {
      if (ids.length === 0) return [];
      return pickedOnly(await tx.select().from(payments).where(inArray(payments.id, ids)));
    },

    /** Records the payer's pick (or a new quote for it) on a payment locked by `lockForSettlement` in `tx`. */
    async applyPick(
      tx: Db,
      id: string,
      pick: Pick<PaymentRow, PickedColumns | 'selectedAt' | 'quoteExpiresAt' | 'updatedAt'>,
    ): Promise<void> {
      await tx.update(payments).set(pick).where(eq(payments.id, id));
    },

    /**
     * Writes status, received and latest deposit hash of many payments in one statement; those with `confirmation`
     * also get when they became paid and the rate then (null: none to be had), unless they already have it. One
     * statement rather than two: each payment gets one new row version, and the block commit one round trip less.
     */
    async applySettlement(tx: Db, updates: SettlementUpdate[], now: Date): Promise<void> {
      if (updates.length === 0) return;
      const at = now.toISOString();
      await tx.execute(
        sql`update payments p set status = v.status, received_base_units = v.received, tx_hash = v.tx_hash,
                   updated_at = ${at}::timestamptz,
                   confirmed_at = case when v.confirmed and p.confirmed_at is null
                                       then ${at}::timestamptz else p.confirmed_at end,
                   confirmation_rate = case when v.confirmed and p.confirmed_at is null
                                            then v.rate else p.confirmation_rate end,
                   confirmation_rate_source = case when v.confirmed and p.confirmed_at is null
                                                   then v.source else p.confirmation_rate_source end
            from unnest(${pgArray(updates.map((u) => u.id))}::uuid[],
                        ${pgArray(updates.map((u) => u.status))}::text[],
                        ${pgArray(updates.map((u) => u.receivedBaseUnits))}::numeric[],
                        ${pgArray(updates.map((u) => u.txHash))}::text[],
                        ${pgArray(updates.map((u) => u.confirmation !== undefined))}::boolean[],
                        ${pgArray(updates.map((u) => u.confirmation?.rate ?? null))}::text[],
                        ${pgArray(updates.map((u) => u.confirmation?.source ?? null))}::text[])
              as v(id, status, received, tx_hash, confirmed, rate, source)
            where p.id = v.id`,
      );
    },

    /** Payments confirmed since `since` whose rate at confirmation is still unknown, oldest first. */
    async unratedConfirmations(
      db: Db,
      since: Date,
      limit: number,
    ): Promise<Array<{ id: string; asset: string; currency: string; isTest: boolean }>> {
      const rows = await queryRows<{ id: string; asset: string; currency: string; is_test: boolean }>(
        db,
        sql`select id, asset, currency, is_test from payments
            where confirmed_at >= ${since.toISOString()}::timestamptz and confirmation_rate is null
            order by confirmed_at limit ${limit}`,
      );
      return rows.map((row) => ({
        id: row.id,
        asset: row.asset,
        currency: row.currency,
        isTest: row.is_test,
      }));
    },

    /** Stores rates at confirmation fetched after the fact; a payment that has one keeps it. Returns how many. */
    async setConfirmationRates(
      db: Db,
      rated: Array<{ id: string; rate: string; source: string }>,
    ): Promise<number> {
      if (rated.length === 0) return 0;
      const rows = await queryRows<{ id: string }>(
        db,
        sql`update payments p set confirmation_rate = v.rate, confirmation_rate_source = v.source
            from unnest(${pgArray(rated.map((r) => r.id))}::uuid[],
                        ${pgArray(rated.map((r) => r.rate))}::text[],
                        ${pgArray(rated.map((r) => r.source))}::text[]) as v(id, rate, source)
            where p.id = v.id and p.confirmation_rate is null
            returning p.id`,
      );
      return rows.length;
    },

    /** How many payments are open (pending, confirming, underpaid) per chain, status and mode (metrics). */
    async openCounts(
      db: Db,
    ): Promise<Array<{ chain: string; status: string; isTest: boolean; count: number }>> {
      const rows = await queryRows<{
        chain: string;
        status: string;
        is_test: boolean;
        count: string | number;
      }>(
        db,
        sql`select chain, status, is_test, count(*) as count from payments
            where status in ('pending', 'confirming', 'underpaid') group by chain, status, is_test`,
      );
      return rows.map((row) => ({
        chain: row.chain,
        status: row.status,
        isTest: row.is_test,
        count: Number(row.count),
      }));
    },

    /** Payments of a chain and mode created at or after `createdFrom` whose window ends after `expiresAfter`. */
    async watchable(
      db: Db,
      chain: string,
      isTest: boolean,
      createdFrom: Date,
      expiresAfter: Date,
    ): Promise<Array<{ id: string; address: string; asset: string; createdAt: Date }>> {
      // A payment the payer picked this chain for is new to the watcher from its pick on, like one created then.
      const rows = await db
        .select({
          id: payments.id,
          address: payments.address,
          asset: payments.asset,
          createdAt: payments.createdAt,
        })
        .from(payments)
        .where(
          and(
            eq(payments.chain, chain),
            eq(payments.isTest, isTest),
            or(gte(payments.createdAt, createdFrom), gte(payments.selectedAt, createdFrom)),
            gt(payments.expiresAt, expiresAfter),
          ),
        );
      // Address and asset are set with the chain.
      return rows.flatMap((row) =>
        row.address === null || row.asset === null
          ? []
          : [{ ...row, address: row.address, asset: row.asset }],
      );
    },

    /** Open payments whose window has ended, oldest first, locked (skipping rows another process holds). */
    async lockDueForExpiry(
      tx: Db,
      now: Date,
      limit: number,
      after?: { expiresAt: Date; id: string },
    ): Promise<Array<{ id: string; expiresAt: Date }>> {
      return tx
        .select({ id: payments.id, expiresAt: payments.expiresAt })
        .from(payments)
        .where(
          and(
            inArray(payments.status, ['pending', 'underpaid']),
            lte(payments.expiresAt, now),
            after === undefined
              ? undefined
              : sql`(${payments.expiresAt}, ${payments.id}) > (${after.expiresAt.toISOString()}::timestamptz, ${after.id}::uuid)`,
          ),
        )
        .orderBy(asc(payments.expiresAt), asc(payments.id))
        .limit(limit)
        .for('update', { skipLocked: true });
    },

    /** The earliest window end among open payments, to know when to look again. */
    async nextExpiry(db: Db): Promise<Date | null> {
      const [row] = await db
        .select({ expiresAt: payments.expiresAt })
        .from(payments)
        .where(inArray(payments.status, ['pending', 'underpaid']))
        .orderBy(asc(payments.expiresAt))
        .limit(1);
      return row?.expiresAt ?? null;
    },

    /**
     * A keyset page of a merchant's payments of one mode for exports, oldest first (ids are UUIDv7: by creation time),
     * after `afterId`, filtered by creation time, status, chain and asset.
     */
    async exportPage(
      filter: ExportFilter,
      limit: number,
      afterId: string | undefined,
    ): Promise<StoredPaymentRow[]> {
      return db
        .select()
        .from(payments)
        .where(
          and(
            eq(payments.merchantId, filter.merchantId),
            eq(payments.isTest, filter.isTest),
            afterId === undefined ? undefined : gt(payments.id, afterId),
            filter.from === undefined ? undefined : gte(payments.createdAt, filter.from),
            filter.to === undefined ? undefined : lt(payments.createdAt, filter.to),
            filter.status === undefined ? undefined : eq(payments.status, filter.status),
            filter.chain === undefined ? undefined : eq(payments.chain, filter.chain),
            filter.asset === undefined ? undefined : eq(payments.asset, filter.asset),
          ),
        )
        .orderBy(asc(payments.id))
        .limit(limit);
    },

    /**
     * Report figures of a merchant's payments of one mode created in [from, to): per UTC day, chain and asset, the
     * payments created, those paid (completed or overpaid) and what those received; base units as strings.
     */
    async reportDaily(filter: {
      merchantId: string;
      isTest: boolean;
      from: Date;
      to: Date;
    }): Promise<
      Array<{ day: string; chain: string; asset: string; created: number; paid: number; received: string }>
    > {
      const rows = await queryRows<{
        day: string;
        chain: string;
        asset: string;
        created: string | number;
        paid: string | number;
        received: string;
      }>(
        db,
        sql`select to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as day, chain, asset,
                   count(*) as created,
                   count(*) filter (where status in ('completed', 'overpaid')) as paid,
                   coalesce(sum(received_base_units) filter (where status in ('completed', 'overpaid')), 0) as received
            from payments
            where merchant_id = ${filter.merchantId} and is_test = ${filter.isTest}
              and created_at >= ${filter.from.toISOString()}::timestamptz
              and created_at < ${filter.to.toISOString()}::timestamptz
            group by 1, 2, 3 order by 1, 2, 3`,
      );
      return rows.map((row) => ({
        day: row.day,
        chain: row.chain,
        asset: row.asset,
        created: Number(row.created),
        paid: Number(row.paid),
        received: String(row.received),
      }));
    },

    /** Overpaid payments of a chain and mode last changed at or after `since` (auto-refunds of the excess look at them). */
    async overpaidSince(chain: string, isTest: boolean, since: Date, limit: number): Promise<PaymentRow[]> {
      return pickedOnly(
        await db
          .select()
          .from(payments)
          .where(
            and(
              eq(payments.status, 'overpaid'),
              eq(payments.chain, chain),
              eq(payments.isTest, isTest),
              gte(payments.updatedAt, since),
            ),
          )
          .orderBy(asc(payments.updatedAt))
          .limit(limit),
      );
    },

    /** Paid payments (completed, overpaid) created in [from, to): id and creation time, for timing their confirmation. */
    async paidCreationTimes(
      filter: { merchantId: string; isTest: boolean; from: Date; to: Date },
      limit: number,
      afterId: string | undefined,
    ): Promise<Array<{ id: string; createdAt: Date }>> {
      return db
        .select({ id: payments.id, createdAt: payments.createdAt })
        .from(payments)
        .where(
          and(
            eq(payments.merchantId, filter.merchantId),
            eq(payments.isTest, filter.isTest),
            inArray(payments.status, ['completed', 'overpaid']),
            gte(payments.createdAt, filter.from),
            lt(payments.createdAt, filter.to),
            afterId === undefined ? undefined : gt(payments.id, afterId),
          ),
        )
        .orderBy(asc(payments.id))
        .limit(limit);
    },

    /** Marks a test payment as simulated from its checkout, unless it already was: true when this call marked it. */
    async claimCheckoutSimulation(db: Db, id: string, now: Date): Promise<boolean> {
      const marked = await db
        .update(payments)
        .set({ checkoutSimulatedAt: now })
        .where(and(eq(payments.id, id), eq(payments.isTest, true), isNull(payments.checkoutSimulatedAt)))
        .returning({ id: payments.id });
      return marked.length === 1;
    },

    /** Ends a payment's window now (test mode `simulate` with outcome `expired`). */
    async endWindow(tx: Db, id: string, now: Date): Promise<void> {
      await tx.update(payments).set({ expiresAt: now, updatedAt: now }).where(eq(payments.id, id));
    },

    /** Records a final forward on its payments: when, its hash, and each payment's share of the fee added up. */
    async applyForwarded(
      tx: Db,
      updates: Array<{ id: string; fee: bigint }>,
      txHash: string,
      at: Date,
    ): Promise<void> {
      if (updates.length === 0) return;
      await tx.execute(
        sql`update payments p set forwarded_at = ${at.toISOString()}::timestamptz, forward_tx_hash = ${txHash},
                   forward_fee_base_units = coalesce(p.forward_fee_base_units, 0) + v.fee,
                   updated_at = ${at.toISOString()}::timestamptz
            from unnest(${pgArray(updates.map((u) => u.id))}::uuid[],
                        ${pgArray(updates.map((u) => u.fee.toString()))}::numeric[]) as v(id, fee)
            where p.id = v.id`,
      );
    },

    /**
     * Forgets at most `limit` idempotency keys stored before `before` (retention), oldest first; keys another process
     * is deleting are skipped. Returns how many went.
     */
    async purgeIdempotencyKeys(before: Date, limit: number): Promise<number> {
      const rows = await queryRows<{ key: string }>(
        db,
        sql`delete from idempotency_keys where (merchant_id, is_test, key) in (
              select merchant_id, is_test, key from idempotency_keys
              where created_at < ${before.toISOString()}::timestamptz
              order by created_at limit ${limit} for update skip locked)
            returning key`,
      );
      return rows.length;
    },
  };
}

export type PaymentsRepo = ReturnType<typeof createPaymentsRepo>;
