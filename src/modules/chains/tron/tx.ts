import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { tronAccountBytes, tronAddressFromAccount } from '../addresses.ts';

/**
 * Tron transactions built and signed here, offline: keys never leave svc.
 *
 * Why @noble and a hand-written protobuf rather than tronweb: the five contracts svc sends (TransferContract,
 * TriggerSmartContract for a TRC-20 `transfer`, DelegateResourceContract, UnDelegateResourceContract) serialise to a
 * few dozen bytes of protobuf, while tronweb brings ethers, axios and google-protobuf (several MB) for the same
 * bytes. @noble/curves and @noble/hashes already sign EVM and Bitcoin sweeps. tx.test.ts checks the encoding against
 * raw_data_hex values published in Tron's API documentation.
 *
 * A transaction is `raw_data` (protocol.Transaction.raw) in java-tron's JSON form, hex addresses (41…); its id is
 * sha256 of raw_data's protobuf bytes, and its signature secp256k1 over that id, as r ‖ s ‖ v (v = 27 + recovery).
 */

export type HexAddress = string;

interface TransferValue {
  owner_address: HexAddress;
  to_address: HexAddress;
  amount: number;
}
interface TriggerValue {
  owner_address: HexAddress;
  contract_address: HexAddress;
  data: string;
  call_value?: number;
}
interface DelegateValue {
  owner_address: HexAddress;
  receiver_address: HexAddress;
  balance: number;
  /** Omitted for BANDWIDTH (protobuf's zero value). */
  resource?: 'ENERGY' | 'BANDWIDTH';
  lock?: boolean;
  lock_period?: number;
}

export type TronContract =
  | { type: 'TransferContract'; parameter: { type_url: string; value: TransferValue } }
  | { type: 'TriggerSmartContract'; parameter: { type_url: string; value: TriggerValue } }
  | { type: 'DelegateResourceContract'; parameter: { type_url: string; value: DelegateValue } }
  | { type: 'UnDelegateResourceContract'; parameter: { type_url: string; value: DelegateValue } };

export interface TronRawData {
  contract: TronContract[];
  ref_block_bytes: string;
  ref_block_hash: string;
  expiration: number;
  timestamp: number;
  fee_limit?: number;
  /** Memo bytes, hex. */
  data?: string;
}

export interface SignedTronTransaction {
  txID: string;
  raw_data: TronRawData;
  raw_data_hex: string;
  signature: string[];
}

/** protocol.Transaction.Contract.ContractType numbers (Tron.proto). */
const CONTRACT_TYPES = {
  TransferContract: 1,
  TriggerSmartContract: 31,
  DelegateResourceContract: 57,
  UnDelegateResourceContract: 58,
} as const;

// --- a minimal protobuf writer: varints, and length-delimited bytes; zero values omitted as proto3 does ---

class Writer {
  private readonly chunks: number[] = [];
  varint(value: bigint): void {
    if (value < 0n) value &= (1n << 64n) - 1n; // int64 negatives are ten-byte two's complement
    while (value > 0x7fn) {
      this.chunks.push(Number(value & 0x7fn) | 0x80);
      value >>= 7n;
    }
    this.chunks.push(Number(value));
  }
  int(field: number, value: number | bigint | undefined): void {
    if (value === undefined || BigInt(value) === 0n) return;
    this.varint(BigInt((field << 3) | 0));
    this.varint(BigInt(value));
  }
  bytes(field: number, value: Uint8Array | undefined): void {
    if (value === undefined || value.length === 0) return;
    this.varint(BigInt((field << 3) | 2));
    this.varint(BigInt(value.length));
    for (const byte of value) this.chunks.push(byte);
  }
  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}

function hexBytes(hex: string | undefined, what: string): Uint8Array | undefined {
  if (hex === undefined || hex === '') return undefined;
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) throw new Error(`${what}: "${hex}" is not hex`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

function safe(value: number | undefined, what: string): number | undefined {
  if (value !== undefined && !Number.isSafeInteger(value))
    throw new Error(`${what}: ${value} is not an exact integer`);
  return value;
}

function encodeValue(contract: TronContract): Uint8Array {
  const w = new Writer();
  switch (contract.type) {
    case 'TransferContract': {
      const v = contract.parameter.value;
      w.bytes(1, hexBytes(v.owner_address, 'owner_address'));
      w.bytes(2, hexBytes(v.to_address, 'to_address'));
      w.int(3, safe(v.amount, 'amount'));
      break;
    }
    case 'TriggerSmartContract': {
      const v = contract.parameter.value;
      w.bytes(1, hexBytes(v.owner_address, 'owner_address'));
      w.bytes(2, hexBytes(v.contract_address, 'contract_address'));
      w.int(3, safe(v.call_value, 'call_value'));
      w.bytes(4, hexBytes(v.data, 'data'));
      break;
    }
    case 'DelegateResourceContract':
    case 'UnDelegateResourceContract': {
      const v = contract.parameter.value;
      w.bytes(1, hexBytes(v.owner_address, 'owner_address'));
      w.int(2, v.resource === 'ENERGY' ? 1 : 0);
      w.int(3, safe(v.balance, 'balance'));
      w.bytes(4, hexBytes(v.receiver_address, 'receiver_address'));
      if (contract.type === 'DelegateResourceContract') {
        w.int(5, v.lock === true ? 1 : 0);
        w.int(6, safe(v.lock_period, 'lock_period'));
      }
      break;
    }
  }
  return w.finish();
}

/** protocol.Transaction.raw as protobuf bytes (fields in number order, as java-tron writes them). */
export function encodeRawData(raw: TronRawData): Uint8Array {
  const w = new Writer();
  w.bytes(1, hexBytes(raw.ref_block_bytes, 'ref_block_bytes'));
  w.bytes(4, hexBytes(raw.ref_block_hash, 'ref_block_hash'));
  w.int(8, safe(raw.expiration, 'expiration'));
  w.bytes(10, hexBytes(raw.data, 'data'));
  for (const contract of raw.contract) {
    const type = CONTRACT_TYPES[contract.type];
    if (type === undefined) throw new Error(`contract type ${String(contract.type)} is not built by svc`);
    const any = new Writer();
    any.bytes(1, new TextEncoder().encode(contract.parameter.type_url));
    any.bytes(2, encodeValue(contract));
    const c = new Writer();
    c.int(1, type);
    c.bytes(2, any.finish());
    w.bytes(11, c.finish());
  }
  w.int(14, safe(raw.timestamp, 'timestamp'));
  w.int(18, safe(raw.fee_limit, 'fee_limit'));
  return w.finish();
}

export const typeUrl = (type: TronContract['type']): string => `type.googleapis.com/protocol.${type}`;

/** The transaction id: sha256 of raw_data's bytes, hex. */
export function txIdOf(raw: TronRawData): string {
  return Buffer.from(sha256(encodeRawData(raw))).toString('hex');
}

/** Tron's hex form of a base58 address (41 ‖ 20 bytes), or throws. */
export function hexAddress(address: string): HexAddress {
  if (/^41[0-9a-fA-F]{40}$/.test(address)) return address.toLowerCase();
  const account = tronAccountBytes(address);
  if (account === null) throw new Error(`"${address}" is not a Tron address`);
  return `41${Buffer.from(account).toString('hex')}`;
}

/** The base58 (T…) form of a hex address (41 ‖ 20 bytes, or the bare 20 bytes of an event log). */
export function base58Address(hex: string): string {
  const bare = hex.length === 42 ? hex.slice(2) : hex;
  return tronAddressFromAccount(Uint8Array.from(Buffer.from(bare, 'hex')));
}

/** The base58 address of a private key (41 ‖ the last 20 bytes of keccak-256 of the public key's x ‖ y). */
export function addressOfKey(privateKey: Uint8Array): string {
  const publicKey = secp256k1.getPublicKey(privateKey, false);
  return tronAddressFromAccount(keccak_256(publicKey.subarray(1)).subarray(12));
}

/** Signs raw_data: the same raw_data gives the same txID, and the signature only needs the owner's key. */
export function signTransaction(raw: TronRawData, privateKey: Uint8Array): SignedTronTransaction {
  const bytes = encodeRawData(raw);
  const id = sha256(bytes);
  const recovered = secp256k1.sign(id, privateKey, { prehash: false, format: 'recovered' });
  // noble writes recovery ‖ r ‖ s; Tron expects r ‖ s ‖ v with v = 27 + recovery.
  const signature = new Uint8Array(65);
  signature.set(recovered.subarray(1), 0);
  signature[64] = 27 + (recovered[0] ?? 0);
  return {
    txID: Buffer.from(id).toString('hex'),
    raw_data: raw,
    raw_data_hex: Buffer.from(bytes).toString('hex'),
    signature: [Buffer.from(signature).toString('hex')],
  };
}

/** The base58 address whose key made `signatureHex` over `txId`, or null when it is not a valid signature. */
export function recoverSigner(txId: string, signatureHex: string): string | null {
  if (!/^[0-9a-fA-F]{130}$/.test(signatureHex) || !/^[0-9a-fA-F]{64}$/.test(txId)) return null;
  const signature = Uint8Array.from(Buffer.from(signatureHex, 'hex'));
  const v = signature[64] ?? 0;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery > 3) return null;
  const recovered = new Uint8Array(65);
  recovered[0] = recovery;
  recovered.set(signature.subarray(0, 64), 1);
  try {
    const publicKey = secp256k1.recoverPublicKey(recovered, Buffer.from(txId, 'hex'), { prehash: false });
    const point = secp256k1.Point.fromBytes(publicKey).toBytes(false);
    return tronAddressFromAccount(keccak_256(point.subarray(1)).subarray(12));
  } catch {
    return null;
  }
}

/** A block's reference for raw_data: the 2 low bytes of its number and bytes 8–16 of its id (java-tron's rule). */
export function blockReference(block: { number: number; blockID: string }): {
  ref_block_bytes: string;
  ref_block_hash: string;
} {
  return {
    ref_block_bytes: (block.number & 0xffff).toString(16).padStart(4, '0'),
    ref_block_hash: block.blockID.slice(16, 32),
  };
}

/** The calldata of a TRC-20 `transfer(to, amount)`: selector a9059cbb, the 20-byte address and the amount, padded. */
export function trc20TransferData(to: string, amount: bigint): string {
  if (amount < 0n || amount >= 1n << 256n) throw new Error('amount out of range');
  return `a9059cbb${hexAddress(to).slice(2).padStart(64, '0')}${amount.toString(16).padStart(64, '0')}`;
}
