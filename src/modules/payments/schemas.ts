import { z } from 'zod';
import { uuidPattern } from '../../lib/ids.ts';
import { eventSchema } from '../webhooks/delivery/schemas.ts';

import { paymentStatuses } from './statuses.ts';

/** The checkout's languages (its catalogs live with the page, in web/checkout/i18n). */
export const checkoutLocales = ['en', 'es', 'de', 'fr', 'pt', 'zh', 'ar'] as const;

/** Decimal amounts travel as strings; a JSON number is accepted when it round-trips exactly (see service). */
const amountInput = z
  .union([z.string().max(64), z.number()])
  .describe(
    'Amount in `currency`, as a decimal string ("19.99"); a JSON number is accepted up to 15 significant digits.',
  );

const metadataSchema = z
  .record(z.string(), z.string())
  .describe('Up to 50 keys (at most 40 characters each) with string values of at most 500 characters.');

export const createPaymentSchema = z.strictObject({
  amount: amountInput,
  currency: z.string().min(1).max(12).describe('A fiat code (USD, EUR, …) or an asset code (BTC, USDC, …).'),
  chain: z
    .string()
    .min(1)
    .max(32)
    .optional()
    .describe(
      'Chain id from GET /v1/chains, e.g. `ethereum`, `bitcoin`, `solana`. Left out, the payer picks the chain and ' +
        'asset on the checkout among those this merchant can take in the mode (live: connected chains with a payout ' +
        'wallet), and the address and rate are set then.',
    ),
  asset: z
    .string()
    .min(1)
    .max(12)
    .optional()
    .describe(
      "The asset the payer sends; defaults to the chain's native coin. Without `chain`: offer only this asset " +
        '(on every chain that carries it).',
    ),
  is_test: z
    .boolean()
    .optional()
    .describe(
      'The mode: required with a dashboard token; with an API key it may be left out and must match the key.',
    ),
  order_id: z.string().min(1).max(200).optional(),
  customer_email: z
    .email()
    .max(254)
    .optional()
    .describe(
      "The payer's email, when the merchant knows it: with SMTP configured (SVC_SMTP_URL) the payer is mailed a " +
        'receipt once the payment is paid, and the link of any refund that waits for their address. Never shown on ' +
        'the checkout nor sent in webhooks.',
    ),
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500))
    .refine((value) => Object.keys(value).length <= 50, 'at most 50 keys')
    .optional()
    .describe('Up to 50 keys (at most 40 characters each) with string values of at most 500 characters.'),
  expires_in: z
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .optional()
    .describe(
      'Seconds until the payment window closes: 60 to 604800; default 1800 (or the merchant setting).',
    ),
  redirect_url: z
    .string()
    .max(2048)
    .optional()
    .describe('Where the checkout sends the payer after completion (the same as `success_url`).'),
  success_url: z
    .string()
    .max(2048)
    .optional()
    .describe('Where the checkout’s return button sends the payer after completion (http or https).'),
  cancel_url: z
    .string()
    .max(2048)
    .optional()
    .describe('Where the checkout sends a payer who gives up, or whose window ended (http or https).'),
  locale: z
    .enum(checkoutLocales)
    .optional()
    .describe(
      "The checkout's language: `en`, `es`, `de`, `fr`, `pt`, `zh` or `ar` (right to left). Left out, the payer's " +
        'browser decides (Accept-Language); `?locale=` on the checkout link overrides both.',
    ),
});
export type CreatePaymentInput = z.infer<typeof createPaymentSchema>;

const confirmationsSchema = z
  .object({ seen: z.number().int(), required: z.number().int() })
  .describe(
    'Confirmations of the least-confirmed unfinal deposit (all required once every deposit is final; 0 before any).',
  );

const notPickedYet = ' Null until the payer picks the chain (`chosen_by` "payer", `selected_at` null).';

const choiceFields = {
  chosen_by: z
    .enum(['merchant', 'payer'])
    .describe(
      'Who chooses the chain and asset: the merchant at creation (`chain` given), or the payer on the checkout.',
    ),
  selected_at: z.iso
    .datetime()
    .nullable()
    .describe(
      'When the payer picked the chain and asset; null before, and for a payment whose merchant named them.',
    ),
  quote_expires_at: z.iso
    .datetime()
    .nullable()
    .describe(
      "When the rate locked at the payer's pick lapses (15 minutes, at most the window): a payment still waiting " +
        'for funds then gets a new quote for the same address when the payer asks. Null when the merchant named the ' +
        'chain (the rate holds for the whole window) and before a pick.',
    ),
};

export const paymentSchema = z
  .object({
    payment_id: z.string().describe('UUID (v7: sorts by creation time).'),
    status: z.enum(paymentStatuses),
    amount: z.string().describe('Exact decimal amount in `currency`.'),
    currency: z.string(),
    chain: z.string().nullable().describe(`Chain id.${notPickedYet}`),
    asset: z.string().nullable().describe(`Asset code.${notPickedYet}`),
    address: z.string().nullable().describe(`The deposit address of this payment alone.${notPickedYet}`),
    expected_amount_native: z
      .string()
      .nullable()
      .describe(
        'Decimal amount of `asset` to send: converted from `currency` and rounded up to what wallets show (6 ' +
          `decimals, 8 for BTC and LTC), or exactly \`amount\` when \`currency\` is the asset.${notPickedYet}`,
      ),
    received_amount_native: z.string(),
    remaining_amount_native: z.string().nullable().describe(`What is still due.${notPickedYet}`),
    tx_hash: z.string().nullable().describe('Hash of the latest deposit, null before any.'),
    rate: z
      .object({ value: z.string(), source: z.string() })
      .nullable()
      .describe(`\`currency\` per one \`asset\`, locked at creation or at the payer's pick.${notPickedYet}`),
    ...choiceFields,
    confirmations: confirmationsSchema,
    is_test: z.boolean(),
    order_id: z.string().nullable(),
    customer_email: z.string().nullable().describe("The payer's email given at creation, if any."),
    metadata: metadataSchema,
    redirect_url: z.string().nullable(),
    success_url: z.string().nullable().describe('The return address after completion (as `redirect_url`).'),
    payment_link_id: z
      .string()
      .nullable()
      .describe('The payment link whose visit created it (`plink_…`), if any.'),
    cancel_url: z.string().nullable(),
    locale: z
      .enum(checkoutLocales)
      .nullable()
      .describe("The checkout's language (null: the payer's browser decides)."),
    checkout_url: z.string(),
    payment_uri: z
      .string()
      .nullable()
      .describe(`A wallet link (EIP-681, BIP-21, Solana Pay, Tron).${notPickedYet}`),
    forwarded_at: z.iso
      .datetime()
      .nullable()
      .describe('When the latest forwarding transaction to the payout wallet became final.'),
    forward_tx_hash: z.string().nullable().describe('Hash of that forwarding transaction.'),
    forward_fee_native: z
      .string()
      .nullable()
      .describe(
        "Network fees paid to forward this payment's funds, in the chain's native coin (its share when batched).",
      ),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'Payment' });
export type PaymentView = z.infer<typeof paymentSchema>;

const depositStates = ['mempool', 'seen', 'final', 'reverted'] as const;

const depositSchema = z
  .object({
    id: z.string().describe('Deposit id, prefixed `dep_`.'),
    tx_hash: z.string(),
    output_index: z
      .number()
      .int()
      .describe('Output (UTXO chains) or log index (account chains) in the transaction.'),
    asset: z.string(),
    amount_native: z.string(),
    block_number: z.number().int().nullable().describe('Null while the transaction waits in the mempool.'),
    block_hash: z.string().nullable().describe('Null while the transaction waits in the mempool.'),
    state: z
      .enum(depositStates)
      .describe(
        '`mempool` (UTXO chains: broadcast, not in a block yet), `seen` (in a block, not final yet), `final`, or ' +
          '`reverted` (its block was reorganised away, or its transaction was replaced or double-spent).',
      ),
    confirmations: z.number().int(),
    confirmations_required: z.number().int(),
    counted: z.boolean().describe("Whether it is in the payment's asset and so counts towards received."),
    simulated: z.boolean().describe('A test-mode deposit on the simulated chain.'),
    explorer_url: z.string().nullable().describe('Block explorer link (null on the simulated chain).'),
    seen_at: z.iso.datetime(),
    final_at: z.iso.datetime().nullable(),
    reverted_at: z.iso.datetime().nullable(),
    left_as_dust_at: z.iso
      .datetime()
      .nullable()
      .describe(
        'When the forwarder last left this final deposit in place because it is worth less than the network fee to ' +
          'spend it (UTXO chains): it stays at the deposit address, is priced again every ten minutes and swept ' +
          'once the fee allows; null otherwise.',
      ),
  })
  .meta({ id: 'Deposit' });
export type DepositView = z.infer<typeof depositSchema>;

export const paymentDetailSchema = paymentSchema
  .extend({
    deposits: z.array(depositSchema),
    events: z.array(eventSchema).describe('The payment’s events (at most 100), oldest first.'),
  })
  .meta({ id: 'PaymentDetail' });
export type PaymentDetailView = z.infer<typeof paymentDetailSchema>;

export const simulateOutcomes = ['paid', 'underpaid', 'overpaid', 'expired'] as const;

export const simulatePaymentSchema = z.strictObject({
  outcome: z
    .enum(simulateOutcomes)
    .describe(
      '`paid`: sends what is still due; `underpaid`: less; `overpaid`: more; `expired`: ends the window now. ' +
        'The deposit lands in the next simulated block and walks through confirmations at the chain’s pace.',
    ),
  amount_native: z
    .string()
    .max(80)
    .optional()
    .describe(
      'The exact amount to send, in the payment’s asset (decimal string), instead of the outcome’s default.',
    ),
});
export type SimulatePaymentInput = z.infer<typeof simulatePaymentSchema>;

export const simulateResultSchema = z
  .object({
    outcome: z.enum(simulateOutcomes),
    deposit: z
      .object({
        tx_hash: z.string(),
        output_index: z.number().int(),
        address: z.string(),
        asset: z.string(),
        amount_native: z.string(),
      })
      .nullable()
      .describe('The simulated transfer, now in the simulated mempool (null for `expired`).'),
    payment: paymentSchema,
  })
  .meta({ id: 'SimulatedPayment' });
export type SimulateResultView = z.infer<typeof simulateResultSchema>;

export const paymentListSchema = z
  .object({ data: z.array(paymentSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .meta({ id: 'PaymentList' });

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listPaymentsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  starting_after: z
    .string()
    .regex(uuidPattern, 'must be a payment_id')
    .optional()
    .describe('Cursor: next_cursor of the previous page.'),
  status: z.enum(paymentStatuses).optional(),
  order_id: z.string().max(200).optional(),
  created_gte: z.iso.datetime().optional(),
  created_lt: z.iso.datetime().optional(),
  is_test: booleanQuery.optional().describe('With a dashboard token: only this mode.'),
  payment_link_id: z.string().max(64).optional().describe('Only the payments of this payment link.'),
});

export const paymentParamsSchema = z.object({
  id: z.string().regex(uuidPattern, 'must be a payment_id (UUID)'),
});

export const checkoutParamsSchema = z.object({
  payment_id: z.string().regex(uuidPattern, 'must be a payment_id (UUID)'),
});

const checkoutOptionSchema = z
  .object({
    chain: z.string(),
    chain_name: z.string(),
    network: z.string(),
    asset: z.string(),
    asset_name: z.string(),
    amount_native: z
      .string()
      .describe('What the payment comes to in this asset at the current rate (locked only once picked).'),
  })
  .meta({ id: 'CheckoutOption' });

export const checkoutViewSchema = z
  .object({
    payment_id: z.string(),
    status: z.enum(paymentStatuses),
    amount: z.string(),
    currency: z.string(),
    chain: z.string().nullable(),
    chain_name: z.string().nullable(),
    network: z
      .string()
      .nullable()
      .describe('The network to send on, named plainly (e.g. "Ethereum Sepolia testnet").'),
    asset: z.string().nullable(),
    asset_decimals: z.number().int().nullable(),
    address: z.string().nullable(),
    expected_amount_native: z.string().nullable(),
    received_amount_native: z.string(),
    remaining_amount_native: z.string().nullable(),
    payment_uri: z.string().nullable(),
    ...choiceFields,
    options: z
      .array(checkoutOptionSchema)
      .describe(
        'What the payer may pick from (POST /v1/payments/checkout/{payment_id}/select), each priced now; empty once ' +
          'picked, when the merchant chose, and once the payment no longer awaits a pick.',
      ),
    expires_at: z.iso.datetime(),
    confirmations: confirmationsSchema,
    is_test: z.boolean(),
    redirect_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    merchant: z
      .object({
        name: z.string().nullable(),
        logo_url: z.string().nullable(),
        accent_color: z.string().nullable(),
        support_email: z.string().nullable(),
        support_url: z.string().nullable(),
      })
      .nullable()
      .describe('What the merchant chose to show payers (null: nothing).'),
    tx_hash: z.string().nullable().describe('The latest deposit’s transaction, null before any.'),
    locale: z
      .string()
      .nullable()
      .describe("The checkout's language set at creation (null: the payer's browser decides)."),
  })
  .meta({ id: 'CheckoutView' });
export type CheckoutView = z.infer<typeof checkoutViewSchema>;

export const checkoutSimulateSchema = z.strictObject({
  outcome: z
    .enum(simulateOutcomes)
    .describe(
      '`paid`: sends what is still due; `underpaid`: less; `overpaid`: more; `expired`: ends the window now.',
    ),
});
export type CheckoutSimulateInput = z.infer<typeof checkoutSimulateSchema>;

export const checkoutSimulateResultSchema = z
  .object({
    outcome: z.enum(simulateOutcomes),
    deposit: simulateResultSchema.shape.deposit,
    checkout: checkoutViewSchema.describe('The public checkout view right after the simulation.'),
  })
  .meta({ id: 'CheckoutSimulation' });
export type CheckoutSimulateResultView = z.infer<typeof checkoutSimulateResultSchema>;

export const checkoutSelectSchema = z.strictObject({
  chain: z.string().min(1).max(32).describe('A chain id among the payment’s `options`.'),
  asset: z.string().min(1).max(12).describe('An asset code among the payment’s `options` on that chain.'),
});
