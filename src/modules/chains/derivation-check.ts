import { createHmac } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, bech32, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { publicKeyToAddress } from 'viem/accounts';
import { AppError } from '../../lib/errors.ts';
import type { AddressDeriver, TestAddressSpelling } from './derivation.ts';
import { type ChainId, getChain } from './registry.ts';

/**
 * The second, independent derivation that every deposit address must agree with before it is handed out, and the
 * check of a sweep's signing key against its deposit address. A wrong public point is an address nobody can spend
 * from: funds would be lost in silence. So this file shares no derivation or encoding code with derivation.ts and
 * addresses.ts: the account nodes from @scure/bip32's HDKey, each child's point with @noble/curves' own arithmetic
 * (not libsecp256k1 nor the comb of secp256k1-public.ts, which are what this guards), EVM accounts with
 * @noble/hashes' keccak (the first derivation uses hash-wasm's) and EVM addresses through viem, bech32 and
 * base58check written out from @scure/base and @noble/hashes, SLIP-0010 with noble's HMAC. Only the BIP-39 seed and the
 * paths (which the tests pin to published vectors) are common.
 */

export interface DerivationCheck {
  /** Throws DerivationMismatchError unless `addresses` are exactly those at `indices`. */
  /**
   * Throws DerivationMismatchError unless `addresses` are exactly those at `indices`. With the first derivation's
   * public keys (secp256k1 chains), each address is encoded again from its key and the keys are checked together
   * against the account key (checkBatch); without them, or when that fails, each address is derived again alone.
   */
  verify(
    chain: ChainId,
    isTest: boolean,
    indices: readonly number[],
    addresses: readonly string[],
    publicKeys?: readonly Uint8Array[],
  ): void;
  /** The deposit address at `index`, derived the independent way. */
  addressAt(chain: ChainId, isTest: boolean, index: number): string;
  /** The address a 32-byte private key (a secp256k1 scalar, or Solana's ed25519 seed) signs for on `chain`. */
  addressOfKey(chain: ChainId, isTest: boolean, privateKey: Uint8Array): string;
}

/** Two derivations disagree: the address must never be handed out (the payment is refused with a 503). */
export class DerivationMismatchError extends AppError {
  constructor(
    readonly detail: { chain: ChainId; isTest: boolean; index: number; derived: string; expected: string },
  ) {
    super(
      'derivation_mismatch',
      'A deposit address could not be confirmed by a second derivation, so none was handed out; try again later.',
    );
  }
}

/** A sweep's key does not sign for the deposit address it would sweep: nothing may be signed or broadcast. */
export class SignerMismatchError extends Error {
  constructor(
    readonly chain: ChainId,
    readonly depositAddress: string,
    readonly keyAddress: string,
  ) {
    super(
      `the derived signing key belongs to ${keyAddress}, not to the deposit address ${depositAddress}: nothing was signed`,
    );
  }
}

const base58check = createBase58check(sha256);
const HARDENED = 0x80000000;

type Encoding = 'evm' | 'tron' | { bech32: string } | 'solana';

/**
 * The bech32 prefixes of the bitcoin family, written out here again (not read from addresses.ts or bitcoin/): live
 * mode's, and test mode's per spelling (BIP-173; Litecoin Core's chainparams.cpp).
 */
const HRP = {
  bitcoin: { live: 'bc', test: 'tb', regtest: 'bcrt' },
  litecoin: { live: 'ltc', test: 'tltc', regtest: 'rltc' },
} as const;

function pathOf(
  chainId: ChainId,
  isTest: boolean,
  testSpelling: TestAddressSpelling,
): { account: string; encoding: Encoding } {
  const chain = getChain(chainId);
  if (chain === undefined) throw new RangeError(`Unknown chain: ${chainId}`);
  switch (chain.family) {
    case 'evm':
      return { account: "m/44'/60'/0'/0", encoding: 'evm' };
    case 'tron':
      return { account: "m/44'/195'/0'/0", encoding: 'tron' };
    case 'solana':
      return { account: "m/44'/501'", encoding: 'solana' };
    case 'bitcoin': {
      const coin = chain.id === 'litecoin' ? 'litecoin' : 'bitcoin';
      // BIP-44 coin type 1 for every test network; regtest changes the prefix only, never the key.
      if (isTest)
        return { account: "m/84'/1'/0'/0", encoding: { bech32: HRP[coin][testSpelling[coin] ?? 'test'] } };
      return {
        account: coin === 'litecoin' ? "m/84'/2'/0'/0" : "m/84'/0'/0'/0",
        encoding: { bech32: HRP[coin].live },
      };
    }
  }
}

const toHex = (bytes: Uint8Array): `0x${string}` => `0x${Buffer.from(bytes).toString('hex')}`;

const Point = secp256k1.Point;
type SecpPoint = InstanceType<typeof Point>;
/** noble's 8-bit window table for G (built once, ~100 ms): multiplications by G several times faster. */
let baseTableBuilt = false;
function precomputeBase(): void {
  if (baseTableBuilt) return;
  Point.BASE.precompute(8);
  baseTableBuilt = true;
}

function encodeSecp256k1(encoding: Exclude<Encoding, 'solana'>, point: SecpPoint): string {
  return encodeUncompressed(encoding, point.toBytes(false));
}

/** The address of an uncompressed SEC 1 key (0x04 ‖ x ‖ y) that is known to be a point of the curve. */
function encodeUncompressed(encoding: Exclude<Encoding, 'solana'>, key: Uint8Array): string {
  if (typeof encoding === 'object') {
    // P2WPKH: witness version 0 and the HASH160 of the compressed key (BIP-141, BIP-173): 0x02/0x03 by y's parity.
    const compressed = new Uint8Array(33);
    compressed[0] = 0x02 | ((key[64] as number) & 1);
    compressed.set(key.subarray(1, 33), 1);
    const program = ripemd160(sha256(compressed));
    return bech32.encode(encoding.bech32, [0, ...bech32.toWords(program)]);
  }
  if (encoding === 'evm') return publicKeyToAddress(toHex(key));
  // Tron: 0x41 and the same 20 bytes as the EVM account (the last 20 of keccak-256 of x ‖ y), in base58check.
  const account = keccak_256(key.subarray(1)).subarray(12);
  return base58check.encode(Uint8Array.from([0x41, ...account]));
}

/**
 * Whether `address` is the address of the uncompressed key `key` (known to be on the curve). An EVM address is
 * compared by its 20 bytes, without its EIP-55 letter case: the case only guards against typing errors, a wrong one
 * sends no funds astray (wallets refuse such an address), and checking it would cost a second keccak an address:
 * checkBatch checks the case of one address a batch, and addresses.test.ts holds the first derivation's EIP-55 to the
 * specification's examples.
 */
function sameAccount(encoding: Exclude<Encoding, 'solana'>, key: Uint8Array, address: string): boolean {
  if (encoding !== 'evm') return encodeUncompressed(encoding, key) === address;
  const account = keccak_256(key.subarray(1)).subarray(12);
  return (
    address.length === 42 &&
    address.startsWith('0x') &&
    address.slice(2).toLowerCase() === Buffer.from(account).toString('hex')
  );
}

interface Slip10Node {
  key: Uint8Array;
  chainCode: Uint8Array;
}

function slip10Child(parent: Slip10Node, index: number): Slip10Node {
  const data = new Uint8Array(37);
  data.set(parent.key, 1);
  new DataView(data.buffer).setUint32(33, (index | HARDENED) >>> 0, false);
  const digest = hmac(sha512, parent.chainCode, data);
  return { key: digest.slice(0, 32), chainCode: digest.slice(32) };
}

export function createDerivationCheck(
  seeds: {
    testMnemonic: string;
    liveMnemonic: string | undefined;
  },
  options: {
    /** Test-mode bech32 prefixes of the bitcoin family: the same the first derivation is given. */
    testSpelling?: TestAddressSpelling;
  } = {},
): DerivationCheck {
  const testSpelling = options.testSpelling ?? {};
  const seedCache = new Map<boolean, Uint8Array>();
  /** Account-level nodes (e.g. m/84'/0'/0'/0) as @scure/bip32 derives them: their public point and chain code. */
  const accounts = new Map<
    string,
    { publicKey: Uint8Array; point: SecpPoint; chainCode: Uint8Array; multiples: SecpPoint[] }
  >();
  const solanaAccounts = new Map<boolean, Slip10Node>();

  function seedOf(isTest: boolean): Uint8Array {
    let seed = seedCache.get(isTest);
    if (seed === undefined) {
      const mnemonic = isTest ? seeds.testMnemonic : seeds.liveMnemonic;
      if (mnemonic === undefined) throw new Error('no live deposit seed is configured');
      seed = mnemonicToSeedSync(mnemonic);
      seedCache.set(isTest, seed);
    }
    return seed;
  }

  function accountOf(isTest: boolean, path: string) {
    precomputeBase();
    const key = `${isTest}:${path}`;
    let account = accounts.get(key);
    if (account === undefined) {
      const node = HDKey.fromExtendedKey(HDKey.fromMasterSeed(seedOf(isTest)).derive(path).publicExtendedKey);
      if (node.publicKey === null || node.chainCode === null) throw new Error(`Could not derive ${path}`);
      const point = Point.fromBytes(node.publicKey);
      account = {
        publicKey: node.publicKey,
        point,
        chainCode: node.chainCode,
        multiples: [Point.ZERO, point],
      };
      accounts.set(key, account);
    }
    return account;
  }

  /**
   * BIP-32 CKDpub of a non-hardened child: parent point + IL·G with noble's arithmetic and its precomputed base
   * table (the first derivation uses the comb of secp256k1-public.ts; both take HMAC-SHA512 from OpenSSL). HDKey's
   * own deriveChild would parse the parent point from its bytes at every child and hand back compressed bytes that
   * EVM and Tron addresses would decompress again: two square roots an address, ~3x the cost, for the same math.
   */
  function childPoint(isTest: boolean, path: string, index: number): SecpPoint {
    const account = accountOf(isTest, path);
    // The tweak follows from the extended public key alone: variable-time multiplication leaks nothing secret.
    const child = account.point.add(Point.BASE.multiplyUnsafe(tweakOf(account, index)));
    if (child.is0()) throw new RangeError(`BIP-32 index ${index} is invalid for this key`);
    return child;
  }

  function tweakOf(account: { publicKey: Uint8Array; chainCode: Uint8Array }, index: number): bigint {
    const data = new Uint8Array(37);
    data.set(account.publicKey, 0);
    new DataView(data.buffer).setUint32(33, index, false);
    const digest = createHmac('sha512', account.chainCode).update(data).digest();
    const tweak = bytesToNumberBE(digest.subarray(0, 32));
    if (tweak >= Point.Fn.ORDER) throw new RangeError(`BIP-32 index ${index} is invalid for this key`);
    return tweak;
  }

  /**
   * The first derivation's points, checked in one multiplication a batch: each child is parent + t_i·G (CKDpub), so
   * their sum must be k·parent + (Σ t_i)·G. A wrong point changes the sum; wrong points that cancel exactly would
   * take a bug that knows the right ones. Each key must also be a point of the curve, and each address is encoded
   * from its key here, by the independent encoders. A failed batch is then traced to its index one by one.
   */
  function checkBatch(
    chain: ChainId,
    isTest: boolean,
    indices: readonly number[],
    addresses: readonly string[],
    publicKeys: readonly Uint8Array[],
  ): boolean {
    const { account: path, encoding } = pathOf(chain, isTest, testSpelling);
    if (encoding === 'solana' || publicKeys.length !== indices.length) return false;
    const account = accountOf(isTest, path);
    let sum = Point.ZERO;
    let tweaks = 0n;
    for (let n = 0; n < indices.length; n++) {
      const key = publicKeys[n] as Uint8Array;
      let point: SecpPoint;
      try {
        point = Point.fromBytes(key); // refuses bytes that are no point of the curve
      } catch {
        return false;
      }
      if (key.length !== 65 || !sameAccount(encoding, key, addresses[n] as string)) return false;
      sum = sum.add(point);
      tweaks += tweakOf(account, indices[n] as number);
    }
    // The letter case of one EVM address a batch, through viem's EIP-55: a systematic error in the first
    // derivation's checksum shows at once, for a tenth of the cost of checking every one.
    const [firstKey, firstAddress] = [publicKeys[0], addresses[0]];
    if (
      encoding === 'evm' &&
      firstKey !== undefined &&
      encodeUncompressed(encoding, firstKey) !== firstAddress
    ) {
      return false;
    }
    tweaks %= Point.Fn.ORDER;
    let expected = parentMultiple(account, indices.length);
    if (tweaks !== 0n) expected = expected.add(Point.BASE.multiplyUnsafe(tweaks));
    return sum.equals(expected);
  }

  /** k·parent, from the account's multiples kept as they are first needed (a batch is a few dozen at most). */
  function parentMultiple(account: { point: SecpPoint; multiples: SecpPoint[] }, k: number): SecpPoint {
    const { multiples } = account;
    while (multiples.length <= k) multiples.push((multiples.at(-1) as SecpPoint).add(account.point));
    return multiples[k] as SecpPoint;
  }

  function solanaAccount(isTest: boolean): Slip10Node {
    let account = solanaAccounts.get(isTest);
    if (account === undefined) {
      const digest = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seedOf(isTest));
      const master = { key: digest.slice(0, 32), chainCode: digest.slice(32) };
      account = slip10Child(slip10Child(master, 44), 501);
      solanaAccounts.set(isTest, account);
    }
    return account;
  }

  function addressAt(chain: ChainId, isTest: boolean, index: number): string {
    const { account, encoding } = pathOf(chain, isTest, testSpelling);
    if (encoding === 'solana') {
      const child = slip10Child(slip10Child(solanaAccount(isTest), index), 0);
      return base58.encode(ed25519.getPublicKey(child.key));
    }
    return encodeSecp256k1(encoding, childPoint(isTest, account, index));
  }

  return {
    addressAt,
    verify(chain, isTest, indices, addresses, publicKeys) {
      if (addresses.length !== indices.length) {
        throw new DerivationMismatchError({
          chain,
          isTest,
          index: indices[0] ?? -1,
          derived: `${addresses.length} addresses`,
          expected: `${indices.length} addresses`,
        });
      }
      if (publicKeys !== undefined && checkBatch(chain, isTest, indices, addresses, publicKeys)) return;
      indices.forEach((index, n) => {
        const derived = addresses[n] as string;
        const expected = addressAt(chain, isTest, index);
        if (derived !== expected) {
          throw new DerivationMismatchError({ chain, isTest, index, derived, expected });
        }
      });
    },
    addressOfKey(chain, isTest, privateKey) {
      const { encoding } = pathOf(chain, isTest, testSpelling);
      if (encoding === 'solana') return base58.encode(ed25519.getPublicKey(privateKey));
      precomputeBase();
      return encodeSecp256k1(encoding, Point.BASE.multiply(bytesToNumberBE(privateKey)));
    },
  };
}

/** The private keys that sign sweeps, each checked against the deposit address it is to sweep. */
export interface DepositSigningKeys {
  /**
   * The key of `address`, the deposit address at `index`: derived, then its address computed from the key itself by
   * the independent path. Throws SignerMismatchError (nothing may be signed) when they differ.
   */
  keyFor(chain: ChainId, isTest: boolean, index: number, address: string): Uint8Array;
}

/**
 * How a chain compares two spellings of one address: EVM and bech32 ignore case, base58 does not. In test mode a
 * bitcoin-family address also has two prefixes for one script (tb/bcrt, tltc/rltc): a payment created while its chain
 * was spelled one way keeps that address when the test network setting changes, and must still sweep. Live mode has
 * one prefix (bc, ltc).
 */
function sameAddress(chain: ChainId, isTest: boolean, a: string, b: string): boolean {
  const info = getChain(chain);
  if (info?.family === 'evm') return a.toLowerCase() === b.toLowerCase();
  if (info?.family !== 'bitcoin') return a === b;
  const [lowerA, lowerB] = [a.toLowerCase(), b.toLowerCase()];
  if (lowerA === lowerB) return true;
  if (!isTest) return false;
  const hrps: readonly string[] =
    info.id === 'litecoin'
      ? [HRP.litecoin.test, HRP.litecoin.regtest]
      : [HRP.bitcoin.test, HRP.bitcoin.regtest];
  const [decodedA, decodedB] = [lowerA, lowerB].map((text) =>
    // Deposit addresses are P2WPKH, witness version 0: bech32, not bech32m.
    text.includes('1') ? bech32.decodeUnsafe(text as `${string}1${string}`, 90) : undefined,
  );
  return (
    decodedA !== undefined &&
    decodedB !== undefined &&
    hrps.includes(decodedA.prefix) &&
    hrps.includes(decodedB.prefix) &&
    decodedA.words.length === decodedB.words.length &&
    decodedA.words.every((word, n) => word === decodedB.words[n])
  );
}

export function createDepositSigningKeys(
  deriver: Pick<AddressDeriver, 'derivePrivateKey'>,
  check: Pick<DerivationCheck, 'addressOfKey'>,
): DepositSigningKeys {
  return {
    keyFor(chain, isTest, index, address) {
      const key = deriver.derivePrivateKey(chain, isTest, index);
      const keyAddress = check.addressOfKey(chain, isTest, key);
      if (!sameAddress(chain, isTest, keyAddress, address))
        throw new SignerMismatchError(chain, address, keyAddress);
      return key;
    },
  };
}
