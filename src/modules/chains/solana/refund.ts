import { ed25519 } from '@noble/curves/ed25519.js';
import { base58, base64 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getTransactionEncoder,
  type Instruction,
  pipe,
  type Rpc,
  type SignatureBytes,
  type SolanaRpcApi,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  type BuiltForward,
  type BuiltRefund,
  type ForwardIntent,
  type RefundIntent,
  RefundRefused,
} from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';

/**
 * Refunds on Solana from a deposit address, signed and stored before anything is sent like a sweep (the refund sender
 * stores the transaction; `broadcast` and `forwardStatus` are the sweeper's: the same bytes re-sent while their
 * blockhash can still land, `expired` only once it provably cannot).
 * - SOL: ONE System transfer signed only by the deposit address's key, which is also the fee payer: the payer gets the
 *   refund less its fee (5,000 lamports a signature, no priority fee: the payer's refund pays it), and the address is
 *   left with exactly what the refund did not take. Refused (RefundRefused) when not worth its fee, when the payer's
 *   account does not exist and the refund is below the rent-exempt minimum (it could not be created), or when it would
 *   leave the deposit address holding less than that minimum but more than nothing (the runtime rejects it).
 * - Tokens (SPL): built as a sweep of that one deposit to the payer (sweep.ts): the operator's fee payer signs first and
 *   pays the fee AND the rent of the payer's associated token account when it is missing (CreateAssociatedToken-
 *   Idempotent, 2,039,280 lamports), the deposit's key signs the TransferChecked of the refund's amount, and the
 *   deposit's token account is closed (its rent back to the fee payer) when the refund empties it.
 */

const SIGNATURE_FEE = 5000n;
const SYSTEM_ACCOUNT_RENT_MIN = 890_880n;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

export function createSolanaRefunds(deps: {
  rpc: Rpc<SolanaRpcApi>;
  isTest: boolean;
  signingKeys: DepositSigningKeys;
  /** The mint of an asset code in this mode; null for SOL. */
  mintOf: (asset: string) => string | null;
  /** The sweeper's builder: token refunds are a one-deposit sweep to the payer. */
  buildForward: (intent: ForwardIntent) => Promise<BuiltForward>;
}) {
  const { rpc, isTest } = deps;

  async function balanceOf(who: string): Promise<bigint> {
    return (await rpc.getBalance(address(who), { commitment: 'confirmed' }).send()).value;
  }

  async function buildSolRefund(
    intent: RefundIntent,
    from: NonNullable<RefundIntent['from']>,
  ): Promise<BuiltRefund> {
    const fee = SIGNATURE_FEE;
    const sent = intent.amount - fee;
    if (sent <= 0n) {
      throw new RefundRefused(
        `the refund (${intent.amount} lamports) is not worth its network fee (${fee} lamports)`,
      );
    }
    const [held, payerHolds] = await Promise.all([balanceOf(from.address), balanceOf(intent.to)]);
    if (held < intent.amount) {
      // Not there (yet): the sender tries again later.
      throw new Error(
        `deposit address ${from.address} holds ${held} lamports, the refund needs ${intent.amount}`,
      );
    }
    const rest = held - intent.amount;
    if (rest > 0n && rest < SYSTEM_ACCOUNT_RENT_MIN) {
      throw new RefundRefused(
        `the refund would leave ${rest} lamports at the deposit address, under the rent-exempt minimum ` +
          `(${SYSTEM_ACCOUNT_RENT_MIN}): refund all of it or less`,
      );
    }
    // The deposit address pays the fee first: what it holds then must stay rent-exempt (the runtime checks it).
    if (held - fee < SYSTEM_ACCOUNT_RENT_MIN) {
      throw new RefundRefused(
        `the deposit address holds too little (${held} lamports) to pay the refund's fee and stay rent-exempt`,
      );
    }
    if (payerHolds === 0n && sent < SYSTEM_ACCOUNT_RENT_MIN) {
      throw new RefundRefused(
        `${intent.to} has no account yet and the refund (${sent} lamports after its fee) is below the rent-exempt ` +
          `minimum (${SYSTEM_ACCOUNT_RENT_MIN}) that would create it`,
      );
    }
    // Derived and checked against the deposit address before anything is signed (throws SignerMismatchError).
    const key = deps.signingKeys.keyFor('solana', isTest, from.derivationIndex, from.address);
    const source = address(from.address);
    const instructions: Instruction[] = [
      getTransferSolInstruction({
        source: createNoopSigner(source),
        destination: address(intent.to),
        amount: sent,
      }),
    ];
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(source, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const compiled = compileTransaction(message);
    const signers = Object.keys(compiled.signatures);
    if (signers.length !== 1 || signers[0] !== from.address) {
      throw new Error(`solana refund: signed by ${signers.join(', ')}, not the deposit address alone`);
    }
    const signature = ed25519.sign(new Uint8Array(compiled.messageBytes), key) as SignatureBytes;
    const transaction = {
      ...compiled,
      signatures: { ...compiled.signatures, [from.address]: signature },
    } as typeof compiled;
    return {
      txHash: base58.encode(signature),
      rawTx: base64.encode(new Uint8Array(getTransactionEncoder().encode(transaction))),
      sent,
      fee,
    };
  }

  async function buildTokenRefund(
    intent: RefundIntent,
    from: NonNullable<RefundIntent['from']>,
  ): Promise<BuiltRefund> {
    const built = await deps.buildForward({
      id: intent.id,
      asset: intent.asset,
      inputs: [{ address: from.address, derivationIndex: from.derivationIndex, amount: intent.amount }],
      to: intent.to,
    });
    if (built.amount !== intent.amount || built.rawTx === '') {
      // The deposit's token account does not hold the amount (yet): tried again later.
      throw new Error(`the deposit token account of ${from.address} does not hold ${intent.amount}`);
    }
    return { txHash: built.txHash, rawTx: built.rawTx, sent: built.amount, fee: built.fee };
  }

  return {
    async buildRefund(intent: RefundIntent): Promise<BuiltRefund> {
      const from = intent.from;
      if (from === null) throw new Error('solana: refunds are sent from deposit addresses only');
      return deps.mintOf(intent.asset) === null
        ? buildSolRefund(intent, from)
        : buildTokenRefund(intent, from);
    },

    /** A SOL refund pays one signature out of the refund; a token refund's fee is paid by the fee payer. */
    async refundFee(asset: string): Promise<bigint> {
      return deps.mintOf(asset) === null ? SIGNATURE_FEE : 2n * SIGNATURE_FEE;
    },

    /**
     * Only a wallet (an account of the System program, or none yet) takes a refund: a token account or a program
     * address pasted by mistake would strand it (a token account has no private key to move SOL with, and tokens are
     * sent to the owner's associated account).
     */
    async checkRefundAddress(to: string): Promise<string | null> {
      const { value } = await rpc
        .getAccountInfo(address(to), { commitment: 'confirmed', encoding: 'base64' })
        .send();
      if (value === null || value.owner === SYSTEM_PROGRAM) return null;
      return value.executable
        ? 'is a program on Solana; refunds go to a wallet address'
        : 'is not a wallet on Solana (an account of another program, such as a token account); refunds go to the wallet address that owns it';
    },
  };
}
