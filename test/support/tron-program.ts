import { testMnemonic } from './harness.ts';
import { freePort } from './net.ts';
import { type ServedProgram, startServe, stopProgram } from './program.ts';
import { type FakeTronNode, startFakeTronNode, testKey } from './tron-node.ts';
import { createIsolatedDatabase } from './webhooks.ts';

const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/**
 * The running program (`svc serve`) on live Tron against the fake Tron node (test/support/tron-node.ts), which produces
 * a block every 100 ms (wall-clock times) and solidifies 19 behind: a payer holding TRX and USDT, and a resource wallet
 * with 40,000 TRX staked for energy (SVC_CHAIN_TRON_RESOURCE_KEY). `env` goes on top. Stop it with `stop()`.
 */
export interface TronProgram {
  node: FakeTronNode;
  program: ServedProgram;
  base: string;
  payer: ReturnType<typeof testKey>;
  resource: ReturnType<typeof testKey>;
  stop(): Promise<void>;
}

export async function startTronProgram(options: {
  dataDirPrefix: string;
  /** Labels the test keys, so that two tests' wallets differ. */
  label: string;
  env?: Record<string, string>;
}): Promise<TronProgram> {
  const node = await startFakeTronNode({ wallClock: true });
  const payer = testKey(`${options.label}-payer`);
  const resource = testKey(`${options.label}-resource`);
  node.fund(payer.address, 100_000_000_000n, 1_000_000_000_000n);
  node.fund(resource.address, 50_000_000_000n);
  node.stake(resource.address, 'ENERGY', 40_000_000_000n);
  node.produceBlocks(25);
  const producer = setInterval(() => node.produceBlocks(1), 100);
  const isolated = await createIsolatedDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let program: ServedProgram;
  try {
    program = await startServe({
      port,
      dataDirPrefix: options.dataDirPrefix,
      env: {
        ...(isolated.url === undefined ? {} : { DATABASE_URL: isolated.url, SVC_SIGNUP: 'open' }),
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_MNEMONIC: LIVE_MNEMONIC,
        SVC_CHAIN_TRON_RPC_URL: node.url,
        SVC_CHAIN_TRON_API_KEY: 'e2e-key',
        SVC_CHAIN_TRON_POLL_MS: '100',
        SVC_CHAIN_TRON_RESOURCE_KEY: Buffer.from(resource.key).toString('hex'),
        SVC_TRON_HTTP_TIMEOUT_MS: '1000',
        SVC_TRON_HTTP_RETRIES: '1',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
        ...options.env,
      },
    });
  } catch (error) {
    clearInterval(producer);
    await node.close();
    await isolated.drop();
    throw error;
  }
  return {
    node,
    program,
    base,
    payer,
    resource,
    async stop() {
      clearInterval(producer);
      await stopProgram(program.process);
      await node.close();
      await isolated.drop();
    },
  };
}
