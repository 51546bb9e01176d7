import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { createAddressDeriver } from '../../src/modules/chains/derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
} from '../../src/modules/chains/derivation-check.ts';
import type { SolanaChainSettings } from '../../src/modules/chains/solana/settings.ts';
import { testMnemonic } from './harness.ts';

/**
 * What the solana adapter's unit tests sign with: the test mnemonic for both modes (its deriver and deposit signing
 * keys) and a fresh random fee payer (its 32-byte seed and its address).
 */
export function solanaTestKeys() {
  const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
  const signingKeys = createDepositSigningKeys(
    deriver,
    createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
  );
  const feePayerSeed = new Uint8Array(randomBytes(32));
  const feePayer = base58.encode(ed25519.getPublicKey(feePayerSeed));
  return { deriver, signingKeys, feePayerSeed, feePayer };
}

/** Test-mode solana settings against one test RPC, paid for by `feePayerKey`; what the tests vary is given. */
export function solanaTestSettings(
  rpc: { url: string; genesisHash: string },
  feePayerKey: Uint8Array,
  tuning: { confirmations: number; maxPriorityFee: bigint },
): SolanaChainSettings {
  return {
    chain: 'solana',
    isTest: true,
    rpcUrls: [rpc.url],
    genesisHash: rpc.genesisHash,
    confirmations: tuning.confirmations,
    pollIntervalMs: 100,
    wsUrl: undefined,
    wsPollIntervalMs: 10_000,
    feePayerKey,
    maxPriorityFee: tuning.maxPriorityFee,
    feePayerMinLamports: 0n,
    maxSlotsBehind: 150,
    rpcTimeoutMs: 2000,
    rpcRetries: 1,
  };
}
