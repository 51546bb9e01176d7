import { createHash, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { ChainFamily } from '../registry.ts';

/**
 * TEST MODE ONLY: hashes of the simulated chains. They are well-formed for their chain (so clients that check the
 * shape accept them) but point at nothing: no explorer knows them. Transaction hashes: EVM `0x` + 64 hex, Bitcoin /
 * Litecoin / Tron 64 hex, Solana a base58 64-byte signature. Block hashes: the same, 32 bytes for Solana.
 */

function format(family: ChainFamily, bytes: Uint8Array, kind: 'tx' | 'block'): string {
  switch (family) {
    case 'evm':
      return `0x${Buffer.from(bytes.subarray(0, 32)).toString('hex')}`;
    case 'solana':
      return base58.encode(kind === 'tx' ? bytes : bytes.subarray(0, 32));
    default:
      return Buffer.from(bytes.subarray(0, 32)).toString('hex');
  }
}

/** 64 bytes derived from `seed`, so that the same input always gives the same hash. */
function digest(seed: string): Uint8Array {
  const first = createHash('sha256').update(`svc-sim:${seed}:0`).digest();
  const second = createHash('sha256').update(`svc-sim:${seed}:1`).digest();
  return new Uint8Array(Buffer.concat([first, second]));
}

export function simulatedTxHash(family: ChainFamily, seed?: string): string {
  return format(family, seed === undefined ? new Uint8Array(randomBytes(64)) : digest(seed), 'tx');
}

export function simulatedBlockHash(family: ChainFamily): string {
  return format(family, new Uint8Array(randomBytes(64)), 'block');
}

/** The parent hash of a simulated chain's genesis block. */
export function zeroHash(family: ChainFamily): string {
  return format(family, new Uint8Array(64), 'block');
}
