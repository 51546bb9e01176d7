import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { base58, bech32, createBase58check } from '@scure/base';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { publicKeyToAddress } from 'viem/accounts';
import { AppError } from '../../lib/errors.ts';
import type { AddressDeriver } from './derivation.ts';
import { type ChainId, getChain } from './registry.ts';

/**
 * The second, independent derivation that every deposit address must agree with before it is handed out, and the
 * check of a sweep's signing key against its deposit address. A wrong public point is an address nobody can spend
 * from: funds would be lost in silence. So this file shares no derivation or encoding code with derivation.ts and
 * addresses.ts: BIP-32 through @scure/bip32's HDKey (not the comb of secp256k1-public.ts), EVM addresses through
 * viem, bech32 and base58check written out from @scure/base and @noble/hashes, SLIP-0010 with noble's HMAC (not
 * node:crypto's). Only the BIP-39 seed and the paths (which the tests pin to published vectors) are common.
 */

export interface DerivationCheck {
  /** Throws DerivationMismatchError unless `addresses` are exactly those at `indices`. */
  verify(chain: ChainId, isTest: boolean, indices: readonly number[], addresses: readonly string[]): void;
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

function pathOf(chainId: ChainId, isTest: boolean): { account: string; encoding: Encoding } {
  const chain = getChain(chainId);
  if (chain === undefined) throw new RangeError(`Unknown chain: ${chainId}`);
  switch (chain.family) {
    case 'evm':
      return { account: "m/44'/60'/0'/0", encoding: 'evm' };
    case 'tron':
      return { account: "m/44'/195'/0'/0", encoding: 'tron' };
    case 'solana':
      return { account: "m/44'/501'", encoding: 'solana' };
    case 'bitcoin':
      if (chain.id === 'litecoin') {
        return isTest
          ? { account: "m/84'/1'/0'/0", encoding: { bech32: 'tltc' } }
          : { account: "m/84'/2'/0'/0", encoding: { bech32: 'ltc' } };
      }
      return isTest
        ? { account: "m/84'/1'/0'/0", encoding: { bech32: 'tb' } }
        : { account: "m/84'/0'/0'/0", encoding: { bech32: 'bc' } };
  }
}

const toHex = (bytes: Uint8Array): `0x${string}` => `0x${Buffer.from(bytes).toString('hex')}`;

function encodeSecp256k1(encoding: Exclude<Encoding, 'solana'>, compressed: Uint8Array): string {
  if (typeof encoding === 'object') {
    // P2WPKH: witness version 0 and the HASH160 of the compressed key (BIP-141, BIP-173).
    const program = ripemd160(sha256(compressed));
    return bech32.encode(encoding.bech32, [0, ...bech32.toWords(program)]);
  }
  const uncompressed = secp256k1.Point.fromBytes(compressed).toBytes(false);
  const evm = publicKeyToAddress(toHex(uncompressed));
  if (encoding === 'evm') return evm;
  const account = Buffer.from(evm.slice(2), 'hex');
  return base58check.encode(Uint8Array.from([0x41, ...account]));
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

export function createDerivationCheck(seeds: {
  testMnemonic: string;
  liveMnemonic: string | undefined;
}): DerivationCheck {
  const seedCache = new Map<boolean, Uint8Array>();
  const accounts = new Map<string, HDKey>();
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

  /** The account node as an extended public key alone: children are derived the public way (CKDpub). */
  function accountOf(isTest: boolean, path: string): HDKey {
    const key = `${isTest}:${path}`;
    let account = accounts.get(key);
    if (account === undefined) {
      const node = HDKey.fromMasterSeed(seedOf(isTest)).derive(path);
      account = HDKey.fromExtendedKey(node.publicExtendedKey);
      accounts.set(key, account);
    }
    return account;
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
    const { account, encoding } = pathOf(chain, isTest);
    if (encoding === 'solana') {
      const child = slip10Child(slip10Child(solanaAccount(isTest), index), 0);
      return base58.encode(ed25519.getPublicKey(child.key));
    }
    const publicKey = accountOf(isTest, account).deriveChild(index).publicKey;
    if (publicKey === null) throw new Error(`no public key at ${account}/${index}`);
    return encodeSecp256k1(encoding, publicKey);
  }

  return {
    addressAt,
    verify(chain, isTest, indices, addresses) {
      if (addresses.length !== indices.length) {
        throw new DerivationMismatchError({
          chain,
          isTest,
          index: indices[0] ?? -1,
          derived: `${addresses.length} addresses`,
          expected: `${indices.length} addresses`,
        });
      }
      indices.forEach((index, n) => {
        const derived = addresses[n] as string;
        const expected = addressAt(chain, isTest, index);
        if (derived !== expected) {
          throw new DerivationMismatchError({ chain, isTest, index, derived, expected });
        }
      });
    },
    addressOfKey(chain, isTest, privateKey) {
      const { encoding } = pathOf(chain, isTest);
      if (encoding === 'solana') return base58.encode(ed25519.getPublicKey(privateKey));
      return encodeSecp256k1(encoding, secp256k1.getPublicKey(privateKey, true));
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

/** How a chain compares two spellings of one address: EVM and bech32 ignore case, base58 does not. */
function sameAddress(chain: ChainId, a: string, b: string): boolean {
  const family = getChain(chain)?.family;
  return family === 'evm' || family === 'bitcoin' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export function createDepositSigningKeys(
  deriver: Pick<AddressDeriver, 'derivePrivateKey'>,
  check: Pick<DerivationCheck, 'addressOfKey'>,
): DepositSigningKeys {
  return {
    keyFor(chain, isTest, index, address) {
      const key = deriver.derivePrivateKey(chain, isTest, index);
      const keyAddress = check.addressOfKey(chain, isTest, key);
      if (!sameAddress(chain, keyAddress, address)) throw new SignerMismatchError(chain, address, keyAddress);
      return key;
    },
  };
}
