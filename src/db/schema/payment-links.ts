import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * A reusable payment link (`plink_…`, public at `/l/{id}`): each visit that goes on to pay creates a payment with the
 * link's terms. `amount` null: the payer enters it. `chain` null: the payer picks the coin on the checkout.
 */
export const paymentLinks = pgTable(
  'payment_links',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    isTest: boolean('is_test').notNull(),
    title: text('title').notNull(),
    description: text('description'),
    amount: text('amount'),
    currency: text('currency').notNull(),
    chain: text('chain'),
    asset: text('asset'),
    successUrl: text('success_url'),
    cancelUrl: text('cancel_url'),
    locale: text('locale'),
    active: boolean('active').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [index('payment_links_merchant_idx').on(table.merchantId, table.isTest, table.createdAt)],
);
