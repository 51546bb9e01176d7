import { hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { type BuiltRefund, type RefundIntent, RefundRefused } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { addressToScriptOn, type BitcoinNetwork } from './network.ts';
import type { BitcoinFamilyChain } from './settings.ts';
import { INPUT_VBYTES, MIN_OUTPUT, OVERHEAD_VBYTES, RBF_SEQUENCE, secpPublicKey } from './sweep.ts';

/**
 * Refunds on a Bitcoin-family chain from a deposit address, built like its sweeps (sweep.ts): ONE transaction spending
 * the outputs of the payment's deposits held for the refund (`from.outputs`, whole: an output cannot be split), signed
 * with the deposit address's own key (checked against the address first), every input signalling replacement (BIP125),
 * the fee rate the sweeps use (the node's estimate, raised to the floor; above MAX_FEE_RATE the refund waits). Nothing
 * is sent here: the refund sender stores the signed transaction before it broadcasts it.
 *
 * - One output to the payer: the refund less the fee (the size's P2WPKH upper bound × the rate), so the payer pays for
 *   the transaction that refunds them. Refused (RefundRefused) when what is left is dust (below 546 base units).
 * - Change: what the spent outputs hold beyond the refund goes to the merchant's payout wallet (`change`), the place a
 *   sweep would have sent it, in the same transaction: the deposits are closed once the refund is sent (their outputs
 *   are spent) rather than swept again. Change below the dust limit is left to the fee. Without a payout wallet the
 *   refund waits (a change output to the deposit address would be seen as a new payment to it).
 */

/** A P2WPKH output: 8 bytes of amount, a length byte, the 22-byte script. */
const P2WPKH_OUTPUT_VBYTES = 31n;

export function createBitcoinRefunds(deps: {
  chainId: BitcoinFamilyChain;
  isTest: boolean;
  /** Every spelling of the mode's networks (deposit addresses are read in any of them). */
  networks: readonly BitcoinNetwork[];
  signingKeys: DepositSigningKeys;
  /** The sweeps' fee rate (sat/vB), or null above the cap. */
  feeRate: () => Promise<{ rate: bigint } | null>;
  /** MAX_FEE_RATE (sat/vB): a stuck refund is never replaced by one paying more. */
  maxFeeRate: bigint;
  logger?: { warn(details: object, message: string): void };
  /** The output script paying an address of the mode (segwit in any spelling, or base58). */
  outputScript: (address: string) => Uint8Array;
}) {
  const { chainId, isTest, networks } = deps;

  /** The refund's outputs, checked, and its size's upper bound (vbytes). */
  function plan(intent: RefundIntent) {
    const from = intent.from;
    if (from === null) throw new Error(`${chainId}: refunds are sent from deposit addresses only`);
    const outputs = from.outputs ?? [];
    if (outputs.length === 0) throw new Error(`${chainId}: no deposit outputs held for refund ${intent.id}`);
    const total = outputs.reduce((sum, o) => sum + o.amount, 0n);
    if (total < intent.amount) {
      throw new Error(`${chainId}: the held outputs hold ${total}, the refund needs ${intent.amount}`);
    }
    const payerScript = deps.outputScript(intent.to);
    const rest = total - intent.amount;
    let changeScript: Uint8Array | null = null;
    if (rest >= MIN_OUTPUT) {
      if (intent.change === undefined || intent.change === null) {
        throw new Error(
          `${chainId}: ${rest} base units of the spent outputs go back to the payout wallet, and none is set: the refund waits for one`,
        );
      }
      changeScript = deps.outputScript(intent.change);
    }
    const vbytes =
      OVERHEAD_VBYTES +
      BigInt(outputs.length) * INPUT_VBYTES +
      9n +
      BigInt(payerScript.length) +
      (changeScript === null ? 0n : 9n + BigInt(changeScript.length));
    return { from, outputs, payerScript, rest, changeScript, vbytes };
  }

  async function buildRefund(intent: RefundIntent): Promise<BuiltRefund> {
    const planned = plan(intent);
    const priced = await deps.feeRate();
    if (priced === null) throw new Error(`${chainId}: the fee rate is above MAX_FEE_RATE; the refund waits`);
    const networkFee = planned.vbytes * priced.rate;
    if (intent.amount - networkFee < MIN_OUTPUT) {
      throw new RefundRefused(
        `the refund (${intent.amount} base units) is not worth its network fee (${networkFee} base units)`,
      );
    }
    return sign(intent, planned, networkFee);
  }

  /**
   * A replacement (BIP125) of a refund stuck unconfirmed: the same inputs and outputs, the payer's output smaller by
   * the higher fee. The rate beats the previous one by the incremental relay fee (1 sat/vB) over the whole size, is at
   * least a quarter more, and at least the current estimate; null above MAX_FEE_RATE, or when the payer would be left
   * with dust (the stuck version keeps waiting).
   */
  async function bumpRefund(intent: RefundIntent, previous: { fee: bigint }): Promise<BuiltRefund | null> {
    const planned = plan(intent);
    // The fee recorded counts change below the dust limit, which goes to the miners whatever the rate.
    const previousNetworkFee = previous.fee - (planned.changeScript === null ? planned.rest : 0n);
    const previousRate = (previousNetworkFee + planned.vbytes - 1n) / planned.vbytes;
    const quarter = previousRate + (previousRate + 3n) / 4n;
    let rate = previousRate + 1n > quarter ? previousRate + 1n : quarter;
    const priced = await deps.feeRate();
    if (priced !== null && priced.rate > rate) rate = priced.rate;
    if (rate > deps.maxFeeRate) {
      deps.logger?.warn(
        { refund: intent.id, rate: rate.toString(), cap: deps.maxFeeRate.toString() },
        'stuck refund not replaced: its next fee rate is above MAX_FEE_RATE',
      );
      return null;
    }
    const networkFee = planned.vbytes * rate;
    if (networkFee <= previousNetworkFee || intent.amount - networkFee < MIN_OUTPUT) return null;
    return sign(intent, planned, networkFee);
  }

  function sign(intent: RefundIntent, planned: ReturnType<typeof plan>, networkFee: bigint): BuiltRefund {
    const { from, outputs, payerScript, rest, changeScript } = planned;
    const sent = intent.amount - networkFee;
    // Checked against the deposit address before anything is signed (throws SignerMismatchError).
    const key = deps.signingKeys.keyFor(chainId, isTest, from.derivationIndex, from.address);
    const script = hexToBytes(addressToScriptOn(networks, from.address));
    if (Buffer.compare(Buffer.from(p2wpkh(secpPublicKey(key)).script), Buffer.from(script)) !== 0) {
      throw new Error(`key of index ${from.derivationIndex} does not pay ${from.address}`);
    }
    const tx = new Transaction({ version: 2 });
    for (const o of outputs) {
      tx.addInput({
        txid: o.txHash,
        index: o.outputIndex,
        witnessUtxo: { script, amount: o.amount },
        sequence: RBF_SEQUENCE,
      });
    }
    tx.addOutput({ script: payerScript, amount: sent });
    if (changeScript !== null) tx.addOutput({ script: changeScript, amount: rest });
    for (let index = 0; index < outputs.length; index++) tx.signIdx(key, index);
    tx.finalize();
    return {
      txHash: tx.id,
      rawTx: tx.hex,
      sent,
      // Change under the dust limit is paid to the miners with the fee.
      fee: networkFee + (changeScript === null ? rest : 0n),
      change: changeScript === null ? 0n : rest,
    };
  }

  return {
    buildRefund,
    bumpRefund,

    /** A refund of one deposit output with change: what it pays at the sweeps' rate now. */
    async refundFee(): Promise<bigint> {
      const priced = await deps.feeRate();
      const rate = priced?.rate ?? 0n;
      return (OVERHEAD_VBYTES + INPUT_VBYTES + 2n * P2WPKH_OUTPUT_VBYTES) * rate;
    },

    /** An address of the mode's networks that svc can write an output script for (any segwit version, base58). */
    async checkRefundAddress(address: string): Promise<string | null> {
      try {
        deps.outputScript(address);
        return null;
      } catch {
        // Litecoin's old P2SH spelling (3…, Bitcoin's version byte) passes the format check but is ambiguous with
        // Bitcoin's: svc pays its M… (or ltc1…) form only.
        if (chainId === 'litecoin' && address.startsWith(isTest ? '2' : '3')) {
          return 'is a legacy Litecoin P2SH address (the old spelling Bitcoin shares); ask for its M… or ltc1… form';
        }
        return `is not an address svc can pay on this ${chainId} network; use a segwit (bech32) or legacy address of it`;
      }
    },
  };
}
