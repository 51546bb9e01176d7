import { z } from 'zod';
import { checkoutLocales, createPaymentSchema } from '../payments/schemas.ts';

const linkFields = {
  title: z.string().min(1).max(120).describe('What the payer sees as the heading of the link’s page.'),
  description: z.string().max(1000).describe('A line or two under the title.'),
};

export const createPaymentLinkSchema = z.strictObject({
  title: linkFields.title,
  description: linkFields.description.optional(),
  amount: z
    .string()
    .max(64)
    .optional()
    .describe('A fixed amount in `currency` (decimal string); left out, the payer enters the amount.'),
  currency: z.string().min(1).max(12).describe('A fiat code (USD, EUR, …) or an asset code.'),
  chain: z
    .string()
    .min(1)
    .max(32)
    .optional()
    .describe('Left out, the payer picks the coin and network on the checkout.'),
  asset: z.string().min(1).max(12).optional(),
  success_url: z.string().max(2048).optional(),
  cancel_url: z.string().max(2048).optional(),
  locale: z.enum(checkoutLocales).optional(),
  is_test: z
    .boolean()
    .optional()
    .describe('The mode: required with a dashboard token, the key’s own otherwise.'),
});
export type CreatePaymentLinkInput = z.infer<typeof createPaymentLinkSchema>;

export const updatePaymentLinkSchema = z.strictObject({
  title: linkFields.title.optional(),
  description: linkFields.description.nullable().optional(),
  active: z.boolean().optional().describe('An inactive link’s page says so and creates no payment.'),
});
export type UpdatePaymentLinkInput = z.infer<typeof updatePaymentLinkSchema>;

export const paymentLinkSchema = z
  .object({
    id: z.string().describe('Payment link id, prefixed `plink_`.'),
    url: z.string().describe('The public page to share (`/l/{id}`).'),
    is_test: z.boolean(),
    title: z.string(),
    description: z.string().nullable(),
    amount: z.string().nullable().describe('null: the payer enters the amount.'),
    currency: z.string(),
    chain: z.string().nullable().describe('null: the payer picks the coin.'),
    asset: z.string().nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    locale: z.string().nullable(),
    active: z.boolean(),
    totals: z
      .object({
        payments: z.number().int().describe('Payments its visits created.'),
        paid: z.number().int().describe('Of those, completed or overpaid.'),
        paid_amount: z.string().describe('What the paid ones add up to, in `currency`.'),
      })
      .describe('GET /v1/payments?payment_link_id= lists the payments.'),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'PaymentLink' });
export type PaymentLinkView = z.infer<typeof paymentLinkSchema>;

export const paymentLinkListSchema = z
  .object({ data: z.array(paymentLinkSchema) })
  .meta({ id: 'PaymentLinkList' });

export const paymentLinkParamsSchema = z.object({
  id: z.string().regex(/^plink_[0-9a-z]{1,64}$/, 'must be a plink_ id'),
});

export const linkModeQuerySchema = z.strictObject({
  is_test: z
    .enum(['true', 'false'])
    .transform((value) => value === 'true')
    .optional()
    .describe('With a dashboard token: only this mode.'),
});

export const payLinkSchema = z.strictObject({
  amount: z.string().max(64).optional().describe('The amount, when the link lets the payer enter it.'),
  customer_email: createPaymentSchema.shape.customer_email.describe(
    "The payer's email, if they give it: their receipt and any refund link are mailed there (as a payment's " +
      '`customer_email`).',
  ),
});

export const linkPaymentSchema = z
  .object({ payment_id: z.string(), checkout_url: z.string() })
  .meta({ id: 'PaymentLinkPayment' });
