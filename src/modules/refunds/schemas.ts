import { z } from 'zod';
import { uuidPattern } from '../../lib/ids.ts';

const refundStatuses = [
  'awaiting_address',
  'queued',
  'pending',
  'broadcast',
  'awaiting_payment',
  'sent',
  'failed',
] as const;
export type RefundStatus = (typeof refundStatuses)[number];

const refundSources = ['deposit', 'refund_wallet', 'merchant'] as const;

export const createRefundSchema = z.strictObject({
  amount: z
    .string()
    .max(64)
    .optional()
    .describe(
      'Decimal amount to give back, in `currency`; left out: everything still refundable (received less earlier ' +
        'refunds not failed).',
    ),
  currency: z
    .string()
    .min(1)
    .max(12)
    .optional()
    .describe(
      "The payment's asset (default) or the payment's own currency (USD, …): converted to the asset at the " +
        "payment's locked rate, rounded down to the asset's base unit.",
    ),
  address: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe(
      "The payer's address, when the merchant knows it; else the payer gives it on the refund link (`refund_url`).",
    ),
  email: z
    .email()
    .max(254)
    .optional()
    .describe("The payer's email: the refund link is mailed there when SMTP is configured."),
  reason: z.string().max(500).optional(),
});
export type CreateRefundInput = z.infer<typeof createRefundSchema>;

export const refundSchema = z
  .object({
    id: z.string().describe('Refund id, prefixed `rf_`.'),
    payment_id: z.string(),
    status: z
      .enum(refundStatuses)
      .describe(
        '`awaiting_address` (the payer has not given an address yet) → `queued` → `pending` (signed, stored, not yet ' +
          'sent) → `broadcast` → `sent`; `awaiting_payment` (the funds were swept: the merchant pays it, see ' +
          '`payment_request`) → `sent`; or `failed` (its amount is refundable again).',
      ),
    chain: z.string(),
    asset: z.string(),
    amount_native: z
      .string()
      .describe("Decimal amount of `asset` taken out of the payment's received amount."),
    currency: z.string().nullable().describe("The payment's currency when the refund was asked for in it."),
    currency_amount: z.string().nullable().describe('The amount asked for in `currency`.'),
    source: z
      .enum(refundSources)
      .nullable()
      .describe(
        "`deposit`: sent from the payment's deposit address (the funds were still there); `refund_wallet`: from " +
          "the chain's refund wallet; `merchant`: the merchant pays it from their own wallet. null until chosen.",
      ),
    to_address: z.string().nullable(),
    from_address: z.string().nullable(),
    sent_amount_native: z
      .string()
      .nullable()
      .describe('What reaches the payer: the amount less the network fee when that is paid in `asset`.'),
    fee_native: z.string().nullable().describe("The network fee, in the chain's native coin."),
    fee_estimate_native: z
      .string()
      .nullable()
      .describe('Before it is signed: the fee a refund of this asset would pay now (native coin).'),
    tx_hash: z.string().nullable(),
    explorer_url: z.string().nullable(),
    refund_url: z.string().describe('The link where the payer gives their address (and sees the refund).'),
    payment_request: z
      .object({ uri: z.string(), amount_native: z.string(), to_address: z.string() })
      .nullable()
      .describe('`awaiting_payment`: what the merchant pays from their own wallet (a wallet opens the URI).'),
    reason: z.string().nullable(),
    automatic: z.boolean().describe("Created by the merchant's auto-refund of overpaid excess."),
    last_error: z.string().nullable(),
    is_test: z.boolean(),
    created_at: z.iso.datetime(),
    sent_at: z.iso.datetime().nullable(),
    failed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Refund' });
export type RefundView = z.infer<typeof refundSchema>;

export const refundListSchema = z
  .object({ data: z.array(refundSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .meta({ id: 'RefundList' });

export const paymentRefundsParamsSchema = z.object({
  id: z.string().regex(uuidPattern, 'must be a payment_id (UUID)'),
});

export const refundParamsSchema = z.object({
  id: z.string().regex(/^rf_[0-9a-z]{20}$/, 'must be a refund id (rf_…)'),
});

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listRefundsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  starting_after: z.string().max(40).optional().describe('Cursor: next_cursor of the previous page.'),
  status: z.enum(refundStatuses).optional(),
  is_test: booleanQuery.optional().describe('With a dashboard token: only this mode.'),
});

/** The refund link's token, as the payer's page sends it back. */
export const refundLinkParamsSchema = z.object({
  token: z.string().regex(/^rf_[0-9a-z]{20}\.[A-Za-z0-9_-]{22}$/, 'must be a refund link token'),
});

export const refundLinkViewSchema = z
  .object({
    id: z.string(),
    status: z.enum(refundStatuses),
    chain: z.string(),
    chain_name: z.string(),
    network: z.string(),
    asset: z.string(),
    amount_native: z.string(),
    fee_estimate_native: z.string().nullable(),
    native_asset: z.string(),
    fee_paid_from_refund: z
      .boolean()
      .describe('True when the network fee comes out of the refund itself (a refund of the native coin).'),
    to_address: z.string().nullable(),
    sent_amount_native: z.string().nullable(),
    tx_hash: z.string().nullable(),
    explorer_url: z.string().nullable(),
    is_test: z.boolean(),
  })
  .meta({ id: 'RefundLinkView' });
export type RefundLinkView = z.infer<typeof refundLinkViewSchema>;

export const submitRefundAddressSchema = z.strictObject({
  address: z.string().min(1).max(128),
  email: z.email().max(254).optional(),
});
