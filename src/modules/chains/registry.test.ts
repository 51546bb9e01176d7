import { describe, expect, it } from 'vitest';
import { validateAddress } from './addresses.ts';
import {
  chainIds,
  chains,
  contractOf,
  explorerTxLink,
  getAsset,
  getChain,
  indexSpace,
  isAssetAvailable,
  requiredConfirmations,
} from './registry.ts';

describe('chain registry', () => {
  it('lists exactly the chains and assets of the issue, native coin first', () => {
    const listed = Object.fromEntries(chains.map((c) => [c.id, c.assets.map((a) => a.code)]));
    expect(listed).toEqual({
      ethereum: ['ETH', 'USDC', 'USDT'],
      base: ['ETH', 'USDC'],
      polygon: ['POL', 'USDC', 'USDT'],
      arbitrum: ['ETH', 'USDC', 'USDT'],
      optimism: ['ETH', 'USDC'],
      bsc: ['BNB', 'USDC', 'USDT'],
      bitcoin: ['BTC'],
      litecoin: ['LTC'],
      solana: ['SOL', 'USDC', 'USDT'],
      tron: ['TRX', 'USDT'],
    });
    for (const chain of chains) {
      expect(chain.nativeAsset).toBe(chain.assets[0]);
      expect(chain.nativeAsset.isNative).toBe(true);
      expect(chain.nativeAsset.contract).toBeNull();
      expect(chain.assets.filter((a) => a.isNative)).toHaveLength(1);
      expect(chain.defaultConfirmations).toBeGreaterThan(0);
    }
    expect(getChain('litecoin')?.family).toBe('bitcoin');
  });

  it('has the decimals of each asset, including 18 for BSC stablecoins', () => {
    const decimals = Object.fromEntries(
      chains.flatMap((c) => c.assets.map((a) => [`${c.id}:${a.code}`, a.decimals] as const)),
    );
    expect(decimals).toMatchObject({
      'ethereum:ETH': 18,
      'ethereum:USDC': 6,
      'ethereum:USDT': 6,
      'polygon:POL': 18,
      'bsc:BNB': 18,
      'bsc:USDC': 18,
      'bsc:USDT': 18,
      'bitcoin:BTC': 8,
      'litecoin:LTC': 8,
      'solana:SOL': 9,
      'solana:USDC': 6,
      'tron:TRX': 6,
      'tron:USDT': 6,
    });
    for (const chain of chains) {
      for (const asset of chain.assets) {
        expect(asset.peggedTo).toBe(asset.code === 'USDC' || asset.code === 'USDT' ? 'USD' : null);
      }
    }
  });

  it("stores every token contract in its chain's valid format (EIP-55 checksummed on EVM)", () => {
    for (const chain of chains) {
      for (const asset of chain.assets.filter((a) => !a.isNative)) {
        for (const isTest of [false, true]) {
          const contract = contractOf(asset, isTest);
          if (contract === null) continue;
          expect(validateAddress(chain.id, isTest, contract), `${chain.id} ${asset.code} ${contract}`).toBe(
            true,
          );
          if (chain.family === 'evm') {
            expect(contract).toMatch(/[a-f]/);
            expect(contract).toMatch(/[A-F]/);
          }
        }
      }
    }
    // Mainnet addresses of the issuers, spot-checked.
    const eth = getChain('ethereum');
    expect(eth && contractOf(getAsset(eth, 'usdt') ?? eth.nativeAsset, false)).toBe(
      '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    );
  });

  it('offers each asset in live mode, and in test mode wherever a test deployment exists', () => {
    for (const chain of chains) {
      for (const asset of chain.assets) expect(isAssetAvailable(asset, false)).toBe(true);
    }
    const polygon = getChain('polygon');
    if (polygon === undefined) throw new Error('registry');
    expect(isAssetAvailable(getAsset(polygon, 'USDT') ?? polygon.nativeAsset, true)).toBe(false);
    expect(isAssetAvailable(getAsset(polygon, 'USDC') ?? polygon.nativeAsset, true)).toBe(true);
  });

  it('finds chains exactly and assets case-insensitively', () => {
    expect(getChain('ethereum')?.id).toBe('ethereum');
    expect(getChain('Ethereum')).toBeUndefined();
    expect(getChain('dogecoin')).toBeUndefined();
    expect(getChain('__proto__')).toBeUndefined();
    const solana = getChain('solana');
    if (solana === undefined) throw new Error('registry');
    expect(getAsset(solana, 'usdc')?.code).toBe('USDC');
    expect(getAsset(solana, 'UsDt')?.code).toBe('USDT');
    expect(getAsset(solana, 'ETH')).toBeUndefined();
  });

  it('uses the configured confirmations over the defaults', () => {
    const bitcoin = getChain('bitcoin');
    if (bitcoin === undefined) throw new Error('registry');
    expect(requiredConfirmations(bitcoin, {})).toBe(2);
    expect(requiredConfirmations(bitcoin, { bitcoin: 6, ethereum: 3 })).toBe(6);
  });

  it('shares one index space across EVM chains (they share a derivation path)', () => {
    expect(new Set(chainIds.filter((id) => getChain(id)?.family === 'evm').map(indexSpace))).toEqual(
      new Set(['evm']),
    );
    expect(indexSpace('bitcoin')).toBe('bitcoin');
    expect(indexSpace('solana')).toBe('solana');
  });

  it('builds explorer links for each network', () => {
    const solana = getChain('solana');
    if (solana === undefined) throw new Error('registry');
    expect(explorerTxLink(solana.testnet, 'abc')).toBe('https://explorer.solana.com/tx/abc?cluster=devnet');
    expect(explorerTxLink(solana.mainnet, 'abc')).toBe('https://explorer.solana.com/tx/abc');
  });
});
