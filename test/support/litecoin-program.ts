import {
  addressToScript,
  BITCOIN_NETWORKS,
  scriptToAddress,
} from '../../src/modules/chains/bitcoin/network.ts';
import { testMnemonic } from './harness.ts';
import { type Litecoind, startLitecoind } from './litecoind.ts';
import { freePort } from './net.ts';
import { type ServedProgram, startServe, stopProgram } from './program.ts';
import { createIsolatedDatabase } from './webhooks.ts';

const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
const live = BITCOIN_NETWORKS['litecoin-main'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];

/** The same output script in another network's spelling (ltc1… ⇄ rltc1…). */
function respell(address: string, from: typeof live, to: typeof live): string {
  const spelled = scriptToAddress(to, addressToScript(from, address));
  if (spelled === null) throw new Error(`${address} is not a segwit address`);
  return spelled;
}

/**
 * The running program (`svc serve`) on live Litecoin against litecoind in regtest (SVC_CHAIN_LITECOIN_NETWORK=regtest
 * lets the node stand in for mainnet: svc spells ltc1…, the node's payer wallet rltc1… for the same script). Blocks
 * are mined by the test (`node.mine`), never waited for. `env` goes on top (sweep batching, fee rates, …).
 */
export interface LitecoinProgram {
  node: Litecoind;
  program: ServedProgram;
  base: string;
  /** A new address of the node's payer wallet: its live spelling (what svc takes) and its regtest one (the node's). */
  newAddress(): Promise<{ live: string; regtest: string }>;
  /** Pays `coins` (decimal text) to a live-spelled address from the payer's wallet; the transaction id. */
  pay(address: string, coins: string): Promise<string>;
  /** Base units the node's wallet received at a regtest-spelled address in blocks (at least `minConf` deep). */
  received(regtestAddress: string, minConf?: number): Promise<bigint>;
  stop(): Promise<void>;
}

export async function startLitecoinProgram(options: {
  dataDirPrefix: string;
  env?: Record<string, string>;
}): Promise<LitecoinProgram> {
  const node = await startLitecoind({ blocks: 120 });
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
        SVC_CHAIN_LITECOIN_RPC_URL: node.urlWithAuth,
        SVC_CHAIN_LITECOIN_NETWORK: 'regtest',
        SVC_CHAIN_LITECOIN_POLL_MS: '200',
        SVC_CHAIN_LITECOIN_CONFIRMATIONS: '2',
        SVC_CHAIN_LITECOIN_MAX_HEAD_AGE_SECONDS: '0',
        SVC_BITCOIN_RPC_TIMEOUT_MS: '1000',
        SVC_BITCOIN_RPC_RETRIES: '1',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
        ...options.env,
      },
    });
  } catch (error) {
    await node.stop();
    await isolated.drop();
    throw error;
  }
  const toBaseUnits = (coins: number | string): bigint => {
    const [whole = '0', fraction = ''] = String(coins).split('.');
    return BigInt(whole) * 100_000_000n + BigInt(fraction.padEnd(8, '0').slice(0, 8) || '0');
  };
  return {
    node,
    program,
    base,
    async newAddress() {
      const address = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      return { regtest: address, live: respell(address, regtest, live) };
    },
    pay: (address, coins) =>
      node.rpc<string>('sendtoaddress', [respell(address, live, regtest), coins, '', '', false, true], {
        wallet: node.wallet,
      }),
    async received(regtestAddress, minConf = 1) {
      // Exact: the node writes amounts as decimal numbers of at most 8 places.
      const coins = await node.rpc<number>('getreceivedbyaddress', [regtestAddress, minConf], {
        wallet: node.wallet,
      });
      return toBaseUnits(coins.toFixed(8));
    },
    async stop() {
      await stopProgram(program.process);
      await node.stop();
      await isolated.drop();
    },
  };
}
