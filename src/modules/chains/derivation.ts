import { createHmac } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { base58 } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { p2wpkh } from '@scure/btc-signer';
import { AppError } from '../../lib/errors.ts';
import { evmAccountBytes, toChecksumAddress, tronAddressFromAccount, utxoNetwork } from './addresses.ts';
import { type ChainId, getChain } from './registry.ts';
import { loadNativeTweakAdd, type PublicKeyTweakAdd } from './secp256k1-native.ts';
import { type Affine, addBaseMultiples, encodeAffine } from './secp256k1-public.ts';

/**
 * Deposit addresses: one per (chain, mode, index), derived from the mode's BIP-39 mnemonic.
 *
 * Paths (i = index):
 * - EVM chains   m/44'/60'/0'/0/i    EIP-55 address (the same address on every EVM chain for one i)
 * - tron         m/44'/195'/0'/0/i   base58check T… address
 * - bitcoin      m/84'/0'/0'/0/i     P2WPKH bc1q…;   test mode m/84'/1'/0'/0/i  tb1q…   (BIP-44 coin type 1)
 * - litecoin     m/84'/2'/0'/0/i     P2WPKH ltc1q…;  test mode m/84'/1'/0'/0/i  tltc1q…
 *   (test mode spells them bcrt1q… / rltc1q… instead when that chain's test node is configured as regtest: the same
 *   key and script, only the bech32 prefix differs; see TestAddressSpelling)
 * - solana       m/44'/501'/i'/0'    SLIP-0010 ed25519, base58 public key (Phantom/Solflare layout)
 *
 * The mnemonic-to-seed step (PBKDF2, ~10-40 ms) runs once per mnemonic, and each account-level node (everything but
 * the last one or two levels) is derived once with @scure/bip32 and cached. An address then costs one HMAC-SHA512
 * child step and one base-point multiplication: the last, non-hardened BIP-32 step (CKDpriv) is done here directly so
 * that the child's public key is computed once, in the form the chain needs (uncompressed for EVM/Tron), instead of
 * compressed by HDKey and decompressed again. derivation.test.ts checks it against @scure/bip32's deriveChild.
 */

export interface AddressDeriver {
  /** Whether this mode has a seed: test mode always does, live mode only with SVC_MNEMONIC. */
  hasSeed(isTest: boolean): boolean;
  /** The deposit address at `index`; throws AppError `live_seed_missing` in live mode without a seed. */
  deriveAddress(chainId: ChainId, isTest: boolean, index: number): string;
  /** The deposit addresses at `indices`, in order (cheaper per address than one by one). */
  deriveAddresses(chainId: ChainId, isTest: boolean, indices: readonly number[]): string[];
  /**
   * The same, with the uncompressed secp256k1 public key (65 bytes) behind each address, for the second derivation
   * to check the points themselves (derivation-check.ts); no keys on ed25519 chains (Solana).
   */
  deriveBatch(chainId: ChainId, isTest: boolean, indices: readonly number[]): DerivedBatch;
  /**
   * The 32-byte private key behind `deriveAddress(chainId, isTest, index)`, for sweeping: a secp256k1 scalar, or for
   * Solana the ed25519 seed (a Solana "secret key" is this seed followed by the public key).
   */
  derivePrivateKey(chainId: ChainId, isTest: boolean, index: number): Uint8Array;
  /** The BIP-32/SLIP-0010 path of that address, e.g. "m/84'/0'/0'/0/7". */
  derivationPath(chainId: ChainId, isTest: boolean, index: number): string;
}

/**
 * Per bitcoin-family chain, the bech32 prefix of its test-mode addresses: `test` (tb1…, tltc1…; the default) or
 * `regtest` (bcrt1…, rltc1…) when its test node is configured as regtest (SVC_TEST_CHAIN_<NAME>_NETWORK=regtest), so
 * that a regtest wallet accepts the address the checkout shows. Both derivations (derivation.ts and
 * derivation-check.ts, also on the derivation thread) must be given the same spelling, or every address is refused.
 * Live mode is never affected (bc1…, ltc1…).
 */
export type TestAddressSpelling = Readonly<Partial<Record<'bitcoin' | 'litecoin', 'test' | 'regtest'>>>;

interface DerivedBatch {
  addresses: string[];
  publicKeys: Uint8Array[] | undefined;
}

/** The largest index is 2^31 - 1: Solana's index is hardened, and BIP-32 non-hardened indices stop there too. */
export const MAX_DERIVATION_INDEX = 0x7fffffff;

const HARDENED = 0x80000000;

function assertIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index > MAX_DERIVATION_INDEX) {
    throw new RangeError(
      `Derivation index must be an integer from 0 to ${MAX_DERIVATION_INDEX}, got ${index}`,
    );
  }
}

type Scheme =
  | { kind: 'secp256k1'; account: string; encode: 'evm' | 'tron' | 'bitcoin' | 'litecoin' }
  | { kind: 'ed25519' };

function schemeOf(chainId: ChainId, isTest: boolean): Scheme {
  const chain = getChain(chainId);
  if (chain === undefined) throw new RangeError(`Unknown chain: ${chainId}`);
  switch (chain.family) {
    case 'evm':
      return { kind: 'secp256k1', account: "m/44'/60'/0'/0", encode: 'evm' };
    case 'tron':
      return { kind: 'secp256k1', account: "m/44'/195'/0'/0", encode: 'tron' };
    case 'solana':
      return { kind: 'ed25519' };
    case 'bitcoin':
      if (chain.id === 'litecoin') {
        return { kind: 'secp256k1', account: isTest ? "m/84'/1'/0'/0" : "m/84'/2'/0'/0", encode: 'litecoin' };
      }
      return { kind: 'secp256k1', account: isTest ? "m/84'/1'/0'/0" : "m/84'/0'/0'/0", encode: 'bitcoin' };
  }
}

/** SLIP-0010 for ed25519: hardened-only derivation with HMAC-SHA512. */
interface Ed25519Node {
  key: Uint8Array;
  chainCode: Uint8Array;
}

/** HMAC-SHA512 (OpenSSL through node:crypto: several times faster than a JS implementation). */
function hmacSha512(key: Uint8Array, data: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha512', key).update(data).digest());
}

function split(digest: Uint8Array): Ed25519Node {
  return { key: digest.slice(0, 32), chainCode: digest.slice(32) };
}

export function slip10Ed25519Master(seed: Uint8Array): Ed25519Node {
  return split(hmacSha512(new TextEncoder().encode('ed25519 seed'), seed));
}

/** Child `index` (hardened automatically: ed25519 has no public derivation). */
export function slip10Ed25519Child(parent: Ed25519Node, index: number): Ed25519Node {
  const data = new Uint8Array(37);
  data.set(parent.key, 1);
  new DataView(data.buffer).setUint32(33, (index | HARDENED) >>> 0, false);
  return split(hmacSha512(parent.chainCode, data));
}

const Point = secp256k1.Point;
const CURVE_ORDER = Point.Fn.ORDER;

/** A cached BIP-32 account-level secp256k1 node (e.g. m/84'/0'/0'/0). */
interface Secp256k1Account {
  privateKey: bigint;
  /** Compressed (33 bytes), the form CKDpriv hashes. */
  publicKey: Uint8Array;
  /** The same public key in affine coordinates, for public (CKDpub-style) child derivation. */
  publicAffine: Affine;
  chainCode: Uint8Array;
}

/** A derived child: its private key, and its public key in one of the two encodings. */
export interface Secp256k1Child {
  privateKey: Uint8Array;
  publicKey(compressed: boolean): Uint8Array;
}

/**
 * IL of BIP-32's child step for a non-hardened index (HMAC-SHA512 of the parent public key and the index), as a
 * scalar. BIP-32 says an index whose IL is not below n, or whose child key is 0, is invalid (probability below
 * 2^-127); refuse rather than silently skip it.
 */
function tweakOf(account: Secp256k1Account, index: number): bigint {
  return tweakWithBytes(account, index).scalar;
}

function tweakWithBytes(account: Secp256k1Account, index: number): { scalar: bigint; bytes: Uint8Array } {
  const data = new Uint8Array(37);
  data.set(account.publicKey, 0);
  new DataView(data.buffer).setUint32(33, index, false);
  const bytes = hmacSha512(account.chainCode, data).subarray(0, 32);
  const scalar = bytesToNumberBE(bytes);
  if (scalar >= CURVE_ORDER || (scalar + account.privateKey) % CURVE_ORDER === 0n)
    throw new RangeError(`BIP-32 index ${index} is invalid for this key`);
  return { scalar, bytes };
}

/** SEC 1 compression of an uncompressed key (0x04 ‖ x ‖ y): 0x02/0x03 by y's parity, then x. */
function compress(uncompressed: Uint8Array): Uint8Array {
  const out = new Uint8Array(33);
  out[0] = 0x02 | ((uncompressed[64] as number) & 1);
  out.set(uncompressed.subarray(1, 33), 1);
  return out;
}

/**
 * The children's public keys as CKDpub computes them: parent point + tweak·G, for several indices at once (one field
 * inversion for all). The tweak follows from the account's public key and chain code alone (an xpub), not from any
 * private key, so the fast variable-time multiply leaks nothing secret; a constant-time multiply by the child private
 * key costs several times as much.
 */
function secp256k1ChildPublicKeys(
  account: Secp256k1Account,
  indices: readonly number[],
  nativeTweakAdd: PublicKeyTweakAdd | undefined,
): Array<(compressed: boolean) => Uint8Array> {
  if (nativeTweakAdd !== undefined) {
    return indices.map((index) => {
      const key = nativeTweakAdd(account.publicKey, tweakWithBytes(account, index).bytes);
      return (compressed) => (compressed ? compress(key) : key);
    });
  }
  const points = addBaseMultiples(
    account.publicAffine,
    indices.map((index) => tweakOf(account, index)),
  );
  return points.map((point) => (compressed) => encodeAffine(point, compressed));
}

/** BIP-32 CKDpriv for a non-hardened index: k_i = parse256(IL) + k_par (mod n), IL from HMAC-SHA512. */
export function secp256k1ChildOf(account: Secp256k1Account, index: number): Secp256k1Child {
  const tweak = tweakOf(account, index);
  const privateKey = numberToBytesBE((tweak + account.privateKey) % CURVE_ORDER, 32);
  const [point] = addBaseMultiples(account.publicAffine, [tweak]) as [Affine];
  return { privateKey, publicKey: (compressed) => encodeAffine(point, compressed) };
}

/** Everything derived from one mnemonic, computed on first use and kept. */
class SeedKeys {
  private seed: Uint8Array | undefined;
  private root: HDKey | undefined;
  private readonly accounts = new Map<string, Secp256k1Account>();
  private solanaAccount: Ed25519Node | undefined;

  constructor(
    private readonly mnemonic: string,
    private readonly nativeTweakAdd: () => PublicKeyTweakAdd | undefined,
  ) {}

  private getSeed(): Uint8Array {
    this.seed ??= mnemonicToSeedSync(this.mnemonic);
    return this.seed;
  }

  private account(accountPath: string): Secp256k1Account {
    let account = this.accounts.get(accountPath);
    if (account === undefined) {
      this.root ??= HDKey.fromMasterSeed(this.getSeed());
      const node = this.root.derive(accountPath);
      if (node.privateKey === null || node.publicKey === null || node.chainCode === null) {
        throw new Error(`Could not derive ${accountPath}`);
      }
      account = {
        privateKey: bytesToNumberBE(node.privateKey),
        publicKey: node.publicKey,
        publicAffine: Point.fromBytes(node.publicKey).toAffine(),
        chainCode: node.chainCode,
      };
      this.accounts.set(accountPath, account);
    }
    return account;
  }

  secp256k1Child(accountPath: string, index: number): Secp256k1Child {
    return secp256k1ChildOf(this.account(accountPath), index);
  }

  secp256k1PublicKeys(accountPath: string, indices: readonly number[]) {
    return secp256k1ChildPublicKeys(this.account(accountPath), indices, this.nativeTweakAdd());
  }

  /** m/44'/501'/i'/0' from the cached m/44'/501' node. */
  solanaChild(index: number): Ed25519Node {
    if (this.solanaAccount === undefined) {
      const master = slip10Ed25519Master(this.getSeed());
      this.solanaAccount = slip10Ed25519Child(slip10Ed25519Child(master, 44), 501);
    }
    return slip10Ed25519Child(slip10Ed25519Child(this.solanaAccount, index), 0);
  }
}

function encodeSecp256k1(
  encode: 'evm' | 'tron' | 'bitcoin' | 'litecoin',
  isTest: boolean,
  testSpelling: TestAddressSpelling,
  publicKey: Secp256k1Child['publicKey'],
): string {
  if (encode === 'bitcoin' || encode === 'litecoin') {
    const address = p2wpkh(publicKey(true), utxoNetwork(encode, isTest, testSpelling[encode])).address;
    if (address === undefined) throw new Error('Could not encode a P2WPKH address');
    return address;
  }
  const account = evmAccountBytes(publicKey(false));
  return encode === 'evm' ? toChecksumAddress(account) : tronAddressFromAccount(account);
}

export function createAddressDeriver(
  seeds: {
    testMnemonic: string;
    liveMnemonic: string | undefined;
  },
  options: {
    /** How children's public keys are computed: libsecp256k1 where its addon loads (the default), or the comb. */
    curve?: 'native' | 'comb';
    /** Test-mode bech32 prefixes of the bitcoin family (default: testnet's on every chain). */
    testSpelling?: TestAddressSpelling;
  } = {},
): AddressDeriver {
  const testSpelling = options.testSpelling ?? {};
  // The addon is opened with the first derivation, not at start-up (most starts derive nothing before they serve).
  let native: PublicKeyTweakAdd | undefined | null = options.curve === 'comb' ? undefined : null;
  const nativeTweakAdd = (): PublicKeyTweakAdd | undefined => {
    if (native === null) native = loadNativeTweakAdd();
    return native;
  };
  const test = new SeedKeys(seeds.testMnemonic, nativeTweakAdd);
  const live =
    seeds.liveMnemonic === undefined ? undefined : new SeedKeys(seeds.liveMnemonic, nativeTweakAdd);

  const keysFor = (isTest: boolean): SeedKeys => {
    if (isTest) return test;
    if (live === undefined) {
      throw new AppError(
        'live_seed_missing',
        'Live payments are not enabled on this server: no live deposit seed is configured.',
      );
    }
    return live;
  };

  const deriveBatch: AddressDeriver['deriveBatch'] = (chainId, isTest, indices) => {
    for (const index of indices) assertIndex(index);
    const scheme = schemeOf(chainId, isTest);
    const keys = keysFor(isTest);
    if (scheme.kind === 'ed25519') {
      const addresses = indices.map((index) =>
        base58.encode(ed25519.getPublicKey(keys.solanaChild(index).key)),
      );
      return { addresses, publicKeys: undefined };
    }
    const points = keys.secp256k1PublicKeys(scheme.account, indices);
    return {
      addresses: points.map((publicKey) => encodeSecp256k1(scheme.encode, isTest, testSpelling, publicKey)),
      publicKeys: points.map((publicKey) => publicKey(false)),
    };
  };
  const deriveAddresses: AddressDeriver['deriveAddresses'] = (chainId, isTest, indices) =>
    deriveBatch(chainId, isTest, indices).addresses;

  return {
    hasSeed: (isTest) => isTest || live !== undefined,
    deriveAddress: (chainId, isTest, index) => deriveAddresses(chainId, isTest, [index])[0] as string,
    deriveAddresses,
    deriveBatch,

    derivePrivateKey(chainId, isTest, index) {
      assertIndex(index);
      const scheme = schemeOf(chainId, isTest);
      const keys = keysFor(isTest);
      if (scheme.kind === 'ed25519') return keys.solanaChild(index).key;
      return keys.secp256k1Child(scheme.account, index).privateKey;
    },

    derivationPath(chainId, isTest, index) {
      assertIndex(index);
      const scheme = schemeOf(chainId, isTest);
      return scheme.kind === 'ed25519' ? `m/44'/501'/${index}'/0'` : `${scheme.account}/${index}`;
    },
  };
}
