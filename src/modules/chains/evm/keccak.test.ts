import { randomBytes } from 'node:crypto';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import { keccak256Short } from './keccak.ts';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('keccak256Short', () => {
  it('gives the Keccak-256 test vectors (original padding, not SHA3-256)', () => {
    expect(hex(keccak256Short(new Uint8Array()))).toBe(
      'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
    expect(hex(keccak256Short(Buffer.from('abc')))).toBe(
      '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
    expect(hex(keccak256Short(Buffer.from('Transfer(address,address,uint256)')))).toBe(
      'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    );
  });

  it('agrees with @noble/hashes for every length it takes, and again on a reused block', () => {
    for (let length = 0; length < 136; length++) {
      for (let n = 0; n < 4; n++) {
        const input = n === 0 ? new Uint8Array(length).fill(0xff) : randomBytes(length);
        expect(hex(keccak256Short(input)), `length ${length}`).toBe(hex(keccak_256(input)));
      }
    }
  });

  it('refuses an input of a whole block or more', () => {
    expect(() => keccak256Short(new Uint8Array(136))).toThrow(RangeError);
  });
});
