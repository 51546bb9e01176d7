import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { pino } from 'pino';
import { createAddressDeriver } from '../../../src/modules/chains/derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
} from '../../../src/modules/chains/derivation-check.ts';
import { createSolanaAdapter } from '../../../src/modules/chains/solana/adapter.ts';
import { testMnemonic } from '../../support/harness.ts';
import { freePort } from '../../support/net.ts';
import { startServe } from '../../support/program.ts';
import {
  createAta,
  installMint,
  LIVE_USDC_MINT,
  mintTo,
  newWallet,
  send,
  solTransfer,
  type TestWallet,
  tokenTransfer,
} from '../../support/solana.ts';
import { startSolanaTestRpc } from '../../support/solana-rpc.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { median, round } from '../lib/stats.ts';
import { wireTimer } from '../lib/wire-timer.ts';

/**
 * The Solana detector against the LiteSVM test RPC (test/support/solana-rpc.ts), in one run:
 * 1. The running program (`svc serve`, live key) with 10,000 open payments on one RPC endpoint making a slot every
 *    400 ms (mainnet's pace): the RPC requests it makes per minute (goal: at most 3,000, a 50 requests/s provider
 *    limit) and the latency from a payer's transaction reaching the RPC to the payment showing `confirming` on the
 *    public checkout, worst of N (goal: at most 5 s). Twice: polling every second, then with the node's WebSocket
 *    (SVC_CHAIN_SOLANA_WS_URL), each slot notification waking the scan (and the timed poll every 10 s).
 * 2. Per block of 1,000 transactions (one in ten paying one of 10,000 watched deposit addresses, half in SOL, half in
 *    USDC): the scanner's own time (the adapter's `block` + `transfers`, minus the time a request of it was on the
 *    wire: undici's diagnostics channels, request created -> response complete, so parsing the answer with bigints
 *    counts as ours) beside the RPC's time to serve that block (a bare fetch of getBlock as text). Goal: <= 2. The
 *    baseline is the in-process test RPC, which only serialises a block it holds (JSON.stringify of ~1 MB); reading
 *    it back exactly (every integer a bigint) costs ~4 times JSON.parse, so parity with it is out of reach, while a
 *    validator's getBlock (ledger read, encoding) is slower than this baseline.
 */

const OPEN_PAYMENTS = 10_000;
const SLOT_MS = 400;
const POLL_MS = 1000;
const REQUESTS_PER_MINUTE_LIMIT = 50 * 60;
const LATENCY_GOAL_MS = 5000;
const TXS_PER_BLOCK = 1000;
const WATCHED_EVERY = 10;
const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const LAMPORTS = 1_000_000_000n;

async function rpcText(url: string, method: string, params: unknown[]): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return response.text();
}

async function scannerShare(blocks: number, log: (message: string) => void): Promise<Measurement> {
  const node = await startSolanaTestRpc({ finalizedLag: 3 });
  const wire = wireTimer();
  try {
    const payer = await newWallet(node, 10_000n);
    installMint(node, LIVE_USDC_MINT, 6, payer.address);
    await send(node, payer.signer, [
      await createAta(payer.signer, payer.address, LIVE_USDC_MINT),
      await mintTo(payer.signer, payer.address, LIVE_USDC_MINT, 10n ** 15n),
    ]);
    node.tick();
    const watched = Array.from({ length: OPEN_PAYMENTS }, () =>
      base58.encode(ed25519.getPublicKey(new Uint8Array(randomBytes(32)))),
    );
    const watchedSet = new Set(watched);
    const logger = pino({ level: 'silent' });
    const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
    const adapter = createSolanaAdapter({
      settings: {
        chain: 'solana',
        isTest: false,
        rpcUrls: [node.url],
        genesisHash: node.genesisHash,
        confirmations: 32,
        pollIntervalMs: POLL_MS,
        wsUrl: undefined,
        wsPollIntervalMs: 10_000,
        feePayerKey: undefined,
        maxPriorityFee: 0n,
        feePayerMinLamports: 0n,
        maxSlotsBehind: 150,
        rpcTimeoutMs: 60_000,
        rpcRetries: 1,
      },
      requiredConfirmations: 32,
      signingKeys: createDepositSigningKeys(
        deriver,
        createDerivationCheck({ testMnemonic, liveMnemonic: LIVE_MNEMONIC }),
      ),
      logger,
    });
    await adapter.start();
    let scanned = (await adapter.head())?.number ?? 0;
    const own: number[] = [];
    const rpcMs: number[] = [];
    const wireMs: number[] = [];
    let blockBytes = 0;
    let pick = 0;
    for (let b = 0; b < blocks; b++) {
      const sinks = Array.from({ length: 20 }, () =>
        base58.encode(ed25519.getPublicKey(new Uint8Array(randomBytes(32)))),
      );
      let expected = 0;
      for (let i = 0; i < TXS_PER_BLOCK; i++) {
        let to = sinks[i % sinks.length] as string;
        if (i % WATCHED_EVERY === 0) {
          to = watched[(pick++ * 7919) % OPEN_PAYMENTS] as string;
          expected += 1;
        }
        const instructions =
          i % (2 * WATCHED_EVERY) === 0
            ? [
                await createAta(payer.signer, to, LIVE_USDC_MINT),
                await tokenTransfer(payer.signer, to, LIVE_USDC_MINT, 1_000_000n + BigInt(i)),
              ]
            : [solTransfer(payer.signer, to, LAMPORTS / 100n + BigInt(b * TXS_PER_BLOCK + i))];
        const { err } = await send(node, payer.signer, instructions);
        if (err !== null) throw new Error(`bench payment failed: ${JSON.stringify(err)}`);
      }
      const slot = node.tick();
      const bare = async (): Promise<void> => {
        const started = performance.now();
        const text = await rpcText(node.url, 'getBlock', [
          slot,
          {
            commitment: 'confirmed',
            encoding: 'json',
            maxSupportedTransactionVersion: 0,
            rewards: false,
            transactionDetails: 'full',
          },
        ]);
        rpcMs.push(performance.now() - started);
        blockBytes = text.length;
      };
      const ours = async (): Promise<void> => {
        // The head read fetches the new block whole (it is the next to scan): timed with the scan.
        wire.reset();
        const started = performance.now();
        const head = await adapter.head();
        if (head === null) throw new Error('no head');
        let found = 0;
        for (let height = scanned + 1; height <= head.number; height++) {
          const ref = await adapter.block(height);
          if (ref === null) throw new Error(`block ${height} missing`);
          found += (await adapter.transfers(ref, watchedSet)).length;
        }
        scanned = head.number;
        const wall = performance.now() - started;
        if (wire.ms() <= 0) throw new Error('the wire timer saw no request: own time would include the RPC');
        wireMs.push(wire.ms());
        own.push(wall - wire.ms());
        if (found !== expected) throw new Error(`scanner found ${found} transfers, expected ${expected}`);
      };
      await ours();
      await bare();
      log(
        `solana-scanner: block ${b + 1}/${blocks}: own ${round(own.at(-1) ?? 0)} ms, rpc ${round(rpcMs.at(-1) ?? 0)} ms`,
      );
    }
    return measurement({
      name: `scanner own time per block (${TXS_PER_BLOCK.toLocaleString('en-US')} txs, ${OPEN_PAYMENTS.toLocaleString('en-US')} watched) vs the test RPC serving getBlock`,
      unit: 'ms',
      ours: median(own),
      baseline: median(rpcMs),
      better: 'lower',
      goal: { atMost: goals.scannerOwnTime },
      details: {
        blocks,
        blockJsonBytes: blockBytes,
        watchedPaymentsPerBlock: TXS_PER_BLOCK / WATCHED_EVERY,
        ownMs: own.map((v) => round(v)),
        rpcMs: rpcMs.map((v) => round(v)),
        ourWireMs: wireMs.map((v) => round(v)),
        note: 'own = wall time of block()+transfers() minus the time a request was on the wire (so it includes parsing the block with bigints and the ATA checks); rpc = bare fetch of getBlock as text from the in-process LiteSVM RPC',
      },
    });
  } finally {
    wire.close();
    await node.close();
  }
}

async function live(
  windowMs: number,
  samples: number,
  log: (message: string) => void,
  websocket: boolean,
): Promise<Measurement[]> {
  const mode = websocket ? 'slot notifications over the WebSocket' : `poll ${POLL_MS} ms`;
  const node = await startSolanaTestRpc({ slotMs: SLOT_MS, finalizedLag: 32 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let program: ChildProcess | undefined;
  let output = (): string => '';
  try {
    const payer: TestWallet = await newWallet(node, 10_000n);
    const served = await startServe({
      port,
      dataDirPrefix: 'svc-bench-sol-',
      env: {
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_MNEMONIC: LIVE_MNEMONIC,
        SVC_CHAIN_SOLANA_RPC_URL: node.url,
        SVC_CHAIN_SOLANA_GENESIS_HASH: node.genesisHash,
        SVC_CHAIN_SOLANA_POLL_MS: String(POLL_MS),
        ...(websocket ? { SVC_CHAIN_SOLANA_WS_URL: node.wsUrl } : {}),
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
    const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${signup.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ solana: base58.encode(ed25519.getPublicKey(new Uint8Array(randomBytes(32)))) }),
    });
    if (wallets.status !== 200) throw new Error(`payout wallets: ${await wallets.text()}`);
    const create = async (amount: string) => {
      const created = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: { 'x-api-key': pair.live.full_key, 'content-type': 'application/json' },
        body: JSON.stringify({ amount, currency: 'SOL', chain: 'solana' }),
      });
      if (created.status >= 300) throw new Error(`create payment: ${await created.text()}`);
      return (await created.json()) as { payment_id: string; address: string };
    };
    const started = performance.now();
    for (let made = 0; made < OPEN_PAYMENTS; made += 50) {
      await Promise.all(Array.from({ length: Math.min(50, OPEN_PAYMENTS - made) }, () => create('1')));
    }
    log(
      `solana-scanner: ${OPEN_PAYMENTS} open payments created in ${round((performance.now() - started) / 1000)} s`,
    );
    // Let the watcher load them, then count every request the program makes over the window.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const total = () => [...node.counts.values()].reduce((sum, n) => sum + n, 0);
    const before = total();
    const byMethodBefore = new Map(node.counts);
    const windowStart = performance.now();
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const perMinute = ((total() - before) * 60_000) / (performance.now() - windowStart);
    const byMethod = Object.fromEntries(
      [...node.counts].map(([method, count]) => [method, count - (byMethodBefore.get(method) ?? 0)]),
    );
    log(`solana-scanner (${mode}): ${round(perMinute)} requests/minute ${JSON.stringify(byMethod)}`);

    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const payment = await create('0.01');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2 + Math.random() * POLL_MS));
      const sent = performance.now();
      const { err } = await send(node, payer.signer, [
        solTransfer(payer.signer, payment.address, LAMPORTS / 100n),
      ]);
      if (err !== null) throw new Error('payment failed');
      for (;;) {
        const view = (await (await fetch(`${base}/v1/payments/checkout/${payment.payment_id}`)).json()) as {
          status: string;
        };
        if (view.status === 'confirming') break;
        if (view.status !== 'pending') throw new Error(`payment went ${view.status}`);
        if (performance.now() - sent > 30_000) throw new Error(`payment never confirming:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      latencies.push(performance.now() - sent);
      log(`solana-scanner (${mode}): latency sample ${i + 1}/${samples}: ${round(latencies.at(-1) ?? 0)} ms`);
    }
    return [
      measurement({
        name: `RPC requests per minute, ${OPEN_PAYMENTS.toLocaleString('en-US')} open payments, a slot every ${SLOT_MS} ms, ${mode}, vs 50 requests/s`,
        unit: 'requests/min',
        ours: perMinute,
        baseline: REQUESTS_PER_MINUTE_LIMIT,
        better: 'lower',
        goal: { atMost: 1 },
        details: { windowMs, byMethod },
      }),
      measurement({
        name: `payer's transaction at the RPC -> checkout shows confirming, ${mode}, worst of ${samples}, vs 5 s`,
        unit: 'ms',
        ours: Math.max(...latencies),
        baseline: LATENCY_GOAL_MS,
        better: 'lower',
        goal: { atMost: 1 },
        details: { latenciesMs: latencies.map((v) => round(v)), medianMs: round(median(latencies)) },
      }),
    ];
  } finally {
    if (program?.pid !== undefined) {
      try {
        process.kill(-program.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await node.close();
  }
}

export default defineScenario({
  name: 'solana-scanner',
  description:
    'Solana block scan on the LiteSVM test RPC: 10,000 open payments in the running program, polling and woken by slot notifications (requests/minute vs 50/s, confirming latency vs 5 s), and own time per 1,000-transaction block vs the RPC serving getBlock',
  async run({ log, scale }) {
    const share = await scannerShare(Math.max(3, Math.round(5 * scale)), log);
    const windowMs = Math.max(15_000, Math.round(60_000 * scale));
    const samples = Math.max(5, Math.round(10 * scale));
    const polled = await live(windowMs, samples, log, false);
    const woken = await live(windowMs, samples, log, true);
    return [...polled, ...woken, share];
  },
});
