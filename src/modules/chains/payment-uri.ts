import { sha256 } from '@noble/hashes/sha2.js';
import { base58 } from '@scure/base';
import { fromBaseUnits } from '../../lib/money.ts';
import {
  type AssetInfo,
  type ChainId,
  type ChainInfo,
  contractOf,
  getAsset,
  getChain,
  networkOf,
} from './registry.ts';

/**
 * Payment URIs a wallet can open or scan, with the exact amount:
 * - EVM native coin: EIP-681 `ethereum:<to>@<chainId>?value=<wei>` (the scheme is `ethereum:` on every EVM chain; the
 *   EIP-155 chain id tells the wallet which).
 * - EVM token: EIP-681 `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>`.
 * - Bitcoin / Litecoin: BIP-21 `bitcoin:<addr>?amount=<BTC>` / `litecoin:<addr>?amount=<LTC>` (decimal coins).
 * - Solana: Solana Pay transfer request `solana:<recipient>?amount=<decimal>[&spl-token=<mint>]&reference=<key>`: the
 *   reference is a 32-byte key of this payment alone (derived from its deposit address, so nothing is stored), which a
 *   Solana Pay wallet adds to its transaction as a read-only account, so `getSignaturesForAddress(reference)` finds it.
 * - Tron: there is no ratified standard. We follow the BIP-21 shape, `tron:<addr>?amount=<decimal TRX or tokens>`,
 *   adding `&token=<TRC-20 contract>` for a token, so a wallet that reads the scheme gets recipient, amount and asset;
 *   a wallet that does not still shows the address.
 * An amount of zero leaves the amount out. Decimal amounts are exact (no floats) and never use exponents.
 */

export interface PaymentUriInput {
  chain: ChainId | ChainInfo;
  /** Asset code (case-insensitive) or the registry entry. */
  asset: string | AssetInfo;
  address: string;
  amountBaseUnits: bigint;
  isTest: boolean;
}

export function paymentUri({ chain, asset, address, amountBaseUnits, isTest }: PaymentUriInput): string {
  const chainInfo = typeof chain === 'string' ? getChain(chain) : chain;
  if (chainInfo === undefined) throw new RangeError(`Unknown chain: ${String(chain)}`);
  const assetInfo = typeof asset === 'string' ? getAsset(chainInfo, asset) : asset;
  if (assetInfo === undefined) throw new RangeError(`${chainInfo.id} has no asset ${String(asset)}`);
  if (amountBaseUnits < 0n) throw new RangeError('Amount must not be negative');
  const contract = contractOf(assetInfo, isTest);
  if (!assetInfo.isNative && contract === null) {
    throw new RangeError(
      `${assetInfo.code} on ${chainInfo.id} has no ${isTest ? 'test' : 'main'} network contract`,
    );
  }
  const decimal = fromBaseUnits(amountBaseUnits, assetInfo.decimals);
  const hasAmount = amountBaseUnits > 0n;

  switch (chainInfo.family) {
    case 'evm': {
      const evmChainId = networkOf(chainInfo, isTest).evmChainId;
      if (evmChainId === undefined) throw new Error(`${chainInfo.id} has no EIP-155 chain id`);
      if (contract === null) {
        return `ethereum:${address}@${evmChainId}${hasAmount ? `?value=${amountBaseUnits}` : ''}`;
      }
      return `ethereum:${contract}@${evmChainId}/transfer?address=${address}${hasAmount ? `&uint256=${amountBaseUnits}` : ''}`;
    }
    case 'bitcoin':
      return `${chainInfo.id}:${address}${hasAmount ? `?amount=${decimal}` : ''}`;
    case 'solana':
    case 'tron': {
      const params = [
        ...(hasAmount ? [`amount=${decimal}`] : []),
        ...(contract === null
          ? []
          : [`${chainInfo.family === 'solana' ? 'spl-token' : 'token'}=${contract}`]),
        ...(chainInfo.family === 'solana' ? [`reference=${solanaPayReference(address)}`] : []),
      ];
      return `${chainInfo.family}:${address}${params.length > 0 ? `?${params.join('&')}` : ''}`;
    }
  }
}

/**
 * The Solana Pay `reference` of a payment: base58 of SHA-256 over a fixed label and its deposit address (unique per
 * payment). Any 32 bytes make an account key a transaction may name read-only; none signs for it.
 */
export function solanaPayReference(depositAddress: string): string {
  return base58.encode(sha256(new TextEncoder().encode(`svc solana pay reference:${depositAddress}`)));
}
