import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { forwards } from '../../../db/schema/index.ts';
import type { OutgoingTransactions } from '../adapter.ts';
import type { ChainId } from '../registry.ts';
import type { TronBundleStore } from './sweep.ts';

/**
 * The tron adapter's reads of the settlement's forwards table: a forward's signed bundle is stored there (raw_tx)
 * before anything is broadcast, so the adapter finds every step of a bundle from it alone, after any restart. A refund's
 * bundle is stored in the refunds table the same way, and found through `outgoing`.
 */
export function tronBundleStore(
  db: Db,
  chain: ChainId,
  isTest: boolean,
  /** Signed bundles recorded outside the forwards table (refunds): found by their hash too. */
  outgoing?: OutgoingTransactions,
): TronBundleStore {
  const scope = and(eq(forwards.chain, chain), eq(forwards.isTest, isTest));
  return {
    async byHash(txHash) {
      const rows = await db
        .select({ rawTx: forwards.rawTx })
        .from(forwards)
        .where(and(scope, eq(forwards.txHash, txHash)))
        .limit(1);
      return rows[0]?.rawTx ?? (await outgoing?.byHash(chain, isTest, txHash)) ?? null;
    },
    async byForward(forwardId) {
      const rows = await db
        .select({ rawTx: forwards.rawTx })
        .from(forwards)
        .where(and(scope, eq(forwards.id, forwardId)))
        .limit(1);
      return rows[0]?.rawTx ?? null;
    },
  };
}
