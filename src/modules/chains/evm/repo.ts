import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { forwards } from '../../../db/schema/index.ts';

/**
 * The EVM adapter's reads of the settlement's forwards table: a forward's signed bundle is stored there (raw_tx) before
 * anything is broadcast, so the adapter finds every transaction of a bundle, and the nonces already taken by open
 * forwards, from it alone, after any restart.
 */
export const evmRepo = {
  /** The stored raw bundle of the forward whose main transaction hash is `txHash`. */
  async bundleByHash(db: Db, chain: string, isTest: boolean, txHash: string): Promise<string | null> {
    const rows = await db
      .select({ rawTx: forwards.rawTx })
      .from(forwards)
      .where(and(eq(forwards.chain, chain), eq(forwards.isTest, isTest), eq(forwards.txHash, txHash)))
      .limit(1);
    return rows[0]?.rawTx ?? null;
  },

  /** Raw bundles of the forwards not yet final (their nonces are taken even if the node has not seen them). */
  async openBundles(db: Db, chain: string, isTest: boolean): Promise<string[]> {
    const rows = await db
      .select({ rawTx: forwards.rawTx })
      .from(forwards)
      .where(
        and(
          eq(forwards.chain, chain),
          eq(forwards.isTest, isTest),
          inArray(forwards.state, ['intent', 'broadcast']),
        ),
      );
    return rows.map((row) => row.rawTx);
  },
};
