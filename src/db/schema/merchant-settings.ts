import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * A merchant's payment rules. Tolerances widen "exact": a payment counts as paid when it received at least
 * expected − max(percent of expected, amount) and at most expected + max(percent, amount). Percents are decimal strings
 * ("0.5" = 0.5 %); amounts are decimal strings in the payment's own currency, converted at its locked rate.
 */
export const merchantSettings = pgTable('merchant_settings', {
  merchantId: text('merchant_id')
    .primaryKey()
    .references(() => merchants.id),
  underpaymentTolerancePercent: text('underpayment_tolerance_percent').notNull().default('0'),
  underpaymentToleranceAmount: text('underpayment_tolerance_amount').notNull().default('0'),
  overpaymentTolerancePercent: text('overpayment_tolerance_percent').notNull().default('0'),
  overpaymentToleranceAmount: text('overpayment_tolerance_amount').notNull().default('0'),
  /** Window of new payments that do not give `expires_in`, in seconds. */
  defaultWindowSeconds: integer('default_window_seconds').notNull(),
  /** Overpaid excess is refunded on its own: a refund is created, and sent as soon as the payer gives an address. */
  autoRefundOverpaid: boolean('auto_refund_overpaid').notNull().default(false),
  /** What the checkout shows of the merchant: a name, an accent colour (#rrggbb) and a support contact (all optional). */
  brandName: text('brand_name'),
  accentColor: text('accent_color'),
  supportEmail: text('support_email'),
  supportUrl: text('support_url'),
  /** The chain/asset pairs (`ethereum:USDC`) offered to payers who pick the coin; null: every pair available. */
  checkoutOptions: jsonb('checkout_options').$type<string[]>(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
