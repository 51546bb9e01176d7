import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { paymentUri, solanaPayReference } from './payment-uri.ts';
import { getChain } from './registry.ts';

const to = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

describe('payment URIs', () => {
  it('EIP-681 for an EVM native coin: value in wei, chain id per mode', () => {
    expect(
      paymentUri({
        chain: 'ethereum',
        asset: 'ETH',
        address: to,
        amountBaseUnits: 10n ** 16n,
        isTest: false,
      }),
    ).toBe(`ethereum:${to}@1?value=10000000000000000`);
    expect(
      paymentUri({ chain: 'ethereum', asset: 'eth', address: to, amountBaseUnits: 1n, isTest: true }),
    ).toBe(`ethereum:${to}@11155111?value=1`);
    expect(paymentUri({ chain: 'bsc', asset: 'BNB', address: to, amountBaseUnits: 5n, isTest: false })).toBe(
      `ethereum:${to}@56?value=5`,
    );
    // Large amounts stay exact (no exponent, no float).
    const huge = 123456789012345678901234567890n;
    expect(
      paymentUri({ chain: 'polygon', asset: 'POL', address: to, amountBaseUnits: huge, isTest: false }),
    ).toBe(`ethereum:${to}@137?value=123456789012345678901234567890`);
  });

  it('EIP-681 ERC-20 transfer with the token of the mode', () => {
    expect(
      paymentUri({ chain: 'base', asset: 'USDC', address: to, amountBaseUnits: 19_990_000n, isTest: false }),
    ).toBe(
      `ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913@8453/transfer?address=${to}&uint256=19990000`,
    );
    expect(paymentUri({ chain: 'base', asset: 'USDC', address: to, amountBaseUnits: 1n, isTest: true })).toBe(
      `ethereum:0x036CbD53842c5426634e7929541eC2318f3dCF7e@84532/transfer?address=${to}&uint256=1`,
    );
    // BSC's USDT has 18 decimals: 1 USDT is 10^18 units.
    expect(
      paymentUri({ chain: 'bsc', asset: 'USDT', address: to, amountBaseUnits: 10n ** 18n, isTest: false }),
    ).toBe(
      `ethereum:0x55d398326f99059fF775485246999027B3197955@56/transfer?address=${to}&uint256=1000000000000000000`,
    );
  });

  it('BIP-21 for Bitcoin and Litecoin, amounts in whole coins', () => {
    expect(
      paymentUri({
        chain: 'bitcoin',
        asset: 'BTC',
        address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
        amountBaseUnits: 100_000n,
        isTest: false,
      }),
    ).toBe('bitcoin:bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu?amount=0.001');
    expect(
      paymentUri({
        chain: 'bitcoin',
        asset: 'BTC',
        address: 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl',
        amountBaseUnits: 1n,
        isTest: true,
      }),
    ).toBe('bitcoin:tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl?amount=0.00000001');
    expect(
      paymentUri({
        chain: 'litecoin',
        asset: 'LTC',
        address: 'ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh',
        amountBaseUnits: 250_000_000n,
        isTest: false,
      }),
    ).toBe('litecoin:ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh?amount=2.5');
  });

  it('Solana Pay transfer requests, with spl-token for tokens and a reference of the payment', () => {
    const recipient = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';
    // Computed here the independent way (node:crypto): SHA-256 of the label and the deposit address, in base58.
    const reference = base58.encode(
      createHash('sha256').update(`svc solana pay reference:${recipient}`).digest(),
    );
    expect(base58.decode(reference)).toHaveLength(32);
    expect(
      paymentUri({
        chain: 'solana',
        asset: 'SOL',
        address: recipient,
        amountBaseUnits: 1_500_000_000n,
        isTest: false,
      }),
    ).toBe(`solana:${recipient}?amount=1.5&reference=${reference}`);
    expect(
      paymentUri({ chain: 'solana', asset: 'USDC', address: recipient, amountBaseUnits: 10n, isTest: false }),
    ).toBe(
      `solana:${recipient}?amount=0.00001&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=${reference}`,
    );
    expect(
      paymentUri({
        chain: 'solana',
        asset: 'USDT',
        address: recipient,
        amountBaseUnits: 1_000_000n,
        isTest: true,
      }),
    ).toBe(
      `solana:${recipient}?amount=1&spl-token=EJwZgeZrdC8TXTQbQBoL6bfuAnFUUy1PVCMB4DYPzVaS&reference=${reference}`,
    );
    // Another payment (deposit address), another reference.
    expect(solanaPayReference('4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T')).not.toBe(reference);
  });

  it('Tron: tron:<addr>?amount=<decimal>, plus token=<TRC-20 contract>', () => {
    const recipient = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
    expect(
      paymentUri({
        chain: 'tron',
        asset: 'TRX',
        address: recipient,
        amountBaseUnits: 12_345_678n,
        isTest: false,
      }),
    ).toBe(`tron:${recipient}?amount=12.345678`);
    expect(
      paymentUri({
        chain: 'tron',
        asset: 'USDT',
        address: recipient,
        amountBaseUnits: 5_000_000n,
        isTest: false,
      }),
    ).toBe(`tron:${recipient}?amount=5&token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t`);
    expect(
      paymentUri({
        chain: 'tron',
        asset: 'USDT',
        address: recipient,
        amountBaseUnits: 5_000_000n,
        isTest: true,
      }),
    ).toBe(`tron:${recipient}?amount=5&token=TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf`);
  });

  it('leaves a zero amount out, accepts registry entries, refuses what cannot be paid', () => {
    const chain = getChain('ethereum');
    if (chain === undefined) throw new Error('registry');
    expect(
      paymentUri({ chain, asset: chain.nativeAsset, address: to, amountBaseUnits: 0n, isTest: false }),
    ).toBe(`ethereum:${to}@1`);
    expect(
      paymentUri({ chain: 'bitcoin', asset: 'BTC', address: 'bc1q', amountBaseUnits: 0n, isTest: false }),
    ).toBe('bitcoin:bc1q');
    expect(() =>
      paymentUri({ chain: 'ethereum', asset: 'ETH', address: to, amountBaseUnits: -1n, isTest: false }),
    ).toThrow(RangeError);
    expect(() =>
      paymentUri({ chain: 'base', asset: 'USDT', address: to, amountBaseUnits: 1n, isTest: false }),
    ).toThrow(RangeError);
    expect(() =>
      paymentUri({ chain: 'polygon', asset: 'USDT', address: to, amountBaseUnits: 1n, isTest: true }),
    ).toThrow(/no test network contract/);
  });
});
