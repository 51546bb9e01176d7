import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { describe, expect, it } from 'vitest';
import { type Affine, addBaseMultiples, encodeAffine } from './secp256k1-public.ts';

const G = secp256k1.Point.BASE;
const n = secp256k1.Point.Fn.ORDER;
const randomScalar = () => (bytesToNumberBE(randomBytes(32)) % (n - 1n)) + 1n;
const affine = (point: InstanceType<typeof secp256k1.Point>) => point.toAffine();
const addBaseMultiple = (addend: Affine | undefined, k: bigint) => addBaseMultiples(addend, [k])[0];
/** The scalar whose every 10-bit window (the comb's) holds `digit`, reduced mod n. */
const everyWindow = (digit: number) => {
  let k = 0n;
  for (let w = 0; w < 26; w++) k += BigInt(digit) << BigInt(10 * w);
  return k % n;
};

describe('secp256k1 public-data arithmetic (P + k·G)', () => {
  it('computes k·G as noble does, at the edges of every signed window', () => {
    const scalars = [1n, 2n, 127n, 128n, 129n, 255n, 256n, n - 1n, n - 128n, 2n ** 255n, 2n ** 256n - n];
    // Digits of 128 and 129 in every window (the carry of the signed recoding), and runs of ones.
    scalars.push(BigInt(`0x${'80'.repeat(32)}`) % n, BigInt(`0x${'81'.repeat(32)}`) % n);
    scalars.push(BigInt(`0x${'ff'.repeat(31)}`), BigInt(`0x7f${'ff'.repeat(31)}`));
    // The same for the 10-bit windows the comb uses: 511, 512 (the last positive digit) and 513 (the first carried).
    scalars.push(
      511n,
      512n,
      513n,
      1023n,
      1024n,
      1025n,
      everyWindow(512),
      everyWindow(513),
      everyWindow(1023),
    );
    for (let i = 0; i < 300; i++) scalars.push(randomScalar());
    for (const k of scalars) expect(addBaseMultiple(undefined, k)).toEqual(affine(G.multiply(k)));
  });

  it('adds k·G to a point as noble does', () => {
    for (let i = 0; i < 200; i++) {
      const p = G.multiply(randomScalar());
      const k = randomScalar();
      expect(addBaseMultiple(affine(p), k)).toEqual(affine(p.add(G.multiply(k))));
    }
  });

  it('doubles when the point equals what is added to it, and refuses the point at infinity', () => {
    for (const k of [1n, 5n, 128n, 129n, randomScalar(), n - 1n]) {
      // P = k·G: the last addition meets its own point (after the first window for small k).
      expect(addBaseMultiple(affine(G.multiply(k)), k)).toEqual(affine(G.multiply(k).double()));
      // P = −k·G: the sum is the point at infinity, which is no public key.
      expect(() => addBaseMultiple(affine(G.multiply(k).negate()), k)).toThrow(RangeError);
    }
    // A partial sum that is the point at infinity and then grows again: −G + 1·G = O, then O + 2^8·G (one 10-bit
    // window), and −G + 1·G = O, then O + 2^10·G (the next window).
    expect(addBaseMultiple(affine(G.negate()), 257n)).toEqual(affine(G.multiply(256n)));
    expect(addBaseMultiple(affine(G.negate()), 1025n)).toEqual(affine(G.multiply(1024n)));
  });

  it('brings a batch to affine coordinates together, each sum as on its own', () => {
    const p = affine(G.multiply(randomScalar()));
    const scalars = [randomScalar(), 1n, n - 1n, randomScalar(), 513n];
    expect(addBaseMultiples(p, scalars)).toEqual(scalars.map((k) => addBaseMultiple(p, k)));
    expect(addBaseMultiples(p, [])).toEqual([]);
  });

  it('refuses scalars outside 1 … n−1', () => {
    for (const bad of [0n, n, n + 1n, -1n]) expect(() => addBaseMultiple(undefined, bad)).toThrow(RangeError);
  });

  it('encodes points as SEC 1 exactly as noble does', () => {
    for (let i = 0; i < 50; i++) {
      const p = G.multiply(randomScalar());
      expect(encodeAffine(affine(p), true)).toEqual(p.toBytes(true));
      expect(encodeAffine(affine(p), false)).toEqual(p.toBytes(false));
    }
  });
});
