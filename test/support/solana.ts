import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintEncoder,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { strongPassword, uniqueEmail } from './harness.ts';
import type { SolanaTestRpc } from './solana-rpc.ts';

/** A payer's wallet for tests against the LiteSVM test RPC: SOL and SPL payments built and signed with @solana/kit. */

export const LIVE_USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
export const TEST_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';

export async function ata(owner: string, mint: string): Promise<Address> {
  const [found] = await findAssociatedTokenPda({
    owner: address(owner),
    mint: address(mint),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  return found;
}

export interface TestWallet {
  signer: KeyPairSigner;
  address: Address;
}

export async function newWallet(node: SolanaTestRpc, sol = 100n): Promise<TestWallet> {
  const signer = await generateKeyPairSigner();
  node.airdrop(signer.address, sol * 1_000_000_000n);
  return { signer, address: signer.address };
}

/** Installs a mint account at `mint` (the registry's real address) whose authority is `authority`. */
export function installMint(node: SolanaTestRpc, mint: string, decimals: number, authority: Address): void {
  const data = getMintEncoder().encode({
    mintAuthority: authority,
    supply: 0n,
    decimals,
    isInitialized: true,
    freezeAuthority: null,
  });
  node.svm.setAccount({
    address: address(mint),
    data: new Uint8Array(data),
    executable: false,
    lamports: lamports(node.svm.minimumBalanceForRentExemption(82n)),
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: 82n,
  });
}

async function signed(node: SolanaTestRpc, payer: KeyPairSigner, instructions: Instruction[]) {
  const { blockhash, lastValidBlockHeight } = node.latestBlockhash();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash as Blockhash, lastValidBlockHeight },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

/** Sends a transaction of `instructions` from `payer` (skipPreflight, as wallets may: a failure lands with meta.err). */
export async function send(node: SolanaTestRpc, payer: KeyPairSigner, instructions: Instruction[]) {
  return node.submit(await signed(node, payer, instructions));
}

export const solTransfer = (from: KeyPairSigner, to: string, amount: bigint): Instruction =>
  getTransferSolInstruction({ source: from, destination: address(to), amount });

/** The owner's ATA created idempotently (paid by `payer`), as Solana Pay wallets do in the payment transaction. */
export async function createAta(payer: KeyPairSigner, owner: string, mint: string): Promise<Instruction> {
  return getCreateAssociatedTokenIdempotentInstruction({
    payer,
    ata: await ata(owner, mint),
    owner: address(owner),
    mint: address(mint),
  });
}

export async function mintTo(authority: KeyPairSigner, owner: string, mint: string, amount: bigint) {
  return getMintToInstruction({
    mint: address(mint),
    token: await ata(owner, mint),
    mintAuthority: authority,
    amount,
  });
}

export async function tokenTransfer(
  from: KeyPairSigner,
  to: string,
  mint: string,
  amount: bigint,
  decimals = 6,
): Promise<Instruction> {
  return getTransferCheckedInstruction({
    source: await ata(from.address, mint),
    mint: address(mint),
    destination: await ata(to, mint),
    authority: from,
    amount,
    decimals,
  });
}

/** The token balance of the owner's ATA (0n when it does not exist). */
export async function tokenBalance(node: SolanaTestRpc, owner: string, mint: string): Promise<bigint> {
  const account = node.svm.getAccount(await ata(owner, mint));
  if (!account.exists) return 0n;
  return Buffer.from(account.data).readBigUInt64LE(64);
}

export function balance(node: SolanaTestRpc, who: string): bigint {
  return BigInt(node.svm.getBalance(address(who)) ?? 0n);
}

/**
 * A merchant signed up on the running program at `base`, with its key of `mode` and a fresh Solana payout wallet of that
 * mode (an account that does not exist yet on the cluster).
 */
export async function solanaMerchant(
  base: string,
  mode: 'live' | 'test' = 'live',
): Promise<{ key: string; payout: string }> {
  const signup = await fetch(`${base}/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
  });
  const { token } = (await signup.json()) as { token: string };
  const pair = (await (
    await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  ).json()) as Record<'live' | 'test', { full_key: string }>;
  const payout = (await generateKeyPairSigner()).address;
  const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=${mode === 'test'}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ solana: payout }),
  });
  if (wallets.status !== 200) throw new Error(`payout wallets: ${wallets.status} ${await wallets.text()}`);
  return { key: pair[mode].full_key, payout };
}
