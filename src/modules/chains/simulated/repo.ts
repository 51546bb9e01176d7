import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../../db/client.ts';

/** TEST MODE ONLY: all SQL of the simulated chains (tables sim_blocks and sim_transfers). */

export interface SimBlockRow {
  number: number;
  hash: string;
  parentHash: string;
  timestamp: Date;
}

export interface SimTransferRow {
  txHash: string;
  outputIndex: number;
  kind: 'deposit' | 'forward' | 'refund';
  toAddress: string;
  asset: string;
  amount: string;
  blockNumber: number | null;
}

interface RawBlock {
  number: string | number;
  hash: string;
  parent_hash: string;
  timestamp: string | Date;
}

const toBlock = (row: RawBlock): SimBlockRow => ({
  number: Number(row.number),
  hash: row.hash,
  parentHash: row.parent_hash,
  timestamp: new Date(row.timestamp),
});

export const simulatedChainRepo = {
  async head(db: Db, chain: string): Promise<SimBlockRow | null> {
    const [row] = await queryRows<RawBlock>(
      db,
      sql`select number, hash, parent_hash, timestamp from sim_blocks where chain = ${chain}
          order by number desc limit 1`,
    );
    return row === undefined ? null : toBlock(row);
  },

  async block(db: Db, chain: string, number: number): Promise<SimBlockRow | null> {
    const [row] = await queryRows<RawBlock>(
      db,
      sql`select number, hash, parent_hash, timestamp from sim_blocks where chain = ${chain} and number = ${number}`,
    );
    return row === undefined ? null : toBlock(row);
  },

  /**
   * Appends the next block on top of the current head and puts every waiting transfer in it. Returns null when a
   * concurrent producer took that height first.
   */
  async appendBlock(
    tx: Db,
    input: { chain: string; hash: string; genesisParent: string; timestamp: Date },
  ): Promise<SimBlockRow | null> {
    const [row] = await queryRows<RawBlock>(
      tx,
      sql`insert into sim_blocks (chain, number, hash, parent_hash, timestamp)
          select ${input.chain}, coalesce(max(number) + 1, 0), ${input.hash},
                 coalesce((select hash from sim_blocks where chain = ${input.chain} order by number desc limit 1),
                          ${input.genesisParent}),
                 ${input.timestamp.toISOString()}::timestamptz
          from sim_blocks where chain = ${input.chain}
          on conflict do nothing
          returning number, hash, parent_hash, timestamp`,
    );
    if (row === undefined) return null;
    const block = toBlock(row);
    // The genesis block stays empty: a watcher starts its cursor at the head it first sees, so whatever was sent
    // before the chain's first block must land in block 1, which that watcher scans.
    if (block.number > 0) {
      await tx.execute(
        sql`update sim_transfers set block_number = ${block.number}
            where chain = ${input.chain} and block_number is null`,
      );
    }
    return block;
  },

  /** Whether transfers wait in the mempool. */
  async hasPending(db: Db, chain: string): Promise<boolean> {
    const rows = await queryRows<{ one: number }>(
      db,
      sql`select 1 as one from sim_transfers where chain = ${chain} and block_number is null limit 1`,
    );
    return rows.length > 0;
  },

  async insertTransfer(
    db: Db,
    input: {
      chain: string;
      txHash: string;
      outputIndex: number;
      kind: 'deposit' | 'forward' | 'refund';
      /** The sender of a refund (null for deposits and forwards). */
      fromAddress: string | null;
      toAddress: string;
      asset: string;
      amount: bigint;
      createdAt: Date;
    },
  ): Promise<boolean> {
    const rows = await queryRows<{ tx_hash: string }>(
      db,
      sql`insert into sim_transfers (chain, tx_hash, output_index, kind, from_address, to_address, asset, amount,
                                     block_number, created_at)
          values (${input.chain}, ${input.txHash}, ${input.outputIndex}, ${input.kind}, ${input.fromAddress},
                  ${input.toAddress},
                  ${input.asset}, ${input.amount.toString()}, null, ${input.createdAt.toISOString()}::timestamptz)
          on conflict do nothing returning tx_hash`,
    );
    return rows.length === 1;
  },

  /** The transfers of block `number`, provided that block still has `hash` (else none: it was reorganised away). */
  async transfersInBlock(db: Db, chain: string, number: number, hash: string): Promise<SimTransferRow[]> {
    const rows = await queryRows<{
      tx_hash: string;
      output_index: number;
      kind: 'deposit' | 'forward' | 'refund';
      to_address: string;
      asset: string;
      amount: string;
      block_number: string | number | null;
    }>(
      db,
      sql`select t.tx_hash, t.output_index, t.kind, t.to_address, t.asset, t.amount, t.block_number
          from sim_transfers t
          join sim_blocks b on b.chain = t.chain and b.number = t.block_number
          where t.chain = ${chain} and t.block_number = ${number} and b.hash = ${hash}
          order by t.created_at, t.tx_hash, t.output_index`,
    );
    return rows.map((row) => ({
      txHash: row.tx_hash,
      outputIndex: Number(row.output_index),
      kind: row.kind,
      toAddress: row.to_address,
      asset: row.asset,
      amount: String(row.amount),
      blockNumber: row.block_number === null ? null : Number(row.block_number),
    }));
  },

  async findTransfer(
    db: Db,
    chain: string,
    txHash: string,
  ): Promise<{ blockNumber: number | null; blockHash: string | null } | null> {
    const [row] = await queryRows<{ block_number: string | number | null; hash: string | null }>(
      db,
      sql`select t.block_number, b.hash from sim_transfers t
          left join sim_blocks b on b.chain = t.chain and b.number = t.block_number
          where t.chain = ${chain} and t.tx_hash = ${txHash} limit 1`,
    );
    if (row === undefined) return null;
    return { blockNumber: row.block_number === null ? null : Number(row.block_number), blockHash: row.hash };
  },

  /**
   * Removes the blocks from `fromNumber` up. Deposits in them are dropped (a double spend) unless `keepDeposits`;
   * every other transfer in them goes back to the mempool, as on a real chain.
   */
  async dropBlocksFrom(tx: Db, chain: string, fromNumber: number, keepDeposits: boolean): Promise<void> {
    if (!keepDeposits) {
      await tx.execute(
        sql`delete from sim_transfers where chain = ${chain} and block_number >= ${fromNumber} and kind = 'deposit'`,
      );
    }
    await tx.execute(
      sql`update sim_transfers set block_number = null where chain = ${chain} and block_number >= ${fromNumber}`,
    );
    await tx.execute(sql`delete from sim_blocks where chain = ${chain} and number >= ${fromNumber}`);
  },

  /** Forgets old blocks that carry no transfer (the simulation needs no deep history). */
  async pruneBlocksBelow(db: Db, chain: string, belowNumber: number): Promise<void> {
    await db.execute(
      sql`delete from sim_blocks b where b.chain = ${chain} and b.number < ${belowNumber}
          and not exists (select 1 from sim_transfers t where t.chain = b.chain and t.block_number = b.number)`,
    );
  },
};
