import { secp256k1 } from '@noble/curves/secp256k1.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Affine, addBaseMultiples, encodeAffine } from './secp256k1-public.ts';

const G = secp256k1.Point.BASE;
const n = secp256k1.Point.Fn.ORDER;
const affine = (point: InstanceType<typeof secp256k1.Point>) => point.toAffine();
const addBaseMultiple = (addend: Affine | undefined, k: bigint) => addBaseMultiples(addend, [k])[0];
/** The scalar whose every 10-bit window (the comb's) holds `digit`, reduced mod n. */
const everyWindow = (digit: number) => {
  let k = 0n;
  for (let w = 0; w < 26; w++) k += BigInt(digit) << BigInt(10 * w);
  return k % n;
};

/** Fixed, so that a failure is replayed exactly (fast-check prints the seed and path of the counterexample). */
const SEED = 0x5ec9256;
/** Scalars from 1 to n − 1, spread over every bit length (fast-check's bigint arbitrary favours small and edge values). */
const scalar = fc.bigInt({ min: 1n, max: n - 1n });
/** Scalars drawn from the same seeded source, for the example tests below. */
const samples = fc.sample(scalar, { seed: SEED + 1, numRuns: 64 });
let drawn = 0;
const randomScalar = (): bigint => samples[drawn++ % samples.length] as bigint;

describe('the comb against @noble/curves, seeded properties', () => {
  it("k·G is noble's for 10,000 scalars", () => {
    fc.assert(
      fc.property(scalar, (k) => {
        expect(addBaseMultiple(undefined, k)).toEqual(affine(G.multiply(k)));
      }),
      { seed: SEED, numRuns: 10_000 },
    );
  });

  it("P + k·G is noble's for 1,000 points and scalars, and a batch equals its scalars one by one", () => {
    fc.assert(
      fc.property(scalar, scalar, (p, k) => {
        const point = G.multiply(p);
        // p + k ≡ 0 (mod n) is the point at infinity, no public key: refused (fast-check finds such pairs).
        if ((p + k) % n === 0n) expect(() => addBaseMultiple(affine(point), k)).toThrow(RangeError);
        else expect(addBaseMultiple(affine(point), k)).toEqual(affine(point.add(G.multiply(k))));
      }),
      { seed: SEED, numRuns: 1_000 },
    );
    fc.assert(
      fc.property(scalar, fc.array(scalar, { minLength: 1, maxLength: 40 }), (p, ks) => {
        fc.pre(ks.every((k) => (p + k) % n !== 0n));
        const point = affine(G.multiply(p));
        const batch = addBaseMultiples(point, ks);
        expect(batch).toEqual(ks.map((k) => addBaseMultiple(point, k)));
      }),
      { seed: SEED, numRuns: 200 },
    );
  });

  it('edge scalars: 1, n − 1, every power of two, and both sides of every 10-bit window boundary', () => {
    const edges = new Set<bigint>([1n, 2n, n - 1n, n - 2n, (n - 1n) / 2n, (n + 1n) / 2n]);
    for (let bit = 0n; bit < 256n; bit++) {
      edges.add((1n << bit) % n || 1n);
      edges.add(((1n << bit) - 1n) % n || 1n);
      edges.add(((1n << bit) + 1n) % n || 1n);
    }
    for (let window = 0n; window < 26n; window++) {
      for (const digit of [1n, 511n, 512n, 513n, 1023n]) edges.add((digit << (10n * window)) % n || 1n);
      edges.add(((1n << (10n * window + 10n)) - 1n) % n || 1n);
    }
    for (const k of edges) expect(addBaseMultiple(undefined, k), `k = ${k}`).toEqual(affine(G.multiply(k)));
  });
});

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
    for (const k of scalars) expect(addBaseMultiple(undefined, k)).toEqual(affine(G.multiply(k)));
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
