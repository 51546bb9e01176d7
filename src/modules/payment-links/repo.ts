import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { paymentLinks } from '../../db/schema/index.ts';

export type PaymentLinkRow = typeof paymentLinks.$inferSelect;

export function createPaymentLinksRepo(db: Db) {
  return {
    async insert(row: PaymentLinkRow): Promise<void> {
      await db.insert(paymentLinks).values(row);
    },

    async find(id: string): Promise<PaymentLinkRow | undefined> {
      const [row] = await db.select().from(paymentLinks).where(eq(paymentLinks.id, id)).limit(1);
      return row;
    },

    async list(merchantId: string, isTest: boolean | undefined): Promise<PaymentLinkRow[]> {
      return db
        .select()
        .from(paymentLinks)
        .where(
          and(
            eq(paymentLinks.merchantId, merchantId),
            isTest === undefined ? undefined : eq(paymentLinks.isTest, isTest),
          ),
        )
        .orderBy(desc(paymentLinks.createdAt))
        .limit(200);
    },

    async update(
      id: string,
      changes: Partial<Pick<PaymentLinkRow, 'title' | 'description' | 'active' | 'updatedAt'>>,
    ): Promise<void> {
      await db.update(paymentLinks).set(changes).where(eq(paymentLinks.id, id));
    },
  };
}

export type PaymentLinksRepo = ReturnType<typeof createPaymentLinksRepo>;
