import { z } from 'zod';

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const modeQuerySchema = z.strictObject({
  is_test: booleanQuery
    .optional()
    .describe(
      'Required with a dashboard token: the mode whose wallets to read or set. A key acts in its own mode.',
    ),
});

export const payoutWalletsSchema = z
  .record(z.string(), z.string())
  .describe('Payout address per chain id, e.g. {"ethereum": "0x…", "bitcoin": "bc1q…"}.')
  .meta({ id: 'PayoutWallets' });

export const putPayoutWalletsSchema = z
  .record(z.string().max(32), z.string().max(128))
  .describe(
    'The whole set for the mode: every chain listed gets that address (checked against the chain’s format for the ' +
      'mode); a chain left out has no payout wallet afterwards.',
  );

const percent = z
  .string()
  .max(12)
  .describe('Percent of the expected amount, as a decimal string: "0.5" is 0.5 %. 0 to 50.');
const amount = z
  .string()
  .max(40)
  .describe(
    "An amount in each payment's own currency, as a decimal string (converted at the payment's locked rate).",
  );

const brandingFields = {
  brand_name: z.string().max(80).describe('The name the checkout shows (default: none).'),
  accent_color: z.string().max(7).describe('The checkout’s accent colour, `#rrggbb`.'),
  support_email: z.string().max(254).describe('Where payers write with questions.'),
  support_url: z.string().max(2048).describe('A help page for payers (http or https).'),
};

export const merchantSettingsSchema = z
  .object({
    brand_name: brandingFields.brand_name.nullable(),
    accent_color: brandingFields.accent_color.nullable(),
    support_email: brandingFields.support_email.nullable(),
    support_url: brandingFields.support_url.nullable(),
    checkout_options: z
      .array(z.string())
      .nullable()
      .describe(
        'The `chain:ASSET` pairs offered to payers who pick the coin (payments created without `chain`); null: every ' +
          'pair this instance can take in the payment’s mode.',
      ),
    logo_url: z
      .string()
      .nullable()
      .describe('The checkout’s logo on this origin (PUT /v1/settings/logo), or null.'),
    underpayment_tolerance_percent: percent,
    underpayment_tolerance_amount: amount,
    overpayment_tolerance_percent: percent,
    overpayment_tolerance_amount: amount,
    default_expires_in: z
      .number()
      .int()
      .describe('Window, in seconds, of payments created without `expires_in`.'),
    auto_refund_overpaid: z
      .boolean()
      .describe(
        'Overpaid excess is refunded on its own: a refund of received − expected is created when a payment is ' +
          'overpaid, and sent as soon as the payer gives an address on its refund link.',
      ),
    updated_at: z.iso.datetime().nullable(),
  })
  .describe(
    'A payment counts as paid when it received at least expected − max(percent, amount) and at most expected + ' +
      'max(percent, amount) of the matching tolerance. Both default to 0 (exact).',
  )
  .meta({ id: 'MerchantSettings' });
export type MerchantSettingsView = z.infer<typeof merchantSettingsSchema>;

export const patchMerchantSettingsSchema = z.strictObject({
  checkout_options: z
    .array(z.string().max(48))
    .max(100)
    .nullable()
    .optional()
    .describe(
      '`chain:ASSET` pairs from GET /v1/chains, e.g. `["base:USDC", "bitcoin:BTC"]`; null offers every pair.',
    ),
  brand_name: brandingFields.brand_name.optional().describe('"" clears it.'),
  accent_color: brandingFields.accent_color.optional().describe('`#rrggbb`; "" clears it.'),
  support_email: brandingFields.support_email.optional().describe('"" clears it.'),
  support_url: brandingFields.support_url.optional().describe('"" clears it.'),
  underpayment_tolerance_percent: percent.optional(),
  underpayment_tolerance_amount: amount.optional(),
  overpayment_tolerance_percent: percent.optional(),
  overpayment_tolerance_amount: amount.optional(),
  default_expires_in: z
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .optional()
    .describe('60 to 604800 seconds.'),
  auto_refund_overpaid: z.boolean().optional(),
});
export type PatchMerchantSettings = z.infer<typeof patchMerchantSettingsSchema>;

const payoutWalletChangeSchema = z
  .object({
    id: z.string().describe('Change id, prefixed `pwc_`.'),
    is_test: z.boolean(),
    chain: z.string(),
    old_address: z.string().nullable().describe('null: the chain had no payout wallet.'),
    new_address: z.string().nullable().describe('null: the change removed the payout wallet.'),
    actor: z.string().describe('The account whose dashboard session made the change.'),
    ip: z.string().nullable().describe('The client address of the request.'),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'PayoutWalletChange' });
export type PayoutWalletChangeView = z.infer<typeof payoutWalletChangeSchema>;

export const payoutWalletChangeListSchema = z
  .object({ data: z.array(payoutWalletChangeSchema) })
  .meta({ id: 'PayoutWalletChangeList' });

export const changesQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const readinessSchema = z
  .object({
    is_test: z.boolean(),
    seed_configured: z
      .boolean()
      .describe(
        'The mode’s mnemonic is set on the server (live: SVC_MNEMONIC); without it nothing can be paid.',
      ),
    chains: z.array(
      z.object({
        chain: z.string(),
        name: z.string(),
        node: z
          .enum(['ok', 'unhealthy', 'not_configured'])
          .describe('A node is connected and keeping up (test mode: the simulator or a test network).'),
        node_problem: z.string().nullable().describe('What is wrong with the node, when `unhealthy`.'),
        payout_wallet: z.boolean().describe('A payout wallet is set for the chain in this mode.'),
        fee_wallet: z
          .enum(['funded', 'low', 'none'])
          .describe("The instance's sweep-fee wallet for the chain: `none` where the chain needs none here."),
        ready: z.boolean().describe('Payments on this chain can be taken and swept now.'),
        missing: z
          .array(z.enum(['seed', 'node', 'node_healthy', 'payout_wallet', 'fee_wallet']))
          .describe('What to do before it is ready.'),
      }),
    ),
  })
  .meta({ id: 'Readiness' });
export type ReadinessView = z.infer<typeof readinessSchema>;
