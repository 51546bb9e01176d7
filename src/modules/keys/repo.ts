import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { apiKeys, keypairs } from '../../db/schema/index.ts';

export type KeypairRow = typeof keypairs.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** The lookup behind every API-key authentication, prepared once (see webhooks/endpoints/repo.ts prepareFind). */
function prepareFindActiveKey(db: Db) {
  return db
    .select({ key: apiKeys })
    .from(apiKeys)
    .innerJoin(keypairs, eq(keypairs.id, apiKeys.keypairId))
    .where(and(eq(apiKeys.keyHash, sql.placeholder('keyHash')), isNull(keypairs.revokedAt)))
    .limit(1)
    .prepare('api_keys_find_active_by_hash');
}

export function createKeysRepo(db: Db) {
  let findActiveKey: ReturnType<typeof prepareFindActiveKey> | undefined;
  return {
    async insertPair(pair: KeypairRow, keys: ApiKeyRow[]): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.insert(keypairs).values(pair);
        await tx.insert(apiKeys).values(keys);
      });
    },

    async listPairs(merchantId: string): Promise<Array<{ pair: KeypairRow; keys: ApiKeyRow[] }>> {
      const pairs = await db
        .select()
        .from(keypairs)
        .where(eq(keypairs.merchantId, merchantId))
        .orderBy(desc(keypairs.createdAt), desc(keypairs.id));
      const keys = await db.select().from(apiKeys).where(eq(apiKeys.merchantId, merchantId));
      return pairs.map((pair) => ({ pair, keys: keys.filter((key) => key.keypairId === pair.id) }));
    },

    async findPair(
      merchantId: string,
      id: string,
    ): Promise<{ pair: KeypairRow; keys: ApiKeyRow[] } | undefined> {
      const [pair] = await db
        .select()
        .from(keypairs)
        .where(and(eq(keypairs.id, id), eq(keypairs.merchantId, merchantId)))
        .limit(1);
      if (pair === undefined) return undefined;
      const keys = await db.select().from(apiKeys).where(eq(apiKeys.keypairId, id));
      return { pair, keys };
    },

    /** Revokes the pair (both keys at once); a second call leaves the first revocation time. */
    async revokePair(merchantId: string, id: string, at: Date): Promise<void> {
      await db
        .update(keypairs)
        .set({ revokedAt: at })
        .where(and(eq(keypairs.id, id), eq(keypairs.merchantId, merchantId), isNull(keypairs.revokedAt)));
    },

    /** The active key with this hash and its pair, in one query; undefined when unknown or revoked. */
    async findActiveKeyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
      findActiveKey ??= prepareFindActiveKey(db);
      const [row] = await findActiveKey.execute({ keyHash });
      return row?.key;
    },
  };
}

export type KeysRepo = ReturnType<typeof createKeysRepo>;
