import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { address } from '@solana/kit';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { describe, expect, it } from 'vitest';
import { associatedTokenAccount } from './ata.ts';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('associated token accounts', () => {
  it('agree with kit and the Token program client for random owners and both registry mints', async () => {
    for (let i = 0; i < 50; i++) {
      const owner = base58.encode(ed25519.getPublicKey(new Uint8Array(randomBytes(32))));
      for (const mint of [USDC, 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB']) {
        const [expected] = await findAssociatedTokenPda({
          owner: address(owner),
          mint: address(mint),
          tokenProgram: TOKEN_PROGRAM_ADDRESS,
        });
        expect(associatedTokenAccount(owner, mint)).toBe(expected);
      }
    }
  });
});
