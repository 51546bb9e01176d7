import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { createAddressDeriver } from '../../src/modules/chains/derivation.ts';
import { testMnemonic } from './harness.ts';
import { LIVE_MNEMONIC, startIsolatedServe } from './live-program.ts';
import type { ServedProgram } from './program.ts';
import {
  createAta,
  installMint,
  LIVE_USDC_MINT,
  mintTo,
  newWallet,
  send,
  TEST_USDC_MINT,
  type TestWallet,
} from './solana.ts';
import { type SolanaTestRpc, startSolanaTestRpc } from './solana-rpc.ts';

export const LAMPORTS = 1_000_000_000n;

/**
 * The running program (`svc serve`) on live Solana against the LiteSVM test RPC: USDC installed at its mainnet and
 * devnet mints (the payer wallet holds 10,000 of each), a funded fee payer given by SVC_CHAIN_SOLANA_FEE_PAYER_KEY, and
 * the test mode's derived fee payer funded too. Stop it with `stop()`.
 */
export interface SolanaProgram {
  node: SolanaTestRpc;
  program: ServedProgram;
  base: string;
  /** The live fee payer's address. */
  feePayer: string;
  /** A wallet with SOL and USDC that pays the payments. */
  payer: TestWallet;
  stop(): Promise<void>;
}

export async function startSolanaProgram(options: {
  dataDirPrefix: string;
  /** Over the defaults below; a function of the test RPC when it names the RPC (e.g. for test mode too). */
  env?: Record<string, string> | ((node: SolanaTestRpc) => Record<string, string>);
}): Promise<SolanaProgram> {
  const node = await startSolanaTestRpc({
    slotMs: 200,
    finalizedLag: 3,
    blockhashLifetime: 20,
    prioritizationFees: [0, 100, 1000],
  });
  const feePayerSeed = new Uint8Array(randomBytes(32));
  const feePayerPublic = ed25519.getPublicKey(feePayerSeed);
  const feePayer = base58.encode(feePayerPublic);
  const payer = await newWallet(node, 1000n);
  node.airdrop(feePayer as never, 10n * LAMPORTS);
  for (const mint of [LIVE_USDC_MINT, TEST_USDC_MINT]) {
    installMint(node, mint, 6, payer.address);
    await send(node, payer.signer, [
      await createAta(payer.signer, payer.address, mint),
      await mintTo(payer.signer, payer.address, mint, 10_000_000_000n),
    ]);
  }
  const testFeePayer = createAddressDeriver({
    testMnemonic,
    liveMnemonic: LIVE_MNEMONIC,
  }).derivePrivateKey('solana', true, 0x7fffffff);
  node.airdrop(base58.encode(ed25519.getPublicKey(testFeePayer)) as never, 10n * LAMPORTS);
  const secretKey = new Uint8Array(64);
  secretKey.set(feePayerSeed, 0);
  secretKey.set(feePayerPublic, 32);
  const served = await startIsolatedServe({
    dataDirPrefix: options.dataDirPrefix,
    env: {
      SVC_CHAIN_SOLANA_RPC_URL: node.url,
      SVC_CHAIN_SOLANA_GENESIS_HASH: node.genesisHash,
      SVC_CHAIN_SOLANA_POLL_MS: '200',
      SVC_CHAIN_SOLANA_CONFIRMATIONS: '4',
      SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(secretKey),
      SVC_RATE_LIMIT_PER_KEY: '0',
      SVC_RATE_LIMIT_PER_IP: '0',
      LOG_LEVEL: 'warn',
      ...(typeof options.env === 'function' ? options.env(node) : options.env),
    },
  }).catch(async (error: unknown) => {
    await node.close();
    throw error;
  });
  return {
    node,
    program: served.program,
    base: served.base,
    feePayer,
    payer,
    async stop() {
      await served.stop();
      await node.close();
    },
  };
}
