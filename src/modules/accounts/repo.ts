import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/client.ts';
import { invites, merchants, passwordResets } from '../../db/schema/index.ts';

/** Rolls back a sign-up whose invite turned out used or expired. */
class InviteUnusable extends Error {}

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

    /**
     * Inserts the merchant and spends the invite in one transaction: `taken` when the email exists (the invite stays
     * unused), `invite_invalid` when the invite is unknown, used or expired (nothing is inserted).
     */
    async insertWithInvite(
      row: MerchantRow,
      codeHash: string,
      now: Date,
    ): Promise<'created' | 'taken' | 'invite_invalid'> {
      try {
        return await db.transaction(async (tx) => {
          const inserted = await tx
            .insert(merchants)
            .values(row)
            .onConflictDoNothing({ target: merchants.email })
            .returning({ id: merchants.id });
          if (inserted.length === 0) return 'taken';
          const spent = await tx
            .update(invites)
            .set({ usedAt: now, usedBy: row.id })
            .where(and(eq(invites.codeHash, codeHash), isNull(invites.usedAt), gt(invites.expiresAt, now)))
            .returning({ codeHash: invites.codeHash });
          if (spent.length === 0) throw new InviteUnusable();
          return 'created';
        });
      } catch (error) {
        if (error instanceof InviteUnusable) return 'invite_invalid';
        throw error;
      }
    },

    async insertInvite(codeHash: string, createdAt: Date, expiresAt: Date): Promise<void> {
      await db.insert(invites).values({ codeHash, createdAt, expiresAt });
    },

    async insertReset(
      tokenHash: string,
      merchantId: string,
      createdAt: Date,
      expiresAt: Date,
    ): Promise<void> {
      await db.insert(passwordResets).values({ tokenHash, merchantId, createdAt, expiresAt });
    },

    /**
     * Spends an unused, unexpired reset token and sets the merchant's new password hash in one transaction; every
     * other reset link of that merchant is spent with it. Returns the merchant id, or undefined when unusable.
     */
    async resetPassword(tokenHash: string, passwordHash: string, now: Date): Promise<string | undefined> {
      return db.transaction(async (tx) => {
        const [spent] = await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(
            and(
              eq(passwordResets.tokenHash, tokenHash),
              isNull(passwordResets.usedAt),
              gt(passwordResets.expiresAt, now),
            ),
          )
          .returning({ merchantId: passwordResets.merchantId });
        if (spent === undefined) return undefined;
        await tx
          .update(merchants)
          .set({ passwordHash, passwordChangedAt: now })
          .where(eq(merchants.id, spent.merchantId));
        await tx
          .update(passwordResets)
          .set({ usedAt: now })
          .where(and(eq(passwordResets.merchantId, spent.merchantId), isNull(passwordResets.usedAt)));
        return spent.merchantId;
      });
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
