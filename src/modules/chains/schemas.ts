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
  })
  .meta({ id: 'FeeWallet' });

export const feeWalletListSchema = z.object({ data: z.array(feeWalletSchema) }).meta({ id: 'FeeWalletList' });

export type FeeWalletView = z.infer<typeof feeWalletSchema>;
