import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { bech32 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { WIF } from '@scure/btc-signer';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { validateAddress } from './addresses.ts';
import {
  createAddressDeriver,
  MAX_DERIVATION_INDEX,
  secp256k1ChildOf,
  slip10Ed25519Child,
  slip10Ed25519Master,
} from './derivation.ts';
import { type ChainId, chainIds } from './registry.ts';
import { loadNativeTweakAdd } from './secp256k1-native.ts';

/** The BIP-39 test vector mnemonic (entropy 0x00…00): its addresses are published by many independent sources. */
vi.mock('@scure/bip39', async (importOriginal) => {
  const original = await importOriginal<typeof import('@scure/bip39')>();
  return { ...original, mnemonicToSeedSync: vi.fn(original.mnemonicToSeedSync) };
});

const ABANDON =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const OTHER = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const fromHex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'));

const deriver = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: ABANDON });

/** The segwit witness program inside a bech32 address, to compare addresses across networks. */
function witnessProgram(address: string): string {
  const decoded = bech32.decode(address as `${string}1${string}`);
  return hex(bech32.fromWords(decoded.words.slice(1)));
}

describe('deposit address derivation: published vectors for "abandon … about"', () => {
  it("EVM m/44'/60'/0'/0/i, EIP-55 (MetaMask and every BIP-44 wallet show these accounts)", () => {
    // Accounts 1-3 of this mnemonic as MetaMask, Trust Wallet and ethers derive them.
    expect(deriver.deriveAddress('ethereum', false, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    expect(deriver.deriveAddress('ethereum', false, 1)).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0');
    expect(deriver.deriveAddress('ethereum', false, 2)).toBe('0xb6716976A3ebe8D39aCEB04372f22Ff8e6802D7A');
    expect(hex(deriver.derivePrivateKey('ethereum', false, 0))).toBe(
      '1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727',
    );
    // Same path on every EVM chain, and in test mode (with the same mnemonic).
    for (const chain of ['base', 'polygon', 'arbitrum', 'optimism', 'bsc'] as const) {
      expect(deriver.deriveAddress(chain, false, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    }
    expect(deriver.deriveAddress('ethereum', true, 1)).toBe('0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0');
  });

  it("Bitcoin BIP-84 m/84'/0'/0'/0/i: the test vectors of BIP-84 itself", () => {
    // https://github.com/bitcoin/bips/blob/master/bip-0084.mediawiki#test-vectors
    expect(deriver.deriveAddress('bitcoin', false, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(deriver.deriveAddress('bitcoin', false, 1)).toBe('bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g');
    expect(WIF().encode(deriver.derivePrivateKey('bitcoin', false, 0))).toBe(
      'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d',
    );
    expect(deriver.derivationPath('bitcoin', false, 1)).toBe("m/84'/0'/0'/0/1");
  });

  it("Bitcoin test mode m/84'/1'/0'/0/i gives tb1q… (Electrum/Sparrow testnet vectors)", () => {
    // The well-known testnet BIP-84 receive addresses of this mnemonic, e.g. in bitcoinjs-based wallets' tests
    // (tb1q6rz28… at index 0, tb1qd7spv… at index 1).
    expect(deriver.deriveAddress('bitcoin', true, 0)).toBe('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
    expect(deriver.deriveAddress('bitcoin', true, 1)).toBe('tb1qd7spv5q28348xl4myc8zmh983w5jx32cjhkn97');
    expect(deriver.derivationPath('bitcoin', true, 0)).toBe("m/84'/1'/0'/0/0");
  });

  it("Litecoin BIP-84 m/84'/2'/0'/0/i gives ltc1q…, test mode m/84'/1'/0'/0/i gives tltc1q…", () => {
    // EdgeApp/edge-currency-plugins test/common/utxobased/keymanager/coins/litecoin.spec.ts (cross-checked there
    // with Ian Coleman's BIP-39 tool): zpub of m/84'/2'/0' → ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh.
    expect(deriver.deriveAddress('litecoin', false, 0)).toBe('ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh');
    const tltc = deriver.deriveAddress('litecoin', true, 0);
    expect(tltc).toMatch(/^tltc1q[02-9ac-hj-np-z]{38}$/);
    // Coin type 1 is shared by every testnet (BIP-44), so the key, hence the witness program, is Bitcoin testnet's.
    expect(witnessProgram(tltc)).toBe(witnessProgram('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl'));
    expect(validateAddress('litecoin', true, tltc)).toBe(true);
    expect(validateAddress('litecoin', false, tltc)).toBe(false);
  });

  it('test mode on a regtest node spells the same keys bcrt1q…/rltc1q…; live mode and the other chain are unchanged', () => {
    const regtest = createAddressDeriver(
      { testMnemonic: ABANDON, liveMnemonic: ABANDON },
      { testSpelling: { bitcoin: 'regtest', litecoin: 'regtest' } },
    );
    // m/84'/1'/0'/0/0 and /1 of this mnemonic as regtest wallets write them (bitcoinjs-lib's networks.regtest, BDK).
    expect(regtest.deriveAddress('bitcoin', true, 0)).toBe('bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk');
    expect(regtest.deriveAddress('bitcoin', true, 1)).toBe('bcrt1qd7spv5q28348xl4myc8zmh983w5jx32cs707jh');
    const rltc = regtest.deriveAddress('litecoin', true, 0);
    expect(rltc).toMatch(/^rltc1q[02-9ac-hj-np-z]{38}$/);
    // The same key, path and witness program as the testnet spelling: only the bech32 prefix differs.
    expect(witnessProgram(rltc)).toBe(witnessProgram(deriver.deriveAddress('litecoin', true, 0)));
    expect(regtest.derivationPath('litecoin', true, 0)).toBe("m/84'/1'/0'/0/0");
    expect(hex(regtest.derivePrivateKey('litecoin', true, 5))).toBe(
      hex(deriver.derivePrivateKey('litecoin', true, 5)),
    );
    expect(regtest.deriveAddress('bitcoin', false, 0)).toBe('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu');
    expect(regtest.deriveAddress('litecoin', false, 0)).toBe('ltc1qjmxnz78nmc8nq77wuxh25n2es7rzm5c2rkk4wh');
    // Per chain: litecoin's test node on regtest says nothing about bitcoin's.
    const litecoinOnly = createAddressDeriver(
      { testMnemonic: ABANDON, liveMnemonic: undefined },
      { testSpelling: { litecoin: 'regtest' } },
    );
    expect(litecoinOnly.deriveAddress('bitcoin', true, 0)).toBe('tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl');
    expect(litecoinOnly.deriveAddress('litecoin', true, 0)).toBe(rltc);
    expect(validateAddress('litecoin', true, rltc)).toBe(true);
    expect(validateAddress('litecoin', false, rltc)).toBe(false);
  });

  it("Tron m/44'/195'/0'/0/i", () => {
    // klever-io/trx-ledger (the Tron Ledger app) test_getPublicKey.py expects TUEZ… for 44'/195'/0'/0/0 on its
    // test seed, this mnemonic; Trust Wallet Core gives the same for CoinType.TRON. Index 1 as published alongside
    // it in wallet test suites.
    expect(deriver.deriveAddress('tron', false, 0)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(deriver.deriveAddress('tron', false, 1)).toBe('TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK');
    expect(deriver.deriveAddress('tron', true, 0)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
  });

  it("Solana m/44'/501'/i'/0' (Phantom's layout) via SLIP-0010", () => {
    // Phantom / Solflare / `solana-keygen recover 'prompt://?key=0/0'` show HAgk… as the first account of this
    // mnemonic; published e.g. in Solana wallet libraries' tests as the m/44'/501'/0'/0' vector.
    expect(deriver.deriveAddress('solana', false, 0)).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(deriver.derivationPath('solana', false, 3)).toBe("m/44'/501'/3'/0'");
    // Index i is the account level: independent of the cache, re-derive m/44'/501'/1'/0' step by step.
    const seed = fromHex(
      '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
    );
    let node = slip10Ed25519Master(seed);
    for (const step of [44, 501, 1, 0]) node = slip10Ed25519Child(node, step);
    expect(hex(deriver.derivePrivateKey('solana', false, 1))).toBe(hex(node.key));
    expect(deriver.deriveAddress('solana', false, 1)).not.toBe(deriver.deriveAddress('solana', false, 0));
  });

  it("SLIP-0010 ed25519 matches the specification's test vector 1", () => {
    // https://github.com/satoshilabs/slips/blob/master/slip-0010.md#test-vector-1-for-ed25519
    const master = slip10Ed25519Master(fromHex('000102030405060708090a0b0c0d0e0f'));
    expect(hex(master.chainCode)).toBe('90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb');
    expect(hex(master.key)).toBe('2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
    const expected = [
      [
        '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69',
        '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
      ],
      [
        'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14',
        'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2',
      ],
      [
        '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c',
        '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9',
      ],
      [
        '8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc',
        '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662',
      ],
    ];
    let node = master;
    [0, 1, 2, 2].forEach((index, step) => {
      node = slip10Ed25519Child(node, index);
      expect([hex(node.chainCode), hex(node.key)]).toEqual(expected[step]);
    });
  });
});

describe('deposit address derivation: rules', () => {
  it('takes the last BIP-32 step exactly as @scure/bip32 deriveChild does', () => {
    for (let round = 0; round < 4; round++) {
      const account = HDKey.fromMasterSeed(randomBytes(64)).derive("m/84'/0'/0'/0");
      const cached = {
        privateKey: bytesToNumberBE(account.privateKey as Uint8Array),
        publicKey: account.publicKey as Uint8Array,
        publicAffine: secp256k1.Point.fromBytes(account.publicKey as Uint8Array).toAffine(),
        chainCode: account.chainCode as Uint8Array,
      };
      for (const index of [
        0,
        1,
        2,
        255,
        256,
        65_537,
        1_000_003,
        MAX_DERIVATION_INDEX - 1,
        MAX_DERIVATION_INDEX,
      ]) {
        const expected = account.deriveChild(index);
        const child = secp256k1ChildOf(cached, index);
        expect(hex(child.privateKey)).toBe(hex(expected.privateKey as Uint8Array));
        expect(hex(child.publicKey(true))).toBe(hex(expected.publicKey as Uint8Array));
        expect(hex(child.publicKey(false))).toBe(
          hex(secp256k1.Point.fromBytes(expected.publicKey as Uint8Array).toBytes(false)),
        );
      }
    }
  });

  it('derives a batch of addresses (one inversion for all) exactly as one by one, on every family', () => {
    const d = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: OTHER });
    const indices = [7, 0, 65_537, 3, 3, MAX_DERIVATION_INDEX];
    for (const chain of chainIds) {
      for (const isTest of [true, false]) {
        expect(d.deriveAddresses(chain, isTest, indices)).toEqual(
          indices.map((index) => d.deriveAddress(chain, isTest, index)),
        );
      }
    }
    expect(d.deriveAddresses('ethereum', true, [])).toEqual([]);
    expect(() => d.deriveAddresses('ethereum', true, [1, -1])).toThrow(RangeError);
  });

  it("computes the same keys with libsecp256k1's addon and with the comb, and loads the addon where CI runs", () => {
    if (process.platform === 'linux' && process.arch === 'x64') expect(loadNativeTweakAdd()).toBeDefined();
    const native = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: OTHER }, { curve: 'native' });
    const comb = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: OTHER }, { curve: 'comb' });
    const indices = [0, 1, 2, 65_537, MAX_DERIVATION_INDEX];
    for (const chain of chainIds) {
      for (const isTest of [true, false]) {
        const a = native.deriveBatch(chain, isTest, indices);
        const b = comb.deriveBatch(chain, isTest, indices);
        expect(a.addresses, `${chain} ${isTest}`).toEqual(b.addresses);
        expect(a.publicKeys?.map(hex)).toEqual(b.publicKeys?.map(hex));
      }
    }
    // The vectors above hold on the comb too (the default is the addon wherever it loads).
    expect(comb.deriveAddress('ethereum', true, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('keeps the modes apart: test and live seeds give different addresses', () => {
    const d = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: OTHER });
    for (const chain of chainIds) {
      expect(d.deriveAddress(chain, false, 0)).not.toBe(d.deriveAddress(chain, true, 0));
    }
    expect(d.deriveAddress('bitcoin', false, 0)).toMatch(/^bc1q/);
    expect(d.deriveAddress('bitcoin', true, 0)).toMatch(/^tb1q/);
  });

  it('refuses live mode without a live seed, with live_seed_missing', () => {
    const d = createAddressDeriver({ testMnemonic: ABANDON, liveMnemonic: undefined });
    expect(d.hasSeed(true)).toBe(true);
    expect(d.hasSeed(false)).toBe(false);
    expect(d.deriveAddress('ethereum', true, 0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
    let thrown: unknown;
    try {
      d.deriveAddress('ethereum', false, 0);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('live_seed_missing');
    expect(() => d.derivePrivateKey('bitcoin', false, 0)).toThrow(AppError);
  });

  it('accepts indices 0 … 2^31-1 only', () => {
    for (const bad of [-1, 1.5, MAX_DERIVATION_INDEX + 1, 2 ** 32, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => deriver.deriveAddress('ethereum', true, bad)).toThrow(RangeError);
      expect(() => deriver.deriveAddress('solana', true, bad)).toThrow(RangeError);
      expect(() => deriver.derivePrivateKey('bitcoin', true, bad)).toThrow(RangeError);
    }
    for (const chain of chainIds) {
      expect(validateAddress(chain, true, deriver.deriveAddress(chain, true, MAX_DERIVATION_INDEX))).toBe(
        true,
      );
    }
  });

  it('derives valid, distinct addresses and measures 1,000 per chain from the cached account node', () => {
    const d = createAddressDeriver({ testMnemonic: OTHER, liveMnemonic: undefined });
    const lines: string[] = [];
    for (const chain of chainIds as readonly ChainId[]) {
      d.deriveAddress(chain, true, 0); // warm the cache: seed + account node
      const started = performance.now();
      const seen = new Set<string>();
      for (let index = 0; index < 1000; index++) seen.add(d.deriveAddress(chain, true, index));
      const ms = performance.now() - started;
      expect(seen.size).toBe(1000);
      for (const address of [...seen].slice(0, 20)) expect(validateAddress(chain, true, address)).toBe(true);
      lines.push(
        `${chain.padEnd(9)} 1000 addresses in ${ms.toFixed(0)} ms (${((ms / 1000) * 1000).toFixed(0)} µs each)`,
      );
    }
    process.stdout.write(`\nDeposit address derivation (cached account node):\n  ${lines.join('\n  ')}\n`);
  });

  it('does the mnemonic-to-seed step once per mnemonic, not per address', () => {
    const calls = vi.mocked(mnemonicToSeedSync).mock.calls.length;
    const d = createAddressDeriver({ testMnemonic: OTHER, liveMnemonic: ABANDON });
    expect(vi.mocked(mnemonicToSeedSync).mock.calls.length).toBe(calls); // lazy: nothing yet
    for (const chain of chainIds) for (let index = 0; index < 5; index++) d.deriveAddress(chain, true, index);
    expect(vi.mocked(mnemonicToSeedSync).mock.calls.length).toBe(calls + 1);
    d.derivePrivateKey('solana', false, 3);
    d.deriveAddress('tron', false, 9);
    expect(vi.mocked(mnemonicToSeedSync).mock.calls.length).toBe(calls + 2);
  });
});
