import { z } from 'zod';

const networkSchema = z.object({
  name: z.string(),
  evm_chain_id: z.number().int().nullable().describe('EIP-155 chain id (EVM chains only).'),
  explorer_tx_url: z.string().describe('Explorer link; `{tx}` stands for the transaction hash.'),
  explorer_address_url: z.string().describe('Explorer link; `{address}` stands for the address.'),
});

const assetSchema = z.object({
  code: z.string().describe('Asset code, e.g. `ETH`, `USDC`.'),
  name: z.string(),
  decimals: z.number().int().describe('Base units per whole unit are 10^decimals (wei, satoshi, …).'),
  is_native: z.boolean(),
  contract: z
    .object({
      mainnet: z.string(),
      testnet: z.string().nullable().describe('Null: not offered in test mode (no test deployment).'),
    })
    .nullable()
    .describe('Token contract (ERC-20, SPL mint, TRC-20) per network; null for the native coin.'),
  pegged_to: z.literal('USD').nullable(),
});

const chainSchema = z
  .object({
    id: z.string().describe('Chain id used in payments, e.g. `ethereum`, `bitcoin`.'),
    name: z.string(),
    family: z.enum(['evm', 'bitcoin', 'solana', 'tron']),
    mainnet: networkSchema.describe('The network of live mode.'),
    testnet: networkSchema.describe('The network of test mode.'),
    native_asset: z.string().describe('Code of the native coin: the default asset of a payment.'),
    assets: z.array(assetSchema).describe('Native coin first.'),
    confirmations: z
      .number()
      .int()
      .describe('Confirmations a deposit needs before the payment is confirmed.'),
    default_confirmations: z.number().int(),
    block_time_seconds: z.number(),
  })
  .meta({ id: 'Chain' });

export const chainListSchema = z.object({ data: z.array(chainSchema) }).meta({ id: 'ChainList' });

export type ChainView = z.infer<typeof chainSchema>;

const integerText = (what: string) =>
  z
    .string()
    .regex(/^[0-9]+$/)
    .describe(`${what}, an exact integer as a decimal string.`);

const resourceStakeSchema = z
  .object({
    energy_staked_native: z
      .string()
      .describe('TRX staked for energy, what is lent out included; exact decimal.'),
    energy_lent_native: z
      .string()
      .describe('Of it, TRX lent to deposit addresses for the sweeps under way now.'),
    bandwidth_staked_native: z.string().describe('TRX staked for bandwidth, what is lent out included.'),
    bandwidth_lent_native: z.string().describe('Of it, TRX lent to deposit addresses now.'),
    energy_available: integerText('Energy units the stake not lent out gives now'),
    energy_per_sweep: integerText(
      'Energy units one USDT sweep borrows (to a payout that already holds USDT)',
    ),
    sweeps_covered: z.number().int().describe('USDT sweeps the stake not lent out covers now.'),
    short: z
      .boolean()
      .describe(
        'Too little for the next sweep: USDT sweeps burn TRX instead (within MAX_BURN_TRX) until more TRX is staked ' +
          'for energy.',
      ),
  })
  .meta({ id: 'ResourceStake' });

export type ResourceStakeView = z.infer<typeof resourceStakeSchema>;

const feeWalletSchema = z
  .object({
    chain: z.string(),
    is_test: z.boolean(),
    role: z.string().describe('What the wallet pays for.'),
    address: z.string().describe('Fund this address in the chain’s native coin.'),
    asset: z.string().describe('The native coin it holds and spends.'),
    balance_native: z
      .string()
      .nullable()
      .describe('Its balance now, exact decimal; null when the node could not be asked.'),
    low_below_native: z
      .string()
      .nullable()
      .describe('The balance under which it counts as low; null when no fixed floor applies.'),
    low: z.boolean().describe('Too low now: sweeps wait, or will fail, until it is funded.'),
    explorer_address_url: z.string().describe('The address on the network’s explorer.'),
    stake: resourceStakeSchema
      .nullable()
      .optional()
      .describe(
        'Tron’s resource wallet: the TRX it has staked (Stake 2.0) to lend energy to USDT sweeps; null when the node ' +
          'could not be asked, absent for other wallets.',
      ),
    token_balances: z
      .array(
        z.object({
          asset: z.string(),
          balance_native: z
            .string()
            .nullable()
            .describe('Exact decimal; null when the node could not be asked.'),
        }),
      )
      .optional()
      .describe(
        'A refund wallet’s balances in the chain’s tokens (it refunds them from these); absent for other wallets.',
      ),
  })
  .meta({ id: 'FeeWallet' });

export const feeWalletListSchema = z.object({ data: z.array(feeWalletSchema) }).meta({ id: 'FeeWalletList' });

export type FeeWalletView = z.infer<typeof feeWalletSchema>;

const sweepCostSchema = z
  .object({
    chain: z.string(),
    is_test: z.boolean(),
    asset: z.string().describe('The chain’s native coin, in which the fees are counted.'),
    sweeps: z.number().int().describe('Sweeps that became final in the month.'),
    fee_native: z
      .string()
      .describe(
        'Network fees they paid as the chain charged them (on Tron: the TRX they burnt), exact decimal.',
      ),
    energy_used: integerText('Energy units they used (Tron)')
      .nullable()
      .describe('Energy units they used (Tron), exact; null on chains that charge none.'),
    energy_delegated: integerText('Of those, units paid by staked TRX')
      .nullable()
      .describe(
        'Of `energy_used`, the units paid by staked TRX the resource wallet lent (the rest burnt TRX); null on ' +
          'chains that charge none.',
      ),
  })
  .meta({ id: 'SweepCost' });

export const sweepCostListSchema = z
  .object({
    month: z.string().describe('The calendar month (UTC), YYYY-MM.'),
    data: z.array(sweepCostSchema).describe('One entry per chain and mode that swept in the month.'),
  })
  .meta({ id: 'SweepCostList' });

export type SweepCostView = z.infer<typeof sweepCostSchema>;

export const sweepCostQuerySchema = z.object({
  month: z
    .string()
    .regex(/^20[0-9]{2}-(0[1-9]|1[0-2])$/, 'must be a month, YYYY-MM')
    .optional()
    .describe('The calendar month (UTC), YYYY-MM; the current one when absent.'),
});
