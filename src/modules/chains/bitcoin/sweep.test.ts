import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../../test/support/harness.ts';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import type { ForwardIntent } from '../adapter.ts';
import { createAddressDeriver } from '../derivation.ts';
import { createDepositSigningKeys, createDerivationCheck } from '../derivation-check.ts';
import { createBitcoinAdapter } from './adapter.ts';
import { addressToScript, BITCOIN_NETWORKS, scriptToAddress } from './network.ts';
import type { BitcoinChainSettings } from './settings.ts';

/**
 * The sweep's fee against a node that has a fee estimate: litecoind in regtest is first given a fee history (a few
 * blocks of wallet transactions at 25 sat/vB, which is what `estimatesmartfee` learns from), so the price comes from
 * the node's estimate, not from the floor a fresh regtest node falls back to (adapter.test.ts covers that case).
 */

const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
const signingKeys = createDepositSigningKeys(
  deriver,
  createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
);
const svcNetwork = BITCOIN_NETWORKS['litecoin-test'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];
const respell = (address: string, from: typeof svcNetwork, to: typeof svcNetwork): string => {
  const spelled = scriptToAddress(to, addressToScript(from, address));
  if (spelled === null) throw new Error('not a segwit address');
  return spelled;
};

/** sat/vB the fee history is made at. */
const HISTORY_RATE = 25n;
/** One P2WPKH input and one P2WPKH output: 11 + 68 + 31 vB (the sweep's size bound). */
const ONE_INPUT_VBYTES = 110n;

describe.skipIf(!runLitecoindTests)('Bitcoin-family sweep fees against a node with an estimate', () => {
  let node: Litecoind;
  let intent: ForwardIntent;

  const adapterWith = (overrides: Partial<BitcoinChainSettings>) =>
    createBitcoinAdapter({
      settings: {
        chain: 'litecoin',
        isTest: true,
        rpcUrls: [node.urlWithAuth],
        cookieFile: undefined,
        network: undefined,
        confirmations: undefined,
        pollIntervalMs: 1000,
        zmqUrls: [],
        zmqPollIntervalMs: 10_000,
        minFeeRate: 1n,
        maxFeeRate: 50n,
        feeTargetBlocks: 6,
        sweepBatch: 1,
        sweepMaxAgeSeconds: 0,
        sweepBumpAfterSeconds: 600,
        maxHeadAgeSeconds: 0,
        ...overrides,
      },
      shared: { rpcTimeoutMs: 5000, rpcRetries: 1 },
      requiredConfirmations: 1,
      signingKeys,
      logger: pino({ level: 'silent' }),
    });

  beforeAll(async () => {
    node = await startLitecoind();
    const wallet = { wallet: node.wallet };
    // sendtoaddress address amount comment comment_to subtractfee replaceable conf_target estimate_mode avoid_reuse fee_rate
    for (let block = 0; block < 6; block++) {
      for (let i = 0; i < 12; i++) {
        const to = await node.rpc<string>('getnewaddress', [], wallet);
        await node.rpc('sendtoaddress', [to, '0.01', '', '', false, true, null, 'unset', false, 25], wallet);
      }
      await node.mine(1);
    }
    // A deposit to sweep.
    const address = deriver.deriveAddress('litecoin', true, 40);
    const txid = await node.rpc<string>(
      'sendtoaddress',
      [respell(address, svcNetwork, regtest), '0.5'],
      wallet,
    );
    await node.mine(1);
    const tx = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { hex: string } }> }>(
      'getrawtransaction',
      [txid, true],
    );
    const vout = tx.vout.find((out) => out.scriptPubKey.hex === addressToScript(svcNetwork, address));
    if (vout === undefined) throw new Error('deposit output not found');
    const payout = await node.rpc<string>('getnewaddress', ['', 'bech32'], wallet);
    intent = {
      id: 'fwd_fee',
      asset: 'LTC',
      inputs: [
        {
          address,
          derivationIndex: 40,
          amount: 50_000_000n,
          outputs: [{ txHash: txid, outputIndex: vout.n, amount: 50_000_000n }],
        },
      ],
      to: respell(payout, regtest, svcNetwork),
    };
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
  });

  it('prices the sweep at the estimate, raises it to the floor, and waits while it is above the cap', async () => {
    const estimate = await node.rpc<{ feerate?: number }>('estimatesmartfee', [6]);
    // 25 sat/vB is 0.00025 LTC/kvB: the node has learnt the history.
    expect(estimate.feerate).toBe(0.00025);

    const priced = adapterWith({});
    await priced.start();
    const atEstimate = await priced.buildForward(intent);
    await priced.close();
    expect(atEstimate.fee).toBe(ONE_INPUT_VBYTES * HISTORY_RATE);
    expect(atEstimate.amount + atEstimate.fee).toBe(50_000_000n);

    const floored = adapterWith({ minFeeRate: 40n });
    await floored.start();
    expect((await floored.buildForward(intent)).fee).toBe(ONE_INPUT_VBYTES * 40n);
    await floored.close();

    // Above the cap the sweep waits: nothing built, the deposit left for a later round.
    const capped = adapterWith({ maxFeeRate: 20n });
    await capped.start();
    const waiting = await capped.buildForward(intent);
    await capped.close();
    expect(waiting).toMatchObject({ amount: 0n, fee: 0n, rawTx: '' });

    // What is built at the estimate is what the node relays and mines.
    const relay = adapterWith({});
    await relay.start();
    await relay.broadcast(atEstimate.rawTx);
    await node.mine(1);
    expect(await relay.forwardStatus(atEstimate.txHash)).toMatchObject({ state: 'included' });
    await relay.close();
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
