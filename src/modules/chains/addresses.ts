import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { base58, createBase58check } from '@scure/base';
import { Address as BtcAddress, NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import type { IHasher } from 'hash-wasm';
import { commonJsExports } from '../../lib/commonjs.ts';
import { type ChainId, getChain } from './registry.ts';

/**
 * Address formats of every chain family: encoding (used by derivation) and validation (used for payout wallets).
 * A validator answers only true or false; it never throws on any input.
 */

type BTC_NETWORK = typeof NETWORK;

const base58check = createBase58check(sha256);

/** Litecoin's parameters (chainparams.cpp): bech32 "ltc"/"tltc", P2PKH L…/m…, P2SH M…/Q…. */
const LITECOIN: BTC_NETWORK = { bech32: 'ltc', pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };
const LITECOIN_TEST: BTC_NETWORK = { bech32: 'tltc', pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef };
/** Regtest differs from testnet only in the bech32 prefix (bcrt, rltc); its base58 bytes are testnet's. */
const BITCOIN_REGTEST: BTC_NETWORK = { ...TEST_NETWORK, bech32: 'bcrt' };
const LITECOIN_REGTEST: BTC_NETWORK = { ...LITECOIN_TEST, bech32: 'rltc' };
/**
 * Litecoin still accepts its old P2SH version bytes (3… on mainnet, 2… on testnet: SCRIPT_ADDRESS beside
 * SCRIPT_ADDRESS2 in chainparams.cpp), so payouts to them are valid too.
 */
const LITECOIN_LEGACY_P2SH: BTC_NETWORK = { ...LITECOIN, scriptHash: 0x05 };
const LITECOIN_TEST_LEGACY_P2SH: BTC_NETWORK = { ...LITECOIN_TEST, scriptHash: 0xc4 };

/**
 * The network parameters of a UTXO chain in a mode (bitcoin testnet/testnet4/signet share "tb"); in test mode with
 * the `regtest` spelling, regtest's bcrt/rltc (a regtest wallet refuses the testnet spelling of the same script).
 */
export function utxoNetwork(
  chainId: 'bitcoin' | 'litecoin',
  isTest: boolean,
  testSpelling: 'test' | 'regtest' = 'test',
): BTC_NETWORK {
  const regtest = isTest && testSpelling === 'regtest';
  if (chainId === 'bitcoin') return regtest ? BITCOIN_REGTEST : isTest ? TEST_NETWORK : NETWORK;
  return regtest ? LITECOIN_REGTEST : isTest ? LITECOIN_TEST : LITECOIN;
}

const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/**
 * Keccak-256 of a public key, for its account: hash-wasm's WebAssembly build once it has loaded (about 1.4 µs for a
 * key, against about 8 µs for @noble/hashes in JavaScript), noble's until then; the same bytes either way. Deriving
 * deposit addresses is most of a payment creation's CPU.
 */
let wasmKeccak: IHasher | undefined;
let loading: Promise<boolean> | undefined;

/**
 * Starts loading the WebAssembly keccak (at the first hash, not at start-up); settles once it is in use or failed.
 * The module itself is imported here too: hash-wasm's index carries every algorithm's WebAssembly (260 kB of the
 * bundle), which start-up should not compile.
 */
export function fastKeccakLoaded(): Promise<boolean> {
  loading ??= import('hash-wasm')
    .then((namespace) => commonJsExports(namespace).createKeccak(256))
    .then(
      (hasher) => {
        wasmKeccak = hasher;
        return true;
      },
      () => false,
    );
  return loading;
}

function keccak256(data: Uint8Array): Uint8Array {
  if (wasmKeccak === undefined) {
    void fastKeccakLoaded();
    return keccak_256(data);
  }
  wasmKeccak.init();
  wasmKeccak.update(data);
  return wasmKeccak.digest('binary');
}

/**
 * EIP-55 mixed-case checksum encoding of a 20-byte address (what viem's getAddress gives): a letter digit is upper-case
 * when the matching nibble of keccak256 of the lower-case hex digits (as ASCII) is 8 or more. Runs for every address
 * derived and for every transfer an EVM scan finds, so over the fast keccak above.
 */
export function toChecksumAddress(address: Uint8Array | string): string {
  const lower = typeof address === 'string' ? address.replace(/^0x/i, '').toLowerCase() : toHex(address);
  if (!/^[0-9a-f]{40}$/.test(lower)) throw new RangeError('An EVM address is 20 bytes');
  const hash = keccak256(Buffer.from(lower, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const code = lower.charCodeAt(i);
    const byte = hash[i >> 1] ?? 0;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 15;
    // 'a'..'f' are 97..102; upper-case is 32 below.
    out += String.fromCharCode(code >= 97 && nibble >= 8 ? code - 32 : code);
  }
  return out;
}

/** The 20-byte account of an uncompressed secp256k1 public key (65 bytes, 0x04 prefix): keccak256(x‖y)[12:]. */
export function evmAccountBytes(uncompressedPublicKey: Uint8Array): Uint8Array {
  if (uncompressedPublicKey.length !== 65 || uncompressedPublicKey[0] !== 0x04) {
    throw new RangeError('Expected a 65-byte uncompressed public key');
  }
  return keccak256(uncompressedPublicKey.subarray(1)).subarray(12);
}

/** A Tron address: base58check of 0x41 followed by the same 20 bytes as the EVM account. */
export function tronAddressFromAccount(account: Uint8Array): string {
  if (account.length !== 20) throw new RangeError('A Tron account is 20 bytes');
  const payload = new Uint8Array(21);
  payload[0] = 0x41;
  payload.set(account, 1);
  return base58check.encode(payload);
}

/** The 20-byte account inside a Tron address, or null when it is not one. */
export function tronAccountBytes(address: string): Uint8Array | null {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address)) return null;
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && payload[0] === 0x41 ? payload.subarray(1) : null;
  } catch {
    return null;
  }
}

const evmPattern = /^0x[0-9a-fA-F]{40}$/;

export function isValidEvmAddress(address: string): boolean {
  if (!evmPattern.test(address)) return false;
  const body = address.slice(2);
  // Sending to the zero address burns the funds; no wallet owns it.
  if (/^0{40}$/.test(body)) return false;
  const allLower = body === body.toLowerCase();
  const allUpper = body === body.toUpperCase();
  // Mixed case carries an EIP-55 checksum, which must match; single-case addresses carry none.
  return allLower || allUpper || toChecksumAddress(body) === address;
}

function decodesOn(address: string, networks: BTC_NETWORK[]): boolean {
  for (const network of networks) {
    try {
      BtcAddress(network).decode(address);
      return true;
    } catch {
      // Try the next parameter set.
    }
  }
  return false;
}

/**
 * Bech32 (v0) / bech32m (v1+) segwit addresses and base58check P2PKH/P2SH of the right network. Test mode takes the
 * regtest spelling beside testnet's (tb1/bcrt1, tltc1/rltc1; the base58 bytes are the same): a merchant whose test
 * node is regtest pays out to its wallet's own addresses, whichever spelling svc's deposits use. Live mode takes
 * mainnet's alone.
 */
function isValidUtxoAddress(chainId: 'bitcoin' | 'litecoin', isTest: boolean, address: string): boolean {
  if (address.length < 14 || address.length > 90 || address.trim() !== address) return false;
  // BIP-173 allows an all-upper-case bech32 string (QR codes); mixed case is invalid.
  const candidate =
    address === address.toUpperCase() && /^[A-Z]+1/.test(address) ? address.toLowerCase() : address;
  const networks =
    chainId === 'bitcoin'
      ? isTest
        ? [TEST_NETWORK, BITCOIN_REGTEST]
        : [NETWORK]
      : isTest
        ? [LITECOIN_TEST, LITECOIN_TEST_LEGACY_P2SH, LITECOIN_REGTEST]
        : [LITECOIN, LITECOIN_LEGACY_P2SH];
  return decodesOn(candidate, networks);
}

/** A base58 string of exactly 32 bytes (an ed25519 public key or program address), not all zeros. */
function isValidSolanaAddress(address: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address)) return false;
  try {
    const bytes = base58.decode(address);
    return bytes.length === 32 && bytes.some((byte) => byte !== 0);
  } catch {
    return false;
  }
}

function isValidTronAddress(address: string): boolean {
  return tronAccountBytes(address)?.some((byte) => byte !== 0) ?? false;
}

/**
 * Whether `address` is a valid address to pay out to on `chainId` in this mode. EVM, Solana and Tron addresses look
 * the same on mainnet and test networks; Bitcoin and Litecoin must be of the mode's network.
 */
export function validateAddress(chainId: ChainId, isTest: boolean, address: string): boolean {
  if (typeof address !== 'string') return false;
  const chain = getChain(chainId);
  if (chain === undefined) return false;
  if (chain.id === 'bitcoin' || chain.id === 'litecoin') return isValidUtxoAddress(chain.id, isTest, address);
  switch (chain.family) {
    case 'evm':
      return isValidEvmAddress(address);
    case 'bitcoin':
      return false;
    case 'solana':
      return isValidSolanaAddress(address);
    case 'tron':
      return isValidTronAddress(address);
  }
}
