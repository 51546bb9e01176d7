import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Instruction,
  isSolanaError,
  pipe,
  type Rpc,
  type Signature,
  type SignatureBytes,
  type SolanaRpcApi,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { Logger } from 'pino';
import type { BuiltForward, ForwardIntent, ForwardStatus } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { getChain } from '../registry.ts';
import { associatedTokenAccount } from './ata.ts';
import type { SolanaChainSettings } from './settings.ts';

/**
 * Sweeps on Solana with a fee payer (SVC_CHAIN_SOLANA_FEE_PAYER_KEY): the fee payer signs first and pays every fee, so
 * the whole deposit moves, and each deposit address signs for its own funds with its own key (checked against the
 * address first: DepositSigningKeys). One transaction sweeps up to 4 deposit addresses of one merchant and asset
 * (maxForwardInputs; a transaction holds 1,232 bytes).
 * - SOL: a System transfer of what the deposits credited, from each deposit address to the payout wallet: the account
 *   is left at zero (it disappears). Left in place, to be swept with later deposits: an address holding more than its
 *   credited deposits when the rest would be under the rent-exempt minimum (the transfer would fail).
 * - Tokens: CreateAssociatedTokenIdempotent for the payout wallet's associated token account (paid by the fee payer
 *   when missing), TransferChecked of each deposit's credited amount, then CloseAccount of the deposit's token account
 *   with its rent (2,039,280 lamports) returned to the fee payer, when the transfer empties it.
 * - Priority fee: the 75th percentile of getRecentPrioritizationFees over the accounts written, capped at
 *   MAX_PRIORITY_FEE micro-lamports per compute unit, with the compute unit limit set (SOL 2,000 per input + 1,000;
 *   tokens 30,000 per input + 30,000).
 *
 * Versions: the forwarder stores the signed transaction before `broadcast` sends it, and sends the same text again
 * while `forwardStatus` answers `unknown` (not seen, its blockhash still valid). Only once the signature is absent at
 * `finalized` AND the blockhash is no longer valid at `finalized` (every block that could hold it is final) does
 * `forwardStatus` answer `expired`: then `resign` (the adapter's bumpForward) signs a new version with a new blockhash,
 * checking that expiry again first. Two versions can therefore never both land.
 */

const COMPUTE_BUDGET_PROGRAM = address('ComputeBudget111111111111111111111111111111');
const SIGNATURE_FEE = 5000n;
const SYSTEM_ACCOUNT_RENT_MIN = 890_880n;
/** Blocks a blockhash stays valid for (the cluster's MAX_PROCESSING_AGE: lastValidBlockHeight = its height + 150). */
const MAX_BLOCKHASH_AGE = 150n;

function computeUnitLimit(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return { programAddress: COMPUTE_BUDGET_PROGRAM, accounts: [], data };
}

function computeUnitPrice(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return { programAddress: COMPUTE_BUDGET_PROGRAM, accounts: [], data };
}

export function createSolanaSweeper(deps: {
  rpc: Rpc<SolanaRpcApi>;
  isTest: boolean;
  settings: Pick<SolanaChainSettings, 'feePayerKey' | 'maxPriorityFee' | 'feePayerMinLamports'>;
  signingKeys: DepositSigningKeys;
  /** The mint of an asset code in this mode; null for SOL. */
  mintOf: (asset: string) => string | null;
  /** The block (height and hash) at a slot that has one. */
  blockAtSlot: (slot: number) => Promise<{ number: number; hash: string }>;
  logger: Logger;
}) {
  const { rpc, isTest, settings, logger } = deps;
  const info = getChain('solana');
  const feePayerSeed = settings.feePayerKey;
  const feePayer =
    feePayerSeed === undefined ? null : address(base58.encode(ed25519.getPublicKey(feePayerSeed)));
  /** Blockhash and last valid block height of each signed version, learnt when built or broadcast. */
  const lifetimes = new Map<string, { blockhash: string; lastValidBlockHeight: bigint | null }>();
  // (Bounded by the forwards open at once; a version is dropped from it only with the process.)
  let lowBalanceWarnedAt = 0;

  async function priorityFee(writable: Address[]): Promise<bigint> {
    if (settings.maxPriorityFee === 0n) return 0n;
    const recent = await rpc.getRecentPrioritizationFees(writable.slice(0, 128)).send();
    const fees = recent
      .map((entry) => BigInt(entry.prioritizationFee))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const p75 = fees[Math.floor(fees.length * 0.75)] ?? 0n;
    return p75 > settings.maxPriorityFee ? settings.maxPriorityFee : p75;
  }

  function sign(
    messageBytes: Uint8Array,
    signatures: Record<string, SignatureBytes | null>,
    keys: Map<string, Uint8Array>,
  ) {
    for (const signer of Object.keys(signatures)) {
      const key = keys.get(signer);
      if (key === undefined) throw new Error(`solana sweep: no key for signer ${signer}`);
      signatures[signer] = ed25519.sign(messageBytes, key) as SignatureBytes;
    }
  }

  async function buildForward(intent: ForwardIntent): Promise<BuiltForward> {
    if (feePayer === null || feePayerSeed === undefined) {
      throw new Error(
        `${isTest ? 'SVC_TEST_CHAIN_SOLANA_FEE_PAYER_KEY' : 'SVC_CHAIN_SOLANA_FEE_PAYER_KEY'} is not set: solana sweeps wait for a fee payer`,
      );
    }
    const to = address(intent.to ?? feePayer);
    const mint = deps.mintOf(intent.asset);
    const keys = new Map<string, Uint8Array>([[feePayer, feePayerSeed]]);
    const instructions: Instruction[] = [];
    const writable: Address[] = [feePayer, to];
    const left: string[] = [];
    let amount = 0n;
    let units = 1000;
    if (mint === null) {
      for (const input of intent.inputs) {
        const balance = (await rpc.getBalance(address(input.address), { commitment: 'confirmed' }).send())
          .value;
        const rest = balance - input.amount;
        if (input.amount <= 0n || rest < 0n || (rest > 0n && rest < SYSTEM_ACCOUNT_RENT_MIN)) {
          left.push(input.address);
          continue;
        }
        // Derived and checked against the deposit address before anything is signed (throws SignerMismatchError).
        keys.set(
          input.address,
          deps.signingKeys.keyFor('solana', isTest, input.derivationIndex, input.address),
        );
        instructions.push(
          getTransferSolInstruction({
            source: createNoopSigner(address(input.address)),
            destination: to,
            amount: input.amount,
          }),
        );
        writable.push(address(input.address));
        amount += input.amount;
        units += 2000;
      }
      if (amount > 0n) {
        const payout = (await rpc.getBalance(to, { commitment: 'confirmed' }).send()).value;
        if (payout === 0n && amount < SYSTEM_ACCOUNT_RENT_MIN) {
          // A new account below the rent-exempt minimum cannot be created: left until more arrives.
          return {
            txHash: '',
            rawTx: '',
            amount: 0n,
            fee: 0n,
            left: intent.inputs.map((input) => input.address),
          };
        }
      }
    } else {
      const decimals = info?.assets.find((asset) => asset.code === intent.asset)?.decimals;
      if (decimals === undefined) throw new Error(`solana: unknown asset ${intent.asset}`);
      const payoutAta = address(associatedTokenAccount(to, mint));
      instructions.push(
        getCreateAssociatedTokenIdempotentInstruction({
          payer: createNoopSigner(feePayer),
          ata: payoutAta,
          owner: to,
          mint: address(mint),
        }),
      );
      writable.push(payoutAta);
      units += 30_000;
      for (const input of intent.inputs) {
        const depositAta = address(associatedTokenAccount(input.address, mint));
        let held: bigint;
        try {
          const { value } = await rpc.getTokenAccountBalance(depositAta, { commitment: 'confirmed' }).send();
          held = BigInt(value.amount);
        } catch (error) {
          if (!isSolanaError(error)) throw error;
          held = 0n; // no such token account
        }
        if (input.amount <= 0n || held < input.amount) {
          left.push(input.address);
          continue;
        }
        keys.set(
          input.address,
          deps.signingKeys.keyFor('solana', isTest, input.derivationIndex, input.address),
        );
        const owner = createNoopSigner(address(input.address));
        instructions.push(
          getTransferCheckedInstruction({
            source: depositAta,
            mint: address(mint),
            destination: payoutAta,
            authority: owner,
            amount: input.amount,
            decimals,
          }),
        );
        if (held === input.amount) {
          instructions.push(
            getCloseAccountInstruction({ account: depositAta, destination: feePayer, owner }),
          );
        }
        writable.push(depositAta);
        amount += input.amount;
        units += 30_000;
      }
    }
    if (amount === 0n)
      return { txHash: '', rawTx: '', amount: 0n, fee: 0n, left: intent.inputs.map((i) => i.address) };
    const price = await priorityFee(writable);
    const budget = [computeUnitLimit(units), ...(price > 0n ? [computeUnitPrice(price)] : [])];
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(feePayer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions([...budget, ...instructions], m),
    );
    const compiled = compileTransaction(message);
    const signatures = { ...compiled.signatures } as Record<string, SignatureBytes | null>;
    sign(new Uint8Array(compiled.messageBytes), signatures, keys);
    const transaction = { ...compiled, signatures } as unknown as typeof compiled;
    const first = signatures[feePayer];
    if (first === null || first === undefined) throw new Error('solana sweep: fee payer did not sign');
    const txHash = base58.encode(first);
    lifetimes.set(txHash, { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight });
    const signers = BigInt(Object.keys(signatures).length);
    const fee = SIGNATURE_FEE * signers + (price * BigInt(units) + 999_999n) / 1_000_000n;
    return {
      txHash,
      rawTx: base64.encode(new Uint8Array(getTransactionEncoder().encode(transaction))),
      amount,
      fee,
      ...(left.length > 0 ? { left } : {}),
    };
  }

  /** The signature and blockhash of a stored transaction. */
  function decode(rawTx: string): { signature: string; blockhash: string } {
    const transaction = getTransactionDecoder().decode(base64.decode(rawTx));
    const message = getCompiledTransactionMessageDecoder().decode(transaction.messageBytes);
    const first = Object.values(transaction.signatures)[0];
    if (first === null || first === undefined)
      throw new Error('solana: a stored sweep without its signature');
    return { signature: base58.encode(first), blockhash: message.lifetimeToken };
  }

  async function broadcast(rawTx: string): Promise<void> {
    const { signature, blockhash } = decode(rawTx);
    if (!lifetimes.has(signature)) lifetimes.set(signature, { blockhash, lastValidBlockHeight: null });
    try {
      await rpc
        .sendTransaction(rawTx as Parameters<typeof rpc.sendTransaction>[0], {
          encoding: 'base64',
          skipPreflight: true,
          maxRetries: 0n,
        })
        .send();
    } catch (error) {
      // Already taken: the same transaction again changes nothing.
      if (isSolanaError(error) && /already been processed|AlreadyProcessed/i.test(error.message)) return;
      throw error;
    }
  }

  /**
   * Whether no block can ever hold this version: the `finalized` block height is past its last valid block height
   * (every block that could hold it is final) and the finalized bank no longer takes its blockhash. A version known
   * only from its stored text (after a restart) gets an upper bound of its last valid height first: the confirmed
   * height plus 150 while the confirmed bank still takes the blockhash, else the confirmed height (it expired below
   * it). An upper bound only makes the wait longer, never the answer wrong: a blockhash newer than the finalized
   * block is unknown to the finalized bank, and is not taken for expired.
   */
  async function expired(signature: string): Promise<boolean> {
    const lifetime = lifetimes.get(signature);
    if (lifetime === undefined) return false;
    if (lifetime.lastValidBlockHeight === null) {
      const [{ value: validNow }, confirmedHeight] = await Promise.all([
        rpc.isBlockhashValid(lifetime.blockhash as Blockhash, { commitment: 'confirmed' }).send(),
        rpc.getBlockHeight({ commitment: 'confirmed' }).send(),
      ]);
      lifetime.lastValidBlockHeight = BigInt(confirmedHeight) + (validNow ? MAX_BLOCKHASH_AGE : 0n);
    }
    const finalHeight = await rpc.getBlockHeight({ commitment: 'finalized' }).send();
    if (BigInt(finalHeight) <= lifetime.lastValidBlockHeight) return false;
    const { value: valid } = await rpc
      .isBlockhashValid(lifetime.blockhash as Blockhash, { commitment: 'finalized' })
      .send();
    return !valid;
  }

  async function forwardStatus(txHash: string): Promise<ForwardStatus> {
    const { value } = await rpc
      .getSignatureStatuses([txHash as Signature], { searchTransactionHistory: true })
      .send();
    const status = value[0] ?? null;
    if (status !== null) {
      if (status.confirmationStatus !== 'finalized') return { state: 'pending' };
      const block = await deps.blockAtSlot(Number(status.slot));
      return {
        state: 'included',
        blockNumber: block.number,
        blockHash: block.hash,
        ...(status.err === null
          ? {}
          : {
              reverted: JSON.stringify(status.err, (_k, v: unknown) =>
                typeof v === 'bigint' ? v.toString() : v,
              ),
            }),
      };
    }
    // Not seen: re-sent as is while it can still land; a new version only once it provably cannot.
    return (await expired(txHash)) ? { state: 'expired' } : { state: 'unknown' };
  }

  async function resign(
    intent: ForwardIntent,
    previous: { fee: bigint; txHash?: string },
  ): Promise<BuiltForward | null> {
    if (previous.txHash === undefined || (await forwardStatus(previous.txHash)).state !== 'expired')
      return null;
    const built = await buildForward(intent);
    if (built.amount <= 0n) return null;
    logger.warn(
      { expired: previous.txHash, by: built.txHash },
      'sweep expired unseen (blockhash past its life at finalized): signed again',
    );
    return built;
  }

  return {
    buildForward,
    broadcast,
    forwardStatus,
    resign,
    feePayerAddress: () => feePayer,
    /** Logs (at most hourly) a fee payer below FEE_PAYER_MIN_LAMPORTS; returns its balance (null without one). */
    async checkFeePayer(): Promise<bigint | null> {
      if (feePayer === null) return null;
      const { value } = await rpc.getBalance(feePayer, { commitment: 'confirmed' }).send();
      if (value < settings.feePayerMinLamports && Date.now() - lowBalanceWarnedAt > 3_600_000) {
        lowBalanceWarnedAt = Date.now();
        logger.warn(
          { feePayer, lamports: value.toString(), minimum: settings.feePayerMinLamports.toString() },
          'solana fee payer balance is low: fund it, or sweeps will fail',
        );
      }
      return value;
    },
  };
}
