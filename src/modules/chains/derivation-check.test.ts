import { bech32 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../test/support/harness.ts';
import { createAddressDeriver } from './derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
  DerivationMismatchError,
  SignerMismatchError,
} from './derivation-check.ts';
import { chainIds } from './registry.ts';

// A valid BIP-39 mnemonic other than the test one stands in for a live seed.
const liveMnemonic = 'zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo zoo wrong';
// The test seed is BIP-39's "abandon … about" vector, whose first addresses are published.
const vectors = createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic });
const seeds = { testMnemonic, liveMnemonic };
const deriver = createAddressDeriver(seeds);
const check = createDerivationCheck(seeds);
const indices = [0, 1, 2, 19, 20, 1000, 65_535, 2_147_483_646, 2_147_483_647];

describe('the second, independent derivation', () => {
  it('agrees with the first on every chain, in both modes', () => {
    for (const chain of chainIds) {
      for (const isTest of [true, false]) {
        const addresses = deriver.deriveAddresses(chain, isTest, indices);
        expect(() => check.verify(chain, isTest, indices, addresses), `${chain} ${isTest}`).not.toThrow();
        expect(check.addressAt(chain, isTest, 19)).toBe(addresses[3]);
      }
    }
  });

  it('names the published first address of the BIP-84 and BIP-44 vectors', () => {
    // BIP-84's vector (the "abandon … about" mnemonic): m/84'/0'/0'/0/0.
    expect(vectors.addressAt('bitcoin', false, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    // The same mnemonic's m/44'/60'/0'/0/0, as every Ethereum wallet derives it.
    expect(vectors.addressAt('ethereum', false, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('refuses a batch with one wrong address, a missing one, or another mode or index space', () => {
    const addresses = deriver.deriveAddresses('ethereum', true, [3, 4, 5]);
    const swapped = [addresses[0] as string, addresses[2] as string, addresses[1] as string];
    expect(() => check.verify('ethereum', true, [3, 4, 5], swapped)).toThrow(DerivationMismatchError);
    expect(() => check.verify('ethereum', true, [3, 4, 5], addresses.slice(0, 2))).toThrow(
      DerivationMismatchError,
    );
    expect(() => check.verify('ethereum', false, [3, 4, 5], addresses)).toThrow(DerivationMismatchError);
    expect(() => check.verify('tron', true, [3, 4, 5], addresses)).toThrow(DerivationMismatchError);
    // A checksum that differs only in case is a different string: EIP-55 is part of what is handed out.
    const lower = addresses.map((address) => address.toLowerCase());
    expect(() => check.verify('ethereum', true, [3, 4, 5], lower)).toThrow(DerivationMismatchError);
    // With the keys (the batch check), the case of the batch's first address is checked.
    const { publicKeys } = deriver.deriveBatch('ethereum', true, [3, 4, 5]);
    expect(() => check.verify('ethereum', true, [3, 4, 5], lower, publicKeys)).toThrow(
      DerivationMismatchError,
    );
  });

  it("knows the address of every deposit key, and so tells a key that is not the deposit address's", () => {
    for (const chain of chainIds) {
      for (const isTest of [true, false]) {
        const key = deriver.derivePrivateKey(chain, isTest, 42);
        expect(check.addressOfKey(chain, isTest, key), `${chain} ${isTest}`).toBe(
          deriver.deriveAddress(chain, isTest, 42),
        );
        expect(check.addressOfKey(chain, isTest, key)).not.toBe(deriver.deriveAddress(chain, isTest, 43));
      }
    }
  });

  it("checks the first derivation's own points as a batch: a consistent but wrong point, or no point, is refused", () => {
    const indices = Array.from({ length: 15 }, (_, n) => 100 + n);
    for (const chain of ['ethereum', 'tron', 'bitcoin', 'litecoin'] as const) {
      const batch = deriver.deriveBatch(chain, true, indices);
      expect(() => check.verify(chain, true, indices, batch.addresses, batch.publicKeys)).not.toThrow();
      // The address and key of index 999 in place of 107's: each pair agrees with itself, the batch does not.
      const other = deriver.deriveBatch(chain, true, [999]);
      const addresses = batch.addresses.map((a, n) => (n === 7 ? (other.addresses[0] as string) : a));
      const keys = (batch.publicKeys ?? []).map((k, n) =>
        n === 7 ? (other.publicKeys?.[0] as Uint8Array) : k,
      );
      expect(() => check.verify(chain, true, indices, addresses, keys)).toThrow(
        expect.objectContaining({
          code: 'derivation_mismatch',
          detail: expect.objectContaining({ index: 107 }),
        }),
      );
    }
    const batch = deriver.deriveBatch('ethereum', true, indices);
    const notAPoint = (batch.publicKeys ?? []).map((k, n) => (n === 3 ? new Uint8Array(65).fill(4) : k));
    // Keys that are no points fall back to deriving each address again, which finds these addresses right.
    expect(() => check.verify('ethereum', true, indices, batch.addresses, notAPoint)).not.toThrow();
    expect(deriver.deriveBatch('solana', true, [1]).publicKeys).toBeUndefined();
  });

  describe('regtest spelling of test-mode addresses', () => {
    const testSpelling = { bitcoin: 'regtest', litecoin: 'regtest' } as const;
    const regtestDeriver = createAddressDeriver(seeds, { testSpelling });
    const regtestCheck = createDerivationCheck(seeds, { testSpelling });

    it('both derivations agree on bcrt1…/rltc1…, by the batch check and one by one; live mode keeps bc1…/ltc1…', () => {
      for (const chain of chainIds) {
        for (const isTest of [true, false]) {
          const batch = regtestDeriver.deriveBatch(chain, isTest, indices);
          expect(
            () => regtestCheck.verify(chain, isTest, indices, batch.addresses, batch.publicKeys),
            `${chain} ${isTest}`,
          ).not.toThrow();
          expect(() => regtestCheck.verify(chain, isTest, indices, batch.addresses)).not.toThrow();
          expect(regtestCheck.addressAt(chain, isTest, 19)).toBe(batch.addresses[3]);
        }
      }
      expect(regtestCheck.addressAt('bitcoin', true, 0)).toMatch(/^bcrt1q/);
      expect(regtestCheck.addressAt('litecoin', true, 0)).toMatch(/^rltc1q/);
      expect(regtestCheck.addressAt('bitcoin', false, 0)).toMatch(/^bc1q/);
      expect(regtestCheck.addressAt('litecoin', false, 0)).toMatch(/^ltc1q/);
      // BIP-84's test vector key at m/84'/1'/0'/0/0, in regtest's spelling.
      expect(
        createDerivationCheck({ testMnemonic, liveMnemonic: undefined }, { testSpelling }).addressAt(
          'bitcoin',
          true,
          0,
        ),
      ).toBe('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk');
    });

    it('refuses addresses spelled otherwise than it was told: the two derivations must be told the same', () => {
      for (const chain of ['bitcoin', 'litecoin'] as const) {
        const batch = deriver.deriveBatch(chain, true, [4, 5]); // testnet spelling
        expect(() => regtestCheck.verify(chain, true, [4, 5], batch.addresses, batch.publicKeys)).toThrow(
          DerivationMismatchError,
        );
        expect(() => regtestCheck.verify(chain, true, [4, 5], batch.addresses)).toThrow(
          DerivationMismatchError,
        );
        const regtest = regtestDeriver.deriveBatch(chain, true, [4, 5]);
        expect(() => check.verify(chain, true, [4, 5], regtest.addresses, regtest.publicKeys)).toThrow(
          DerivationMismatchError,
        );
      }
    });

    it("signs for a test-mode deposit in either spelling of its script, never for another key's address", () => {
      const regtestKeys = createDepositSigningKeys(regtestDeriver, regtestCheck);
      const testnetKeys = createDepositSigningKeys(deriver, check);
      for (const chain of ['bitcoin', 'litecoin'] as const) {
        const testnet = deriver.deriveAddress(chain, true, 9);
        const regtest = regtestDeriver.deriveAddress(chain, true, 9);
        expect(regtest).not.toBe(testnet);
        const key = deriver.derivePrivateKey(chain, true, 9);
        // A payment created before the setting changed (testnet spelling) still sweeps, and the other way round.
        expect(regtestKeys.keyFor(chain, true, 9, testnet)).toEqual(key);
        expect(regtestKeys.keyFor(chain, true, 9, regtest)).toEqual(key);
        expect(testnetKeys.keyFor(chain, true, 9, regtest)).toEqual(key);
        expect(regtestKeys.keyFor(chain, true, 9, regtest.toUpperCase())).toEqual(key);
        // Another index's address, in either spelling: refused before anything is signed.
        for (const other of [
          deriver.deriveAddress(chain, true, 10),
          regtestDeriver.deriveAddress(chain, true, 10),
        ]) {
          expect(() => regtestKeys.keyFor(chain, true, 9, other)).toThrow(SignerMismatchError);
          expect(() => testnetKeys.keyFor(chain, true, 9, other)).toThrow(SignerMismatchError);
        }
      }
      // The other chain's prefix, or mainnet's, is not a spelling of a test-mode litecoin address.
      const program = regtestDeriver.deriveAddress('litecoin', true, 9);
      const asBitcoin = regtestDeriver.deriveAddress('bitcoin', true, 9);
      expect(() => regtestKeys.keyFor('litecoin', true, 9, asBitcoin)).toThrow(SignerMismatchError);
      expect(() => regtestKeys.keyFor('bitcoin', true, 9, program)).toThrow(SignerMismatchError);
      expect(() => regtestKeys.keyFor('litecoin', true, 9, 'not an address')).toThrow(SignerMismatchError);
    });

    it('keeps live mode strict: one spelling (bc1…/ltc1…), compared without case only', () => {
      const liveKeys = createDepositSigningKeys(regtestDeriver, regtestCheck);
      for (const chain of ['bitcoin', 'litecoin'] as const) {
        const address = regtestDeriver.deriveAddress(chain, false, 3);
        const key = regtestDeriver.derivePrivateKey(chain, false, 3);
        expect(liveKeys.keyFor(chain, false, 3, address)).toEqual(key);
        expect(liveKeys.keyFor(chain, false, 3, address.toUpperCase())).toEqual(key);
        // The live key's script spelled for a test network is no live address.
        const hrp = chain === 'bitcoin' ? 'bcrt' : 'rltc';
        const words = bech32.decode(address as `${string}1${string}`).words;
        const respelled = bech32.encode(hrp, words);
        expect(() => liveKeys.keyFor(chain, false, 3, respelled)).toThrow(SignerMismatchError);
      }
    });
  });
});
