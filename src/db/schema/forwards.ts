import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * A forwarding (sweep) transaction of final deposits to the merchant's payout wallet; it may batch several payments.
 * The signed transaction and its hash are recorded in state `intent` BEFORE anything is broadcast, so a crash between
 * the two re-broadcasts the same transaction (same hash) and can never send twice.
 * `state`: intent → broadcast → final, or failed.
 */
export const forwards = pgTable(
  'forwards',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    chain: text('chain').notNull(),
    isTest: boolean('is_test').notNull(),
    asset: text('asset').notNull(),
    state: text('state').notNull(),
    paymentIds: jsonb('payment_ids').$type<string[]>().notNull(),
    /** Base units of `asset` that reach the payout wallet. */
    amount: numeric('amount', { precision: 78, scale: 0 }).notNull(),
    /** Base units of the chain's native coin paid as the network fee (burnt on Tron): what the chain charged once final. */
    fee: numeric('fee', { precision: 78, scale: 0 }).notNull(),
    /** Energy units the sweep's transactions used (Tron), from their receipts once final; null elsewhere or before. */
    energyUsed: numeric('energy_used', { precision: 78, scale: 0 }),
    /** Of `energyUsed`, the units paid by staked TRX lent to the deposit address rather than by burning TRX. */
    energyDelegated: numeric('energy_delegated', { precision: 78, scale: 0 }),
    /** The payout wallet; null for a test-mode forward to the simulator's sink when no test wallet is set. */
    toAddress: text('to_address'),
    rawTx: text('raw_tx').notNull(),
    txHash: text('tx_hash').notNull(),
    blockNumber: bigint('block_number', { mode: 'number' }),
    broadcastCount: integer('broadcast_count').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    broadcastAt: timestamp('broadcast_at', { withTimezone: true, mode: 'date' }),
    finalAt: timestamp('final_at', { withTimezone: true, mode: 'date' }),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    index('forwards_open_idx')
      .on(table.chain, table.isTest, table.createdAt)
      .where(sql`state in ('intent', 'broadcast')`),
    // What sweeps cost in a month (operators' view) reads final forwards by when they became final.
    index('forwards_final_idx').on(table.finalAt).where(sql`state = 'final'`),
  ],
);
