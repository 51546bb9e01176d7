import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { simulatedBlockHash, simulatedTxHash, zeroHash } from './hashes.ts';

describe('simulated hashes', () => {
  it('are well-formed for their chain family', () => {
    expect(simulatedTxHash('evm')).toMatch(/^0x[0-9a-f]{64}$/);
    expect(simulatedBlockHash('evm')).toMatch(/^0x[0-9a-f]{64}$/);
    for (const family of ['bitcoin', 'tron'] as const) {
      expect(simulatedTxHash(family)).toMatch(/^[0-9a-f]{64}$/);
      expect(simulatedBlockHash(family)).toMatch(/^[0-9a-f]{64}$/);
    }
    // Solana: a transaction id is a base58 ed25519 signature (64 bytes), a blockhash 32 bytes.
    expect(base58.decode(simulatedTxHash('solana'))).toHaveLength(64);
    expect(base58.decode(simulatedBlockHash('solana'))).toHaveLength(32);
    expect(zeroHash('evm')).toBe(`0x${'0'.repeat(64)}`);
  });

  it('are random unless seeded, and the same for the same seed', () => {
    expect(simulatedTxHash('evm')).not.toBe(simulatedTxHash('evm'));
    expect(simulatedTxHash('evm', 'forward:ethereum:fwd_1')).toBe(
      simulatedTxHash('evm', 'forward:ethereum:fwd_1'),
    );
    expect(simulatedTxHash('evm', 'forward:ethereum:fwd_1')).not.toBe(
      simulatedTxHash('evm', 'forward:ethereum:fwd_2'),
    );
  });
});
