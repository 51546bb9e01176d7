import { and, desc, eq, isNull, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

function scope(merchantId: string, isTest: boolean | undefined): SQL | undefined {
  return and(
    eq(webhookEndpoints.merchantId, merchantId),
    isNull(webhookEndpoints.deletedAt),
    isTest === undefined ? undefined : eq(webhookEndpoints.isTest, isTest),
  );
}

export function createWebhookEndpointsRepo(db: Db) {
  return {
    async insert(row: WebhookEndpointRow): Promise<void> {
      await db.insert(webhookEndpoints).values(row);
    },

    async find(
      merchantId: string,
      isTest: boolean | undefined,
      id: string,
    ): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .select()
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, id), scope(merchantId, isTest)))
        .limit(1);
      return row;
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
