import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  merchantLogos,
  merchantSettings,
  payoutWalletChanges,
  payoutWallets,
} from '../../db/schema/index.ts';

export type MerchantSettingsRow = typeof merchantSettings.$inferSelect;
export type MerchantLogoRow = typeof merchantLogos.$inferSelect;
export type PayoutWalletRow = typeof payoutWallets.$inferSelect;
export type PayoutWalletChangeRow = typeof payoutWalletChanges.$inferSelect;

export function createSettingsRepo(db: Db) {
  return {
    async findSettings(tx: Db, merchantIds: string[]): Promise<MerchantSettingsRow[]> {
      if (merchantIds.length === 0) return [];
      return tx.select().from(merchantSettings).where(inArray(merchantSettings.merchantId, merchantIds));
    },

    async upsertSettings(row: MerchantSettingsRow): Promise<void> {
      const { merchantId: _merchantId, ...rest } = row;
      await db
        .insert(merchantSettings)
        .values(row)
        .onConflictDoUpdate({ target: merchantSettings.merchantId, set: rest });
    },

    async findLogo(merchantId: string): Promise<Omit<MerchantLogoRow, 'imageBase64'> | undefined> {
      const [row] = await db
        .select({
          merchantId: merchantLogos.merchantId,
          contentType: merchantLogos.contentType,
          sha256: merchantLogos.sha256,
          width: merchantLogos.width,
          height: merchantLogos.height,
          updatedAt: merchantLogos.updatedAt,
        })
        .from(merchantLogos)
        .where(eq(merchantLogos.merchantId, merchantId))
        .limit(1);
      return row;
    },

    async findLogoBySha(sha256: string): Promise<MerchantLogoRow | undefined> {
      const [row] = await db.select().from(merchantLogos).where(eq(merchantLogos.sha256, sha256)).limit(1);
      return row;
    },

    async upsertLogo(row: MerchantLogoRow): Promise<void> {
      const { merchantId: _merchantId, ...rest } = row;
      await db
        .insert(merchantLogos)
        .values(row)
        .onConflictDoUpdate({ target: merchantLogos.merchantId, set: rest });
    },

    async deleteLogo(merchantId: string): Promise<void> {
      await db.delete(merchantLogos).where(eq(merchantLogos.merchantId, merchantId));
    },

    async listWallets(tx: Db, merchantId: string, isTest: boolean): Promise<PayoutWalletRow[]> {
      return tx
        .select()
        .from(payoutWallets)
        .where(and(eq(payoutWallets.merchantId, merchantId), eq(payoutWallets.isTest, isTest)))
        .orderBy(payoutWallets.chain);
    },

    async findWallet(
      tx: Db,
      merchantId: string,
      isTest: boolean,
      chain: string,
    ): Promise<PayoutWalletRow | undefined> {
      const [row] = await tx
        .select()
        .from(payoutWallets)
        .where(
          and(
            eq(payoutWallets.merchantId, merchantId),
            eq(payoutWallets.isTest, isTest),
            eq(payoutWallets.chain, chain),
          ),
        )
        .limit(1);
      return row;
    },

    /**
     * Serializes the payout-wallet changes of one merchant until `tx` ends, so each change reads the addresses it
     * replaces after the previous change committed (the audit trail's old → new stays a chain).
     */
    async lockWallets(tx: Db, merchantId: string): Promise<void> {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`payout_wallets:${merchantId}`}))`);
    },

    /** Replaces the merchant's wallets of one mode with `rows` inside `tx`, keeping the creation time of unchanged chains. */
    async replaceWallets(
      tx: Db,
      merchantId: string,
      isTest: boolean,
      rows: PayoutWalletRow[],
    ): Promise<void> {
      const scope = and(eq(payoutWallets.merchantId, merchantId), eq(payoutWallets.isTest, isTest));
      const keep = rows.map((row) => row.chain);
      const existing = await tx.select().from(payoutWallets).where(scope);
      const gone = existing.filter((row) => !keep.includes(row.chain)).map((row) => row.chain);
      if (gone.length > 0)
        await tx.delete(payoutWallets).where(and(scope, inArray(payoutWallets.chain, gone)));
      for (const row of rows) {
        await tx
          .insert(payoutWallets)
          .values(row)
          .onConflictDoUpdate({
            target: [payoutWallets.merchantId, payoutWallets.isTest, payoutWallets.chain],
            set: { address: row.address, updatedAt: row.updatedAt },
          });
      }
    },

    async insertChanges(tx: Db, rows: PayoutWalletChangeRow[]): Promise<void> {
      if (rows.length > 0) await tx.insert(payoutWalletChanges).values(rows);
    },

    /** The merchant's payout-wallet changes of both modes, newest first. */
    async listChanges(merchantId: string, limit: number): Promise<PayoutWalletChangeRow[]> {
      return db
        .select()
        .from(payoutWalletChanges)
        .where(eq(payoutWalletChanges.merchantId, merchantId))
        .orderBy(desc(payoutWalletChanges.createdAt), asc(payoutWalletChanges.chain))
        .limit(limit);
    },
  };
}

export type SettingsRepo = ReturnType<typeof createSettingsRepo>;
