import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { payments } from './payments.ts';

/**
 * Every transfer seen arriving at a payment's deposit address, whatever its asset and whenever it came. The unique key
 * (chain, mode, transaction, output or log index) is what makes a rescan after a restart or a reorg idempotent: a
 * transfer is counted once, ever. `state`: `seen` (in a block, not yet final) → `final`, or `seen` → `reverted` when
 * its block is reorganised away (a reverted deposit that reappears in the new chain is `seen` again). UTXO chains also
 * record `mempool` deposits (in the node's mempool, no block yet: block_number -1, block_hash '', block_time when first
 * seen), which become `seen` in their block, or `reverted` when replaced or conflicted.
 */
export const deposits = pgTable(
  'deposits',
  {
    id: text('id').primaryKey(),
    paymentId: uuid('payment_id')
      .notNull()
      .references(() => payments.id),
    chain: text('chain').notNull(),
    isTest: boolean('is_test').notNull(),
    txHash: text('tx_hash').notNull(),
    /** The transaction output (UTXO chains) or log/instruction index (account chains) that paid the address. */
    outputIndex: integer('output_index').notNull(),
    address: text('address').notNull(),
    asset: text('asset').notNull(),
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }).notNull(),
    blockHash: text('block_hash').notNull(),
    blockTime: timestamp('block_time', { withTimezone: true, mode: 'date' }).notNull(),
    state: text('state').notNull(),
    /** Came from the built-in simulated chain (test mode): no real funds, no explorer. */
    simulated: boolean('simulated').notNull().default(false),
    /**
     * The forwarding transaction that swept it to the payout wallet, once one was recorded; on UTXO chains also the id
     * of a refund (`rf_…`) whose transaction spent its output and sent what it did not take to the payout wallet.
     */
    forwardId: text('forward_id'),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * When it was first seen in the node's mempool (UTXO chains), kept when it reaches a block: a payment paid in time
     * is honoured even when its block comes after the window.
     */
    mempoolSeenAt: timestamp('mempool_seen_at', { withTimezone: true, mode: 'date' }),
    finalAt: timestamp('final_at', { withTimezone: true, mode: 'date' }),
    revertedAt: timestamp('reverted_at', { withTimezone: true, mode: 'date' }),
    /**
     * When the forwarder last left it in place, unswept: worth less than the network fee to spend it (UTXO dust).
     * Cleared when a forward takes it; it is priced again now and then, so a later lower fee still sweeps it.
     */
    leftAsDustAt: timestamp('left_as_dust_at', { withTimezone: true, mode: 'date' }),
    /**
     * The refund sending from this deposit's address right now: the forwarder leaves the deposit alone until the
     * refund is final or failed (a sweep and a refund from one address would race for its balance and nonce).
     */
    refundHoldId: text('refund_hold_id'),
    /** Base units of this deposit that refunds sent back to the payer: the forwarder sweeps only the rest. */
    refunded: numeric('refunded', { precision: 78, scale: 0 }).notNull().default('0'),
  },
  (table) => [
    uniqueIndex('deposits_transfer_key').on(table.chain, table.isTest, table.txHash, table.outputIndex),
    index('deposits_payment_idx').on(table.paymentId),
    index('deposits_unfinal_idx').on(table.chain, table.isTest, table.blockNumber).where(sql`state = 'seen'`),
    index('deposits_mempool_idx').on(table.chain, table.isTest).where(sql`state = 'mempool'`),
    index('deposits_unforwarded_idx')
      .on(table.chain, table.isTest)
      .where(sql`state = 'final' and forward_id is null`),
  ],
);
