import { hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../../test/support/harness.ts';
import { type RefundIntent, RefundRefused } from '../adapter.ts';
import { createAddressDeriver } from '../derivation.ts';
import { createDepositSigningKeys, createDerivationCheck } from '../derivation-check.ts';
import { addressToScriptOn, readableNetworks, scriptToAddress } from './network.ts';
import { createBitcoinRefunds } from './refund.ts';
import type { BitcoinRpc } from './rpc.ts';
import { createBitcoinSweeper, secpPublicKey } from './sweep.ts';

/**
 * Bitcoin-family refunds (refund.ts) as built and signed, before any node: the held outputs spent whole with the
 * deposit's own key, replaceable; one output to the payer (the refund less its fee) and the rest to the payout wallet;
 * change under the dust limit left to the fee; refusals (not worth the fee) apart from waits (no payout wallet, the fee
 * rate over the cap); and the refund address check of the mode's networks. Sent on litecoind through the program in
 * test/refunds-litecoin.test.ts.
 */

const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
const signingKeys = createDepositSigningKeys(
  deriver,
  createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
);
const networks = readableNetworks('litecoin', true);

/** A node that answers the sweeps' fee questions only: `rate` sat/vB estimated (null: no estimate yet). */
function feeNode(rate: bigint | null): BitcoinRpc {
  const perKvB = (satPerVbyte: bigint) => (Number(satPerVbyte) / 100_000).toFixed(8);
  const answers: Record<string, unknown> = {
    estimatesmartfee: rate === null ? { errors: ['Insufficient data'] } : { feerate: perKvB(rate) },
    getmempoolinfo: { mempoolminfee: '0.00001000' },
  };
  const call = async (method: string) => answers[method];
  return { call, callExact: call } as unknown as BitcoinRpc;
}

function refundsAt(rate: bigint | null, maxFeeRate = 500n) {
  const sweeper = createBitcoinSweeper({
    rpc: feeNode(rate),
    chainId: 'litecoin',
    isTest: true,
    networks,
    settings: { minFeeRate: 1n, maxFeeRate, feeTargetBlocks: 6 },
    signingKeys,
    logger: pino({ level: 'silent' }),
  });
  return createBitcoinRefunds({
    chainId: 'litecoin',
    isTest: true,
    networks,
    signingKeys,
    feeRate: sweeper.feeRate,
    maxFeeRate,
    outputScript: sweeper.outputScript,
  });
}

/** Live mode's refunds (mainnet spellings), for the address checks. */
function refundsAtLive() {
  const liveNetworks = readableNetworks('litecoin', false);
  const sweeper = createBitcoinSweeper({
    rpc: feeNode(10n),
    chainId: 'litecoin',
    isTest: false,
    networks: liveNetworks,
    settings: { minFeeRate: 1n, maxFeeRate: 500n, feeTargetBlocks: 6 },
    signingKeys,
    logger: pino({ level: 'silent' }),
  });
  return createBitcoinRefunds({
    chainId: 'litecoin',
    isTest: false,
    networks: liveNetworks,
    signingKeys,
    feeRate: sweeper.feeRate,
    maxFeeRate: 500n,
    outputScript: sweeper.outputScript,
  });
}

const depositAt = (index: number) => ({
  address: deriver.deriveAddress('litecoin', true, index),
  derivationIndex: index,
});
const txid = (n: number) => n.toString(16).padStart(64, '0');
const payer = deriver.deriveAddress('litecoin', true, 900);
const payout = deriver.deriveAddress('litecoin', true, 901);
const script = (address: string) => hexToBytes(addressToScriptOn(networks, address));

function intent(amount: bigint, outputs: bigint[], change: string | null = payout): RefundIntent {
  return {
    id: 'rf_test',
    asset: 'LTC',
    amount,
    to: payer,
    from: {
      ...depositAt(7),
      outputs: outputs.map((value, index) => ({
        txHash: txid(index + 1),
        outputIndex: index,
        amount: value,
      })),
    },
    change,
  };
}

describe('bitcoin-family refunds', () => {
  it('spends the held outputs whole with the deposit key: the payer gets the refund less the fee, the rest goes to the payout', async () => {
    const built = await refundsAt(10n).buildRefund(intent(3_000_000n, [2_000_000n, 6_000_000n]));
    const tx = Transaction.fromRaw(hexToBytes(built.rawTx));
    expect(tx.id).toBe(built.txHash);
    expect(tx.inputsLength).toBe(2);
    const key = signingKeys.keyFor('litecoin', true, 7, depositAt(7).address);
    const depositScript = p2wpkh(secpPublicKey(key)).script;
    for (let index = 0; index < tx.inputsLength; index++) {
      const input = tx.getInput(index);
      expect(input.sequence).toBe(0xfffffffd); // replaceable (BIP125)
      expect(input.txid).toBeDefined();
      // Signed by the deposit address's own key: the witness's public key pays the deposit's script.
      const publicKey = input.finalScriptWitness?.[1];
      if (publicKey === undefined) throw new Error('unsigned input');
      expect(Buffer.from(p2wpkh(publicKey).script)).toEqual(Buffer.from(depositScript));
      expect(Buffer.from(depositScript)).toEqual(Buffer.from(script(depositAt(7).address)));
    }
    // 11 + 2 × 68 + 2 × 31 vB at 10 sat/vB.
    expect(built.fee).toBe(2090n);
    expect(built.sent).toBe(3_000_000n - 2090n);
    expect(built.change).toBe(5_000_000n);
    expect(tx.outputsLength).toBe(2);
    expect(tx.getOutput(0)).toMatchObject({ amount: built.sent });
    expect(Buffer.from(tx.getOutput(0).script ?? [])).toEqual(Buffer.from(script(payer)));
    expect(tx.getOutput(1)).toMatchObject({ amount: 5_000_000n });
    expect(Buffer.from(tx.getOutput(1).script ?? [])).toEqual(Buffer.from(script(payout)));
  });

  it('replaces a stuck refund on the same inputs and change, the payer paying the higher fee, within MAX_FEE_RATE', async () => {
    const asked = intent(3_000_000n, [2_000_000n, 6_000_000n]);
    const first = await refundsAt(10n).buildRefund(asked);
    const bump = refundsAt(10n).bumpRefund;
    const bumped = await bump(asked, { fee: first.fee });
    if (bumped === null) throw new Error('not replaced');
    // 10 sat/vB → 13 (a quarter more, at least 1 more) over the same 209 vB.
    expect(bumped.fee).toBe(209n * 13n);
    expect(bumped.sent).toBe(3_000_000n - bumped.fee);
    expect(bumped.change).toBe(5_000_000n);
    const a = Transaction.fromRaw(hexToBytes(first.rawTx));
    const b = Transaction.fromRaw(hexToBytes(bumped.rawTx));
    expect(bumped.txHash).not.toBe(first.txHash);
    const inputs = (tx: Transaction) =>
      Array.from({ length: tx.inputsLength }, (_, i) => {
        const input = tx.getInput(i);
        return `${Buffer.from(input.txid ?? []).toString('hex')}:${input.index}:${input.sequence}`;
      });
    expect(inputs(b)).toEqual(inputs(a));
    expect(b.getOutput(1)).toMatchObject({ amount: 5_000_000n });
    // The node's estimate above the bumped rate: the estimate.
    expect((await refundsAt(40n).bumpRefund(asked, { fee: first.fee }))?.fee).toBe(209n * 40n);
    // Above the cap: not replaced, the stuck version keeps waiting.
    expect(await refundsAt(10n, 12n).bumpRefund(asked, { fee: first.fee })).toBeNull();
    // What the payer would get is dust: not replaced.
    const small = intent(1_200n, [1_200n]); // 110 vB: 550 at 5 sat/vB, 770 at 7 (650, then 430 left)
    const smallFirst = await refundsAt(5n).buildRefund(small);
    expect(await refundsAt(5n).bumpRefund(small, { fee: smallFirst.fee })).toBeNull();
  });

  it('leaves change under the dust limit to the fee, with one output only', async () => {
    const built = await refundsAt(10n).buildRefund(intent(1_000_000n, [1_000_500n], null));
    const tx = Transaction.fromRaw(hexToBytes(built.rawTx));
    expect(tx.outputsLength).toBe(1);
    expect(built.sent).toBe(1_000_000n - 1100n);
    expect(built.fee).toBe(1100n + 500n);
    expect(built.change).toBe(0n);
  });

  it('refuses a refund not worth its fee; waits (a plain error) without a payout wallet or over the fee cap', async () => {
    await expect(refundsAt(10n).buildRefund(intent(1500n, [1_000_000n]))).rejects.toBeInstanceOf(
      RefundRefused,
    );
    const noPayout = refundsAt(10n).buildRefund(intent(1_000_000n, [2_000_000n], null));
    await expect(noPayout).rejects.toThrow(/payout wallet/);
    await expect(noPayout).rejects.not.toBeInstanceOf(RefundRefused);
    const capped = refundsAt(900n).buildRefund(intent(1_000_000n, [1_000_000n]));
    await expect(capped).rejects.toThrow(/MAX_FEE_RATE/);
    await expect(capped).rejects.not.toBeInstanceOf(RefundRefused);
    await expect(refundsAt(10n).buildRefund(intent(3_000_000n, [1_000_000n]))).rejects.toThrow(
      /held outputs/,
    );
  });

  it('never signs with a key that does not pay the deposit address', async () => {
    const wrong = intent(1_000_000n, [1_000_000n]);
    if (wrong.from !== null) wrong.from.address = depositAt(8).address;
    await expect(refundsAt(10n).buildRefund(wrong)).rejects.toThrow();
  });

  it("prices a refund at the sweeps' rate, the floor when the node has no estimate yet", async () => {
    expect(await refundsAt(10n).refundFee()).toBe(141n * 10n);
    expect(await refundsAt(null).refundFee()).toBe(141n); // the 1 sat/vB floor
  });

  it("takes the mode's addresses as refund destinations, any spelling of its networks", async () => {
    const refunds = refundsAt(10n);
    expect(await refunds.checkRefundAddress(payer)).toBeNull();
    // The same script in regtest's spelling.
    const regtest = networks.find((network) => network.hrp === 'rltc');
    if (regtest === undefined) throw new Error('test mode reads regtest spellings');
    const respelled = scriptToAddress(regtest, addressToScriptOn(networks, payer));
    expect(respelled).toMatch(/^rltc1/);
    expect(await refunds.checkRefundAddress(respelled ?? '')).toBeNull();
    // Mainnet's (live) addresses and another chain's are not this mode's.
    const mainnet = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic }).deriveAddress(
      'litecoin',
      false,
      1,
    );
    expect(mainnet).toMatch(/^ltc1/);
    const live = refundsAtLive();
    expect(await live.checkRefundAddress(mainnet)).toBeNull();
    expect(await live.checkRefundAddress('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toMatch(
      /legacy Litecoin P2SH/,
    );
    for (const address of [mainnet, 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq']) {
      expect(await refunds.checkRefundAddress(address)).toMatch(/not an address svc can pay/);
    }
  });
});
