import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { merchants } from '../../db/schema/index.ts';

export type MerchantRow = typeof merchants.$inferSelect;

export function createAccountsRepo(db: Db) {
  return {
    async findByEmail(email: string): Promise<MerchantRow | undefined> {
      const [row] = await db.select().from(merchants).where(eq(merchants.email, email)).limit(1);
      return row;
    },
    async findById(id: string): Promise<MerchantRow | undefined> {
      const [row] = await db.select().from(merchants).where(eq(merchants.id, id)).limit(1);
      return row;
    },
    /** Inserts unless the email is taken; returns whether it inserted. */
    async insert(row: MerchantRow): Promise<boolean> {
      const inserted = await db
        .insert(merchants)
        .values(row)
        .onConflictDoNothing({ target: merchants.email })
        .returning({ id: merchants.id });
      return inserted.length === 1;
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
