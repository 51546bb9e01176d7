import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { p2wpkh, Transaction } from '@scure/btc-signer';
import { pino } from 'pino';
import { createBitcoinAdapter } from '../../../src/modules/chains/bitcoin/adapter.ts';
import {
  addressToScript,
  BITCOIN_NETWORKS,
  scriptToAddress,
} from '../../../src/modules/chains/bitcoin/network.ts';
import { createBitcoinRpc } from '../../../src/modules/chains/bitcoin/rpc.ts';
import { blockTransfersFromAnswer } from '../../../src/modules/chains/bitcoin/scan.ts';
import { createAddressDeriver } from '../../../src/modules/chains/derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
} from '../../../src/modules/chains/derivation-check.ts';
import { testMnemonic } from '../../support/harness.ts';
import { type Litecoind, RPC_PASSWORD, RPC_USER, startLitecoind } from '../../support/litecoind.ts';
import { freePort } from '../../support/net.ts';
import { startServe } from '../../support/program.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { profileSection } from '../lib/section-profile.ts';
import { median, round } from '../lib/stats.ts';
import { wireTimer } from '../lib/wire-timer.ts';

/**
 * The Bitcoin-family (UTXO) scanner against litecoind in regtest, in one run:
 * 1. Per block of 2,000 transactions (each one input and two outputs; one transaction in ten pays a watched script,
 *    every other output an unwatched one) with 100,000 watched addresses: the scanner's own time (the adapter's
 *    `block` + `transfers`, minus the time any of its node requests was on the wire, taken from undici's diagnostics
 *    channels: request created -> response fully received; so decoding the answer with exact decimals counts as ours)
 *    beside the node's time to serve that block (a bare client fetching `getblock <hash> 2` as text). Goal: <= 0.2.
 * 2. Latency from a payer's transaction being broadcast (`sendrawtransaction`) to the payment showing `confirming` on
 *    the public checkout, in the running program (`svc serve` with a live mnemonic on litecoind), worst of N. Debian's
 *    litecoind has no ZMQ, so this is the mempool poll (SVC_CHAIN_LITECOIN_POLL_MS, 1 s by default). Goal: <= 2 s.
 */

const WATCHED = 100_000;
const TXS_PER_BLOCK = 2000;
/** One transaction in this many pays a watched script. */
const WATCHED_EVERY = 10;
const SEND_BATCH = 500;
const POLL_MS = 1000;
const LATENCY_GOAL_MS = 2000;
const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const live = BITCOIN_NETWORKS['litecoin-main'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];

/** Amounts in litoshis, all exact. */
const FANOUT_OUTPUT = 100_000n;
const CHILD_FEE = 5_000n;
const CHILD_WATCHED = 20_000n;
const FANOUT_FEE = 1_000_000n;
const COIN = 100_000_000n;

const coins = (units: bigint): string => `${units / COIN}.${(units % COIN).toString().padStart(8, '0')}`;
const randomScript = (): Uint8Array => Uint8Array.of(0x00, 0x14, ...randomBytes(20));

/** A JSON-RPC batch to the node (set-up only). */
async function batchRpc(
  node: Litecoind,
  calls: Array<{ method: string; params: unknown[] }>,
): Promise<unknown[]> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`,
    },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '1.0', id, ...call }))),
  });
  const answers = (await response.json()) as Array<{
    id: number;
    result?: unknown;
    error?: { message: string } | null;
  }>;
  const failed = answers.find((answer) => answer.error !== undefined && answer.error !== null);
  if (failed !== undefined) throw new Error(`batch call failed: ${failed.error?.message}`);
  return answers.sort((a, b) => a.id - b.id).map((answer) => answer.result);
}

/** A key the bench controls, its P2WPKH script and regtest address. */
function benchKey() {
  const privateKey = secp256k1.utils.randomSecretKey();
  const script = p2wpkh(secp256k1.getPublicKey(privateKey, true)).script;
  const address = scriptToAddress(regtest, bytesToHex(script));
  if (address === null) throw new Error('no address for the bench key');
  return { privateKey, script, address };
}

async function scannerShare(
  node: Litecoind,
  blocks: number,
  log: (message: string) => void,
): Promise<Measurement> {
  const key = benchKey();
  // Watched: 100,000 random P2WPKH programs, as deposit addresses in svc's live spelling.
  const watchedScripts = Array.from({ length: WATCHED }, () => bytesToHex(randomScript()));
  const watchedAddresses = watchedScripts.map((script) => {
    const address = scriptToAddress(live, script);
    if (address === null) throw new Error('bad script');
    return address;
  });

  // One coin per block for the bench key, then per block a fan-out of 2,000 outputs to it (one transaction each,
  // mined at once: several unconfirmed 62 kvB fan-outs would pass the ancestor size limit).
  const perBlock = FANOUT_OUTPUT * BigInt(TXS_PER_BLOCK) + FANOUT_FEE;
  const fundTxid = await node.rpc<string>('sendtoaddress', [key.address, coins(perBlock * BigInt(blocks))], {
    wallet: node.wallet,
  });
  await node.mine(1);
  const funding = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { hex: string } }> }>(
    'getrawtransaction',
    [fundTxid, true],
  );
  const fundVout = funding.vout.find((out) => out.scriptPubKey.hex === bytesToHex(key.script))?.n;
  if (fundVout === undefined) throw new Error('funding output not found');
  let spend = { txid: fundTxid, index: fundVout, amount: perBlock * BigInt(blocks) };
  const fanouts: string[] = [];
  let fanoutBlock = '';
  for (let b = 0; b < blocks; b++) {
    const tx = new Transaction({ version: 2 });
    tx.addInput({
      txid: spend.txid,
      index: spend.index,
      witnessUtxo: { script: key.script, amount: spend.amount },
    });
    for (let i = 0; i < TXS_PER_BLOCK; i++) tx.addOutput({ script: key.script, amount: FANOUT_OUTPUT });
    const change = spend.amount - perBlock;
    if (change > 0n) tx.addOutput({ script: key.script, amount: change });
    tx.signIdx(key.privateKey, 0);
    tx.finalize();
    await node.rpc('sendrawtransaction', [tx.hex]);
    [fanoutBlock = ''] = await node.mine(1);
    fanouts.push(tx.id);
    spend = { txid: tx.id, index: TXS_PER_BLOCK, amount: change };
  }

  const logger = pino({ level: 'silent' });
  const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
  const signingKeys = createDepositSigningKeys(
    deriver,
    createDerivationCheck({ testMnemonic, liveMnemonic: LIVE_MNEMONIC }),
  );
  const shared = { rpcTimeoutMs: 60_000, rpcRetries: 1 };
  const rpc = createBitcoinRpc({ urls: [node.urlWithAuth], timeoutMs: 60_000, retries: 1, logger });
  const adapter = createBitcoinAdapter({
    settings: {
      chain: 'litecoin',
      isTest: false,
      rpcUrls: [node.urlWithAuth],
      cookieFile: undefined,
      network: 'regtest',
      confirmations: undefined,
      pollIntervalMs: POLL_MS,
      zmqUrls: [],
      zmqPollIntervalMs: 10_000,
      minFeeRate: 1n,
      maxFeeRate: 50n,
      feeTargetBlocks: 6,
      sweepBatch: 1,
      sweepMaxAgeSeconds: 3600,
      sweepBumpAfterSeconds: 600,
      maxHeadAgeSeconds: 0,
    },
    shared,
    requiredConfirmations: 2,
    signingKeys,
    logger,
    rpc,
  });
  const wire = wireTimer();
  const own: number[] = [];
  const nodeMs: number[] = [];
  const plainParseMs: number[] = [];
  const exactReadMs: number[] = [];
  let keyingMs = 0;
  let blockBytes = 0;
  const auth = `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`;
  try {
    await adapter.start();
    // As in the running program: the watcher keys each address once, when it starts watching it (timed apart).
    const keyingStarted = performance.now();
    const watched = new Set(watchedAddresses.map(adapter.addressKey));
    keyingMs = performance.now() - keyingStarted;
    const warm = await adapter.block((await adapter.head())?.number ?? 0);
    if (warm === null || warm.hash !== fanoutBlock) throw new Error('warm-up block not found');
    await adapter.transfers(warm, watched);

    let pick = 0;
    for (let b = 0; b < blocks; b++) {
      const fanout = fanouts[b] as string;
      const raws: string[] = [];
      let expected = 0;
      for (let i = 0; i < TXS_PER_BLOCK; i++) {
        const tx = new Transaction({ version: 2 });
        tx.addInput({ txid: fanout, index: i, witnessUtxo: { script: key.script, amount: FANOUT_OUTPUT } });
        let first: Uint8Array;
        if (i % WATCHED_EVERY === 0) {
          first = hexToBytes(watchedScripts[(pick++ * 7919) % WATCHED] as string);
          expected += 1;
        } else {
          first = randomScript();
        }
        tx.addOutput({ script: first, amount: CHILD_WATCHED });
        tx.addOutput({ script: randomScript(), amount: FANOUT_OUTPUT - CHILD_WATCHED - CHILD_FEE });
        tx.signIdx(key.privateKey, 0);
        tx.finalize();
        raws.push(tx.hex);
      }
      for (let start = 0; start < raws.length; start += SEND_BATCH) {
        await batchRpc(
          node,
          raws
            .slice(start, start + SEND_BATCH)
            .map((raw) => ({ method: 'sendrawtransaction', params: [raw] })),
        );
      }
      const [hash = ''] = await node.mine(1);
      const { height, nTx: txCount } = await node.rpc<{ height: number; nTx: number }>('getblockheader', [
        hash,
        true,
      ]);
      if (txCount !== TXS_PER_BLOCK + 1) throw new Error(`block has ${txCount} transactions`);

      const bare = async (): Promise<void> => {
        const started = performance.now();
        const response = await fetch(node.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: auth },
          body: JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getblock', params: [hash, 2] }),
        });
        const text = await response.text();
        nodeMs.push(performance.now() - started);
        blockBytes = text.length;
        // Where our time goes (details only): plain JSON.parse of the block (for scale), and our reading of its text
        // (the watched outputs found, their amounts read exactly).
        let t = performance.now();
        JSON.parse(text);
        plainParseMs.push(performance.now() - t);
        t = performance.now();
        blockTransfersFromAnswer(text, watched);
        exactReadMs.push(performance.now() - t);
      };
      const ours = async (): Promise<void> => {
        // With --profile, a CPU profile of the measured scan alone, one per block (bitcoin-scanner-block-<n>).
        const found = await profileSection(`bitcoin-scanner-block-${b + 1}`, async () => {
          wire.reset();
          const started = performance.now();
          const ref = await adapter.block(height);
          if (ref === null) throw new Error(`block ${height} missing`);
          const transfers = await adapter.transfers(ref, watched);
          const wall = performance.now() - started;
          own.push(wall - wire.ms());
          return transfers;
        });
        if (found.length !== expected)
          throw new Error(`scanner found ${found.length} transfers, expected ${expected}`);
      };
      if (b % 2 === 0) {
        await bare();
        await ours();
      } else {
        await ours();
        await bare();
      }
      log(
        `bitcoin-scanner: block ${b + 1}/${blocks}: own ${round(own.at(-1) ?? 0)} ms, node ${round(nodeMs.at(-1) ?? 0)} ms`,
      );
    }
  } finally {
    wire.close();
    await adapter.close();
  }
  return measurement({
    name: `scanner own time per block (${TXS_PER_BLOCK.toLocaleString('en-US')} txs, ${WATCHED.toLocaleString('en-US')} watched) vs litecoind serving getblock 2`,
    unit: 'ms',
    ours: median(own),
    baseline: median(nodeMs),
    better: 'lower',
    goal: { atMost: goals.scannerOwnTime },
    details: {
      blocks,
      blockJsonBytes: blockBytes,
      watchedOutputsPerBlock: TXS_PER_BLOCK / WATCHED_EVERY,
      ownMs: own.map((v) => round(v)),
      nodeMs: nodeMs.map((v) => round(v)),
      plainJsonParseMs: plainParseMs.map((v) => round(v)),
      keyingAllWatchedMs: round(keyingMs),
      exactReadMs: exactReadMs.map((v) => round(v)),
      note: 'own = wall time of block()+transfers() minus the time a node request was on the wire (undici: created -> response complete), so it includes decoding the block with exact decimals; node = bare fetch of getblock <hash> 2 as text; plainJsonParseMs = JSON.parse of the block text (for scale: the scanner does not do it), exactReadMs = the scanner reading that text (blockTransfersFromAnswer: the watched outputs found, their amounts read exactly; both outside the timed scan); keyingAllWatchedMs = turning the 100,000 addresses into script keys once, as the watcher does when it starts watching them',
    },
  });
}

async function confirmingLatency(samples: number, log: (message: string) => void): Promise<Measurement> {
  const node = await startLitecoind({ blocks: 101 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let program: ChildProcess | undefined;
  let output = (): string => '';
  try {
    const served = await startServe({
      port,
      dataDirPrefix: 'svc-bench-btc-',
      env: {
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_MNEMONIC: LIVE_MNEMONIC,
        SVC_CHAIN_LITECOIN_RPC_URL: node.urlWithAuth,
        SVC_CHAIN_LITECOIN_NETWORK: 'regtest',
        SVC_CHAIN_LITECOIN_POLL_MS: String(POLL_MS),
        SVC_CHAIN_LITECOIN_MAX_HEAD_AGE_SECONDS: '0',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    program = served.process;
    output = served.output;
    const signup = (await (
      await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `bench-${Date.now()}@example.com`,
          password: 'correct horse battery staple',
        }),
      })
    ).json()) as { token: string };
    const pair = (await (
      await fetch(`${base}/v1/keypairs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${signup.token}` },
      })
    ).json()) as { live: { full_key: string } };
    const payout = scriptToAddress(live, bytesToHex(randomScript()));
    const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${signup.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ litecoin: payout }),
    });
    if (wallets.status !== 200) throw new Error(`payout wallets: ${await wallets.text()}`);
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const created = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: { 'x-api-key': pair.live.full_key, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '0.01', currency: 'LTC', chain: 'litecoin' }),
      });
      if (created.status >= 300) throw new Error(`create payment: ${await created.text()}`);
      const payment = (await created.json()) as {
        payment_id: string;
        address: string;
        expected_amount_native: string;
      };
      const to = scriptToAddress(regtest, addressToScript(live, payment.address));
      if (to === null) throw new Error(`${payment.address} is not a segwit address`);
      // Signed by the payer's wallet first, so the clock starts at the broadcast itself.
      const raw = await node.rpc<string>('createrawtransaction', [
        [],
        { [to]: payment.expected_amount_native },
      ]);
      const funded = await node.rpc<{ hex: string }>('fundrawtransaction', [raw], { wallet: node.wallet });
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [funded.hex], {
        wallet: node.wallet,
      });
      // Let the watcher pick the new payment up, then broadcast at a random point of its poll cycle.
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2 + Math.random() * POLL_MS));
      const broadcast = performance.now();
      await node.rpc('sendrawtransaction', [signed.hex]);
      for (;;) {
        const view = (await (await fetch(`${base}/v1/payments/checkout/${payment.payment_id}`)).json()) as {
          status: string;
        };
        if (view.status === 'confirming') break;
        if (view.status !== 'pending') throw new Error(`payment went ${view.status}`);
        if (performance.now() - broadcast > 20_000) throw new Error(`payment never confirming:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      latencies.push(performance.now() - broadcast);
      log(`bitcoin-scanner: latency sample ${i + 1}/${samples}: ${round(latencies.at(-1) ?? 0)} ms`);
      // Mined, so the next payment's transaction does not spend unconfirmed change.
      await node.mine(1);
    }
    const worst = Math.max(...latencies);
    return measurement({
      name: `tx broadcast -> checkout shows confirming, worst of ${samples} (mempool poll ${POLL_MS} ms, no ZMQ) vs 2 s`,
      unit: 'ms',
      ours: worst,
      baseline: LATENCY_GOAL_MS,
      better: 'lower',
      goal: { atMost: 1 },
      details: { latenciesMs: latencies.map((v) => round(v)), medianMs: round(median(latencies)) },
    });
  } finally {
    if (program?.pid !== undefined) {
      try {
        process.kill(-program.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await node.stop();
  }
}

export default defineScenario({
  name: 'bitcoin-scanner',
  description:
    'UTXO scanner on litecoind regtest: own time per 2,000-transaction block with 100k watched addresses vs the node serving getblock; broadcast-to-confirming latency',
  async run({ log, scale }) {
    const blocks = Math.max(3, Math.round(5 * scale));
    // 110 blocks: ten mature coinbases for the fan-outs.
    const node = await startLitecoind({ blocks: 110 });
    let share: Measurement;
    try {
      share = await scannerShare(node, blocks, log);
    } finally {
      await node.stop();
    }
    const latency = await confirmingLatency(Math.max(5, Math.round(10 * scale)), log);
    return [share, latency];
  },
});
