import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { encodeDeployData, encodeFunctionData, type Hex } from 'viem';
import { createAddressDeriver, MAX_DERIVATION_INDEX } from '../../../src/modules/chains/derivation.ts';
import {
  createDepositSigningKeys,
  createDerivationCheck,
} from '../../../src/modules/chains/derivation-check.ts';
import { createEvmAdapter } from '../../../src/modules/chains/evm/adapter.ts';
import { createEvmRpc, type EvmRpc } from '../../../src/modules/chains/evm/rpc.ts';
import { TRANSFER_TOPIC } from '../../../src/modules/chains/evm/scan.ts';
import { type Anvil, rpcCall, startAnvil } from '../../support/anvil.ts';
import { compileContracts } from '../../support/contracts.ts';
import { tokenAbi, USDC_MAINNET } from '../../support/evm.ts';
import { testMnemonic } from '../../support/harness.ts';
import { freePort } from '../../support/net.ts';
import { startServe } from '../../support/program.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { profileSection } from '../lib/section-profile.ts';
import { median, round } from '../lib/stats.ts';

/**
 * The EVM scanner against anvil, in one run:
 * 1. Per block of 500 transfers (250 ether transfers and 250 USDC Transfer logs, half of each to watched addresses)
 *    with 100,000 watched addresses: the scanner's own time (the adapter's `block` + `transfers`, minus the time any
 *    of its node requests was in flight) beside the node's time to serve that block and its logs (a bare client
 *    fetching the full block and the token logs by block hash). Goal: ours <= 0.1 of the node's (goals.ts). With
 *    --profile, each block's scan alone is also written as a CPU profile (evm-scanner-block-<n>.<pid>.cpuprofile).
 * 2. Latency from a block being mined to the payment showing `confirming` in the running program (`svc serve` with a
 *    live mnemonic on anvil), beside the poll interval. Goal: <= poll interval + 250 ms.
 */

const WATCHED = 100_000;
const NATIVE_PER_BLOCK = 250;
const TOKEN_PER_BLOCK = 250;
const TOKEN_BATCH = 50;
const POLL_MS = 500;
const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

const randomAddress = (): Hex => `0x${randomBytes(20).toString('hex')}`;

/** Wraps an EvmRpc and adds up the wall time during which at least one request was in flight. */
function timedRpc(inner: EvmRpc): EvmRpc & { inFlightMs(): number; reset(): void } {
  let inFlight = 0;
  let since = 0;
  let total = 0;
  return {
    async request<T>(method: string, params?: readonly unknown[]): Promise<T> {
      if (inFlight++ === 0) since = performance.now();
      try {
        return await inner.request<T>(method, params);
      } finally {
        if (--inFlight === 0) total += performance.now() - since;
      }
    },
    health: () => inner.health(),
    inFlightMs: () => total,
    reset: () => {
      total = 0;
    },
  };
}

async function batchRpc(
  url: string,
  calls: Array<{ method: string; params: unknown[] }>,
): Promise<unknown[]> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
  });
  const answers = (await response.json()) as Array<{
    id: number;
    result?: unknown;
    error?: { message: string };
  }>;
  const failed = answers.find((answer) => answer.error !== undefined);
  if (failed !== undefined) throw new Error(`batch call failed: ${failed.error?.message}`);
  return answers.sort((a, b) => a.id - b.id).map((answer) => answer.result);
}

async function setUpToken(anvil: Anvil, owner: Hex): Promise<void> {
  const { TestToken } = compileContracts();
  // Constructor arguments: ("USD Coin", "USDC", no transfer fee).
  const hash = await anvil.rpc<Hex>('eth_sendTransaction', [
    {
      from: owner,
      data: encodeDeployData({
        abi: TestToken.abi,
        bytecode: TestToken.bytecode,
        args: ['USD Coin', 'USDC', 0n],
      }),
    },
  ]);
  await anvil.rpc('anvil_mine', ['0x1']);
  const receipt = await anvil.rpc<{ contractAddress: Hex | null }>('eth_getTransactionReceipt', [hash]);
  if (receipt.contractAddress === null) throw new Error('token deploy failed');
  const code = await anvil.rpc<Hex>('eth_getCode', [receipt.contractAddress, 'latest']);
  await anvil.rpc('anvil_setCode', [USDC_MAINNET, code]);
  await anvil.rpc('eth_sendTransaction', [
    {
      from: owner,
      to: USDC_MAINNET,
      data: encodeFunctionData({ abi: tokenAbi, functionName: 'mint', args: [owner, 10n ** 15n] }),
    },
  ]);
  await anvil.rpc('anvil_mine', ['0x1']);
}

async function scannerShare(
  anvil: Anvil,
  blocks: number,
  log: (message: string) => void,
): Promise<Measurement> {
  const accounts = await anvil.rpc<Hex[]>('eth_accounts');
  const owner = accounts[0] as Hex;
  await setUpToken(anvil, owner);
  const watchedList = Array.from({ length: WATCHED }, randomAddress);
  const watched = new Set(watchedList.map((a) => a.toLowerCase()));
  const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: testMnemonic });
  const signingKeys = createDepositSigningKeys(
    deriver,
    createDerivationCheck({ testMnemonic, liveMnemonic: testMnemonic }),
  );
  const logger = pino({ level: 'silent' });
  const rpc = timedRpc(createEvmRpc({ urls: [anvil.url], timeoutMs: 60_000, retries: 1, logger }));
  const adapter = createEvmAdapter({
    settings: {
      chain: 'ethereum',
      isTest: false,
      rpcUrls: [anvil.url],
      gasKey: undefined,
      refundWallet: false,
      refundKey: undefined,
      chainId: 31337,
      maxFeePerGasWei: 10n ** 12n,
      finality: 'confirmations',
      trace: 'auto',
      pollIntervalMs: undefined,
    },
    shared: {
      chains: [],
      logsBlockRange: 1000,
      logsAddressLimit: 1000,
      rpcTimeoutMs: 60_000,
      rpcRetries: 1,
      maxHeadAgeSeconds: 0,
      reconcileEveryBlocks: 20,
    },
    requiredConfirmations: 2,
    deriver,
    signingKeys,
    logger,
    rpc,
    bundles: { byHash: async () => null, open: async () => [] },
  });
  await adapter.start();
  const own: number[] = [];
  const node: number[] = [];
  const trace: number[] = [];
  // Explicit nonces: a JSON-RPC batch of sends from one account must not race for the same pending nonce.
  const nonces = new Map<string, number>();
  for (const account of accounts) {
    nonces.set(account, Number(await anvil.rpc<string>('eth_getTransactionCount', [account, 'pending'])));
  }
  const nonceOf = (account: string): string => {
    const nonce = nonces.get(account) ?? 0;
    nonces.set(account, nonce + 1);
    return `0x${nonce.toString(16)}`;
  };
  let pick = 0;
  const next = (): Hex => watchedList[(pick++ * 7919) % WATCHED] as Hex;
  for (let b = 0; b < blocks; b++) {
    const calls: Array<{ method: string; params: unknown[] }> = [];
    let expected = 0;
    for (let i = 0; i < NATIVE_PER_BLOCK; i++) {
      const to = i % 2 === 0 ? next() : randomAddress();
      if (i % 2 === 0) expected += 1;
      const from = accounts[1 + (i % 8)] as Hex;
      calls.push({
        method: 'eth_sendTransaction',
        params: [{ from, to, value: '0x1', gas: '0x5208', nonce: nonceOf(from) }],
      });
    }
    for (let t = 0; t < TOKEN_PER_BLOCK / TOKEN_BATCH; t++) {
      const to: Hex[] = [];
      for (let i = 0; i < TOKEN_BATCH; i++) {
        to.push(i % 2 === 0 ? next() : randomAddress());
        if (i % 2 === 0) expected += 1;
      }
      calls.push({
        method: 'eth_sendTransaction',
        params: [
          {
            from: owner,
            to: USDC_MAINNET,
            gas: '0x2dc6c0',
            nonce: nonceOf(owner),
            data: encodeFunctionData({
              abi: tokenAbi,
              functionName: 'batchTransfer',
              args: [to, to.map(() => 1_000_000n)],
            }),
          },
        ],
      });
    }
    await batchRpc(anvil.url, calls);
    await anvil.rpc('anvil_mine', ['0x1']);
    const number = Number(await anvil.rpc<string>('eth_blockNumber'));

    const bare = async (): Promise<void> => {
      const started = performance.now();
      const block = await rpcCall<{ hash: string; transactions: unknown[] }>(
        anvil.url,
        'eth_getBlockByNumber',
        [`0x${number.toString(16)}`, true],
      );
      await rpcCall(anvil.url, 'eth_getLogs', [
        { blockHash: block.hash, address: [USDC_MAINNET], topics: [TRANSFER_TOPIC] },
      ]);
      node.push(performance.now() - started);
      const traceStarted = performance.now();
      await rpcCall(anvil.url, 'debug_traceBlockByHash', [block.hash, { tracer: 'callTracer' }]);
      trace.push(performance.now() - traceStarted);
    };
    const ours = async (): Promise<void> => {
      // With --profile, a CPU profile of each block's scan alone (evm-scanner-block-<n>.<pid>.cpuprofile).
      const { found, ownMs } = await profileSection(`evm-scanner-block-${b + 1}`, async () => {
        rpc.reset();
        const started = performance.now();
        const ref = await adapter.block(number);
        if (ref === null) throw new Error(`block ${number} missing`);
        const found = await adapter.transfers(ref, watched);
        return { found, ownMs: performance.now() - started - rpc.inFlightMs() };
      });
      own.push(ownMs);
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
      `evm-scanner: block ${b + 1}/${blocks}: own ${round(own.at(-1) ?? 0)} ms, node ${round(node.at(-1) ?? 0)} ms`,
    );
  }
  return measurement({
    name: `scanner own time per block (500 transfers, ${WATCHED.toLocaleString('en-US')} watched) vs node serving block + logs`,
    unit: 'ms',
    ours: median(own),
    baseline: median(node),
    better: 'lower',
    goal: { atMost: goals.scannerOwnTime },
    details: {
      blocks,
      ownMs: own.map((v) => round(v)),
      nodeMs: node.map((v) => round(v)),
      nodeTraceMs: trace.map((v) => round(v)),
      note: 'own = wall time of block()+transfers() minus time with a node request in flight (includes JSON decoding in the client); node = bare fetch of the full block and its token logs; the node also spends nodeTraceMs on debug_traceBlockByHash for internal transfers',
    },
  });
}

async function confirmingLatency(samples: number, log: (message: string) => void): Promise<Measurement> {
  const anvil = await startAnvil({ args: ['--no-mining'] });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
  let program: ChildProcess | undefined;
  let output = (): string => '';
  try {
    const accounts = await anvil.rpc<Hex[]>('eth_accounts');
    const payer = accounts[0] as Hex;
    await anvil.rpc('eth_sendTransaction', [
      {
        from: payer,
        to: deriver.deriveAddress('ethereum', false, MAX_DERIVATION_INDEX),
        value: '0xde0b6b3a7640000',
      },
    ]);
    await anvil.rpc('anvil_mine', ['0x1']);
    const served = await startServe({
      port,
      dataDirPrefix: 'svc-bench-evm-',
      env: {
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_MNEMONIC: LIVE_MNEMONIC,
        SVC_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_CHAIN_ETHEREUM_POLL_MS: String(POLL_MS),
        SVC_CONFIRMATIONS: 'ethereum=2',
        SVC_EVM_MAX_HEAD_AGE_SECONDS: '0',
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
    const key = pair.live.full_key;
    const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${base}/v1${path}`, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status >= 300) throw new Error(`${method} ${path}: ${await response.text()}`);
      return (await response.json()) as T;
    };
    // Payout wallets take a dashboard session (its password fresh from the sign-up), never a key.
    const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${signup.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ethereum: randomAddress() }),
    });
    if (wallets.status !== 200) throw new Error(`payout wallets: ${await wallets.text()}`);
    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      const payment = await call<{ payment_id: string; address: string }>('POST', '/payments', {
        amount: '0.01',
        currency: 'ETH',
        chain: 'ethereum',
      });
      // Let the watcher pick the new payment up, then mine at a random point of its poll cycle.
      await new Promise((resolve) => setTimeout(resolve, POLL_MS * 2 + Math.random() * POLL_MS));
      await anvil.rpc('eth_sendTransaction', [
        { from: payer, to: payment.address, value: '0x2386f26fc10000' },
      ]);
      await anvil.rpc('anvil_mine', ['0x1']);
      const mined = performance.now();
      for (;;) {
        const view = await call<{ status: string }>('GET', `/payments/${payment.payment_id}`);
        if (view.status !== 'pending') break;
        if (performance.now() - mined > 20_000) throw new Error(`payment never left pending:\n${output()}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      latencies.push(performance.now() - mined);
      log(`evm-scanner: latency sample ${i + 1}/${samples}: ${round(latencies.at(-1) ?? 0)} ms`);
    }
    const worst = Math.max(...latencies);
    return measurement({
      name: `block mined -> payment confirming, worst of ${samples} (poll ${POLL_MS} ms) vs poll interval`,
      unit: 'ms',
      ours: worst,
      baseline: POLL_MS,
      better: 'lower',
      goal: { atMost: (POLL_MS + 250) / POLL_MS },
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
    await anvil.stop();
  }
}

export default defineScenario({
  name: 'evm-scanner',
  description:
    'EVM scanner on anvil: own time per 500-transfer block with 100k watched addresses vs the node serving it; block-to-confirming latency',
  async run({ log, scale }) {
    const blocks = Math.max(3, Math.round(10 * scale));
    const anvil = await startAnvil({ args: ['--no-mining'], gasLimit: 300_000_000n, accounts: 10 });
    let share: Measurement;
    try {
      share = await scannerShare(anvil, blocks, log);
    } finally {
      await anvil.stop();
    }
    const latency = await confirmingLatency(Math.max(4, Math.round(8 * scale)), log);
    return [share, latency];
  },
});
