import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { Address, OutScript, p2wpkh, Transaction } from '@scure/btc-signer';
import type { Logger } from 'pino';
import type { BuiltForward, ForwardIntent, ForwardStatus } from '../adapter.ts';
import { utxoNetwork } from '../addresses.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { coinsToBaseUnits } from './json.ts';
import { addressToScriptOn, type BitcoinNetwork } from './network.ts';
import { type BitcoinRpc, BitcoinRpcError } from './rpc.ts';
import type { BitcoinChainSettings, BitcoinFamilyChain } from './settings.ts';

/**
 * Batched sweeps on a Bitcoin-family chain: ONE transaction spends every deposit output of a forward (many payments of
 * one merchant) to the payout address, signed here with each deposit address's own key (checked against the address
 * first: DepositSigningKeys). Nothing is sent while building; the forwarder stores the signed transaction before it
 * broadcasts it, and `broadcast` only ever sends that stored text again.
 *
 * Fee: `estimatesmartfee <FEE_TARGET_BLOCKS>` in sat/vB, raised to the floor (SVC_CHAIN_<NAME>_MIN_FEE_RATE and the
 * node's mempool minimum); above the cap (MAX_FEE_RATE) the sweep waits and is priced again later. The size is the
 * P2WPKH upper bound (11 vB + 68 vB per input + the output), so the fee paid is never below the rate.
 * Dust: a deposit address whose outputs are worth no more than the fee to spend them (68 vB × rate each) is left in
 * place and reported (forwarder log, `dust()`), never swept at a loss.
 * Every input signals replacement (BIP125, nSequence 0xfffffffd), so a stuck sweep can be replaced by one with a
 * higher fee on the same inputs.
 */

/** Virtual bytes of a P2WPKH input (with a 72-byte signature), the transaction's fixed part. */
export const INPUT_VBYTES = 68n;
export const OVERHEAD_VBYTES = 11n;
/** Below this an output is non-standard dust for the node's relay policy (P2WPKH: 294 sat; 546 covers every type). */
export const MIN_OUTPUT = 546n;
export const RBF_SEQUENCE = 0xfffffffd;

export function createBitcoinSweeper(deps: {
  rpc: BitcoinRpc;
  chainId: BitcoinFamilyChain;
  isTest: boolean;
  /**
   * The spellings of deposit and payout addresses read in this mode: mainnet's live; testnet's and regtest's in test
   * mode (a payment created before the test network setting changed keeps its old spelling, and a payout wallet of a
   * regtest node has its own).
   */
  networks: readonly BitcoinNetwork[];
  settings: Pick<BitcoinChainSettings, 'minFeeRate' | 'maxFeeRate' | 'feeTargetBlocks'>;
  signingKeys: DepositSigningKeys;
  logger: Logger;
}) {
  const { rpc, chainId, isTest, networks, settings, logger } = deps;
  const dust: Array<{ address: string; amount: bigint; at: Date }> = [];
  /** Where a sweep was found in a block (its first output, before anything spends it). */
  const included = new Map<string, { hash: string; height: number }>();

  /**
   * The output script of a payout address: segwit in any spelling of the mode, or its base58 P2PKH/P2SH (regtest's
   * base58 bytes are testnet's).
   */
  function payoutScript(address: string): Uint8Array {
    try {
      return hexToBytes(addressToScriptOn(networks, address));
    } catch {
      return OutScript.encode(Address(utxoNetwork(chainId, isTest)).decode(address));
    }
  }

  /** sat/vB for a sweep now, or null above the cap (the sweep waits). */
  async function feeRate(): Promise<{ rate: bigint; estimate: bigint | null } | null> {
    const [estimate, mempool] = await Promise.all([
      rpc.callExact<{ feerate?: string | number; errors?: string[] }>('estimatesmartfee', [
        settings.feeTargetBlocks,
      ]),
      rpc.callExact<{ mempoolminfee?: string | number }>('getmempoolinfo'),
    ]);
    const perVbyte = (coinsPerKvB: string | number | undefined): bigint | null => {
      if (coinsPerKvB === undefined) return null;
      const perKvB = coinsToBaseUnits(coinsPerKvB);
      return (perKvB + 999n) / 1000n;
    };
    const estimated = perVbyte(estimate.feerate);
    const floor = [settings.minFeeRate, perVbyte(mempool.mempoolminfee) ?? 0n].reduce((a, b) =>
      a > b ? a : b,
    );
    const rate = estimated === null || estimated < floor ? floor : estimated;
    if (rate > settings.maxFeeRate) {
      logger.warn(
        { rate: rate.toString(), cap: settings.maxFeeRate.toString() },
        'sweep fee rate above SVC_CHAIN_<NAME>_MAX_FEE_RATE: sweeps wait',
      );
      return null;
    }
    return { rate, estimate: estimated };
  }

  const nothing = (intent: ForwardIntent): BuiltForward => ({
    txHash: '',
    rawTx: '',
    amount: 0n,
    fee: 0n,
    left: intent.inputs.map((input) => input.address),
  });

  async function buildForward(intent: ForwardIntent): Promise<BuiltForward> {
    if (intent.to === null) {
      logger.warn('no payout wallet for this test network: its final deposits wait for one');
      return nothing(intent);
    }
    const priced = await feeRate();
    if (priced === null) return nothing(intent);
    return build(intent, intent.to, priced.rate, null);
  }

  /** P2WPKH size upper bound of a sweep of `inputs` outputs to `output`. */
  const sizeOf = (inputs: bigint, output: Uint8Array): bigint =>
    OVERHEAD_VBYTES + inputs * INPUT_VBYTES + 9n + BigInt(output.length);

  /**
   * A replacement of a stuck sweep (BIP125): the same inputs, every one (nothing left as dust now: the deposits are
   * tied to the forward), and a fee that beats the previous one by the incremental relay fee (1 sat/vB) over the
   * whole size, at least the current estimate, and at least a quarter more than before. Null above the fee cap.
   */
  async function bumpForward(intent: ForwardIntent, previous: { fee: bigint }): Promise<BuiltForward | null> {
    if (intent.to === null) return null;
    const priced = await feeRate();
    const output = payoutScript(intent.to);
    const count = BigInt(intent.inputs.reduce((sum, input) => sum + (input.outputs?.length ?? 0), 0));
    const vbytes = sizeOf(count, output);
    const previousRate = (previous.fee + vbytes - 1n) / vbytes;
    const quarter = previousRate + (previousRate + 3n) / 4n;
    let rate = previousRate + 1n > quarter ? previousRate + 1n : quarter;
    if (priced !== null && priced.rate > rate) rate = priced.rate;
    if (rate > settings.maxFeeRate) {
      logger.warn(
        { rate: rate.toString(), cap: settings.maxFeeRate.toString() },
        'stuck sweep not replaced: its next fee rate is above MAX_FEE_RATE',
      );
      return null;
    }
    const built = build(intent, intent.to, rate, previous.fee);
    return built.amount > 0n ? built : null;
  }

  function build(
    intent: ForwardIntent,
    to: string,
    rate: bigint,
    /** A replacement: every input kept, and a fee above this. */
    replacing: bigint | null,
  ): BuiltForward {
    const output = payoutScript(to);
    const left: string[] = [];
    const spend: Array<{
      input: ForwardIntent['inputs'][number];
      outputs: NonNullable<ForwardIntent['inputs'][number]['outputs']>;
    }> = [];
    for (const input of intent.inputs) {
      const outputs = input.outputs ?? [];
      const value = outputs.reduce((sum, o) => sum + o.amount, 0n);
      if (
        outputs.length === 0 ||
        (replacing === null && value <= BigInt(outputs.length) * INPUT_VBYTES * rate)
      ) {
        left.push(input.address);
        dust.push({ address: input.address, amount: value, at: new Date() });
        continue;
      }
      spend.push({ input, outputs });
    }
    const count = BigInt(spend.reduce((sum, s) => sum + s.outputs.length, 0));
    const total = spend.reduce((sum, s) => sum + s.outputs.reduce((t, o) => t + o.amount, 0n), 0n);
    // The output: 8 bytes of amount, a length byte, the script.
    const fee = sizeOf(count, output) * rate;
    if (count === 0n || total - fee < MIN_OUTPUT || (replacing !== null && fee <= replacing)) {
      return { ...nothing(intent), left: intent.inputs.map((input) => input.address) };
    }
    const tx = new Transaction({ version: 2 });
    const keys: Uint8Array[] = [];
    for (const { input, outputs } of spend) {
      // Checked against the deposit address before anything is signed (throws SignerMismatchError).
      const key = deps.signingKeys.keyFor(chainId, isTest, input.derivationIndex, input.address);
      const script = hexToBytes(addressToScriptOn(networks, input.address));
      const derived = p2wpkh(secpPublicKey(key)).script;
      if (Buffer.compare(Buffer.from(derived), Buffer.from(script)) !== 0) {
        throw new Error(`key of index ${input.derivationIndex} does not pay ${input.address}`);
      }
      for (const o of outputs) {
        tx.addInput({
          txid: o.txHash,
          index: o.outputIndex,
          witnessUtxo: { script, amount: o.amount },
          sequence: RBF_SEQUENCE,
        });
        keys.push(key);
      }
    }
    tx.addOutput({ script: output, amount: total - fee });
    keys.forEach((key, index) => {
      tx.signIdx(key, index);
    });
    tx.finalize();
    return { txHash: tx.id, rawTx: tx.hex, amount: total - fee, fee, left };
  }

  async function broadcast(rawTx: string): Promise<void> {
    try {
      await rpc.call<string>('sendrawtransaction', [rawTx]);
    } catch (error) {
      if (error instanceof BitcoinRpcError) {
        // Already in a block (-27) or already in the mempool: the same transaction, sent before.
        if (error.code === -27) return;
        if (error.code === -26 && /already.in.mempool|already known/i.test(error.nodeMessage)) return;
      }
      throw error;
    }
  }

  async function forwardStatus(txHash: string): Promise<ForwardStatus> {
    try {
      await rpc.call('getmempoolentry', [txHash]);
      return { state: 'pending' };
    } catch (error) {
      if (!(error instanceof BitcoinRpcError && error.code === -5)) throw error;
    }
    const known = included.get(txHash);
    if (known !== undefined) {
      const header = await rpc
        .call<{ confirmations: number }>('getblockheader', [known.hash, true])
        .catch(() => ({ confirmations: -1 }));
      if (header.confirmations >= 1)
        return { state: 'included', blockNumber: known.height, blockHash: known.hash };
      included.delete(txHash);
    }
    // With -txindex (or while it is in the mempool) the node says where it is; a pruned node without the index finds
    // it by its first output in the UTXO set (unspent until the payout wallet moves it).
    try {
      const tx = await rpc.call<{ blockhash?: string }>('getrawtransaction', [txHash, true]);
      if (tx.blockhash !== undefined) {
        const header = await rpc.call<{ confirmations: number; height: number }>('getblockheader', [
          tx.blockhash,
          true,
        ]);
        if (header.confirmations >= 1) {
          included.set(txHash, { hash: tx.blockhash, height: header.height });
          return { state: 'included', blockNumber: header.height, blockHash: tx.blockhash };
        }
      }
    } catch (error) {
      if (!(error instanceof BitcoinRpcError && (error.code === -5 || error.code === -8))) throw error;
    }
    const utxo = await rpc.call<{ confirmations: number; bestblock: string } | null>('gettxout', [
      txHash,
      0,
      false,
    ]);
    if (utxo !== null && utxo.confirmations >= 1) {
      const tip = await rpc.call<{ height: number }>('getblockheader', [utxo.bestblock, true]);
      const height = tip.height - utxo.confirmations + 1;
      const hash = await rpc.call<string>('getblockhash', [height]);
      included.set(txHash, { hash, height });
      return { state: 'included', blockNumber: height, blockHash: hash };
    }
    return { state: 'unknown' };
  }

  return {
    buildForward,
    bumpForward,
    broadcast,
    forwardStatus,
    dust: () => [...dust],
    // For refunds (refund.ts): the same fee rate and output scripts as sweeps.
    feeRate,
    outputScript: payoutScript,
  };
}

export function secpPublicKey(privateKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(privateKey, true);
}
