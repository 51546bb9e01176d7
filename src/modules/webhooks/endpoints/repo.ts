import { and, count, desc, eq, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { webhookEndpoints } from '../../../db/schema/index.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

function scope(merchantId: string, isTest: boolean | undefined): SQL | undefined {
  return and(
    eq(webhookEndpoints.merchantId, merchantId),
    isNull(webhookEndpoints.deletedAt),
    isTest === undefined ? undefined : eq(webhookEndpoints.isTest, isTest),
  );
}

/**
 * The lookup behind every read of one endpoint, as a prepared statement: built once (drizzle's query builder costs
 * more per call than PostgreSQL takes to answer a primary-key SELECT), and on PostgreSQL parsed once per connection.
 */
function prepareFind(db: Db, inMode: boolean) {
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.id, sql.placeholder('id')),
        eq(webhookEndpoints.merchantId, sql.placeholder('merchantId')),
        isNull(webhookEndpoints.deletedAt),
        inMode ? eq(webhookEndpoints.isTest, sql.placeholder('isTest')) : undefined,
      ),
    )
    .limit(1)
    .prepare(inMode ? 'webhook_endpoints_find_in_mode' : 'webhook_endpoints_find');
}

export function createWebhookEndpointsRepo(db: Db) {
  let findInMode: ReturnType<typeof prepareFind> | undefined;
  let findAnyMode: ReturnType<typeof prepareFind> | undefined;
  return {
    async insert(row: WebhookEndpointRow): Promise<void> {
      await db.insert(webhookEndpoints).values(row);
    },

    async find(
      merchantId: string,
      isTest: boolean | undefined,
      id: string,
    ): Promise<WebhookEndpointRow | undefined> {
      if (isTest === undefined) {
        findAnyMode ??= prepareFind(db, false);
        const [row] = await findAnyMode.execute({ id, merchantId });
        return row;
      }
      findInMode ??= prepareFind(db, true);
      const [row] = await findInMode.execute({ id, merchantId, isTest });
      return row;
    },

    /** Endpoints the merchant has in the mode, not counting deleted ones. */
    async count(merchantId: string, isTest: boolean): Promise<number> {
      const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(scope(merchantId, isTest));
      return Number(row?.n ?? 0);
    },

    /**
     * Endpoints whose breaker tripped at or before `cutoff` and whose merchant was not yet told of this trip: marked
     * told (`now`) and returned, in one statement, so that of several processes exactly one sends each notice.
     */
    async claimFailingNotices(cutoff: Date, now: Date): Promise<WebhookEndpointRow[]> {
      return db
        .update(webhookEndpoints)
        .set({ failingNoticedAt: now })
        .where(
          and(
            isNull(webhookEndpoints.deletedAt),
            sql`${webhookEndpoints.trippedAt} <= ${cutoff.toISOString()}::timestamptz`,
            sql`(${webhookEndpoints.failingNoticedAt} is null or ${webhookEndpoints.failingNoticedAt} < ${webhookEndpoints.trippedAt})`,
          ),
        )
        .returning();
    },

    async list(merchantId: string, isTest: boolean | undefined): Promise<WebhookEndpointRow[]> {
      return db
        .select()
        .from(webhookEndpoints)
        .where(scope(merchantId, isTest))
        .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
    },

    async update(
      merchantId: string,
      isTest: boolean | undefined,
      id: string,
      changes: Partial<Omit<WebhookEndpointRow, 'id' | 'merchantId' | 'isTest' | 'createdAt'>>,
    ): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .update(webhookEndpoints)
        .set(changes)
        .where(and(eq(webhookEndpoints.id, id), scope(merchantId, isTest)))
        .returning();
      return row;
    },
  };
}

export type WebhookEndpointsRepo = ReturnType<typeof createWebhookEndpointsRepo>;
