import { eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
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

/**
 * The instance's operators (operators.ts): the first account (earliest created) and the accounts whose email is
 * listed or whose domain is (`@shop.example`). Emails are compared in lower case.
 */
export async function findOperatorIds(db: Db, emails: readonly string[]): Promise<string[]> {
  const exact = emails.filter((entry) => !entry.startsWith('@'));
  const domains = emails.filter((entry) => entry.startsWith('@'));
  const rows = await queryRows<{ id: string }>(
    db,
    sql`
    select id from (select id from merchants order by created_at, id limit 1) as first_account
    union
    select id from merchants
    where lower(email) in (select jsonb_array_elements_text(${JSON.stringify(exact)}::jsonb))
      or lower(split_part(email, '@', 2)) in (
        select substr(value, 2) from jsonb_array_elements_text(${JSON.stringify(domains)}::jsonb) as value)`,
  );
  return rows.map((row) => row.id);
}
