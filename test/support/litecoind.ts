import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.ts';

/**
 * A real Bitcoin-family node for tests: Debian's Litecoin Core (`apt-get install -y litecoind`, a fork of Bitcoin
 * Core with the same RPC) in regtest, on a free loopback port with a temporary data directory, run as a child process
 * (no -daemon) so the test owns it and stops it after.
 */

const litecoindPath = process.env.LITECOIND_PATH ?? '/usr/bin/litecoind';

/**
 * A machine without litecoind skips the tests that need it (`npm test` needs nothing but Node); CI never does: there a
 * missing binary fails them at start instead of passing them in silence.
 */
export const runLitecoindTests = existsSync(litecoindPath) || process.env.CI === 'true';
export const litecoindSkipReason = `litecoind tests skipped: ${litecoindPath} is missing (install it with: apt-get install -y litecoind)`;

export const RPC_USER = 'svc';
export const RPC_PASSWORD = 'regtest-only';

export interface Litecoind {
  /** http://127.0.0.1:<port> without credentials. */
  url: string;
  /** The same with user:password, as an operator would configure it. */
  urlWithAuth: string;
  port: number;
  dataDir: string;
  /** Name of the wallet created for the test's payer (the node's wallet is only ever the payer's, never svc's). */
  wallet: string;
  /** JSON-RPC to the node (test set-up; the code under test uses its own client). `wallet` targets /wallet/<name>. */
  rpc<T = unknown>(method: string, params?: unknown[], options?: { wallet?: string }): Promise<T>;
  /** Mines `count` blocks to the payer's wallet; returns their hashes. */
  mine(count: number): Promise<string[]>;
  /** Stops the node (SIGTERM: it flushes its chain and mempool), waits `downMs`, starts it again on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

class LitecoindRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(`${method}: ${message} (code ${code})`);
  }
}

let rpcId = 0;

async function call<T>(url: string, method: string, params: unknown[], wallet?: string): Promise<T> {
  rpcId += 1;
  const response = await fetch(wallet === undefined ? url : `${url}/wallet/${encodeURIComponent(wallet)}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${RPC_USER}:${RPC_PASSWORD}`).toString('base64')}`,
    },
    body: JSON.stringify({ jsonrpc: '1.0', id: rpcId, method, params }),
  });
  const text = await response.text();
  let body: { result?: T; error?: { code: number; message: string } | null };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new Error(`${method}: HTTP ${response.status} ${text.slice(0, 200)}`);
  }
  if (body.error !== undefined && body.error !== null)
    throw new LitecoindRpcError(method, body.error.code, body.error.message);
  return body.result as T;
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts litecoind and waits until its RPC answers (it is killed if it does not). */
async function spawnNode(args: string[], url: string): Promise<ChildProcess> {
  const child = spawn(litecoindPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    // Only the tail matters for a failure message; the node logs a lot.
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  // A missing binary (CI without the package) is an 'error' event, not an exit.
  child.once('error', (error) => {
    exited = true;
    output += `\n${error.message}`;
  });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) throw new Error(`litecoind exited before its RPC answered:\n${output}`);
      try {
        await call(url, 'getblockchaininfo', []);
        return child;
      } catch (error) {
        // Connection refused while it starts, then RPC_IN_WARMUP (-28) while it loads.
        if (error instanceof LitecoindRpcError && error.code !== -28) throw error;
        if (Date.now() > deadline) throw new Error(`litecoind RPC did not answer within 30 s:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}

export async function startLitecoind(
  options: { wallet?: string; blocks?: number; args?: string[] } = {},
): Promise<Litecoind> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-litecoind-'));
  const port = await freePort();
  const args = [
    '-regtest',
    `-datadir=${dataDir}`,
    `-rpcport=${port}`,
    '-rpcbind=127.0.0.1',
    '-rpcallowip=127.0.0.1',
    // No peers: -listen=0 opens no P2P port (so no second free port to find).
    '-listen=0',
    '-dnsseed=0',
    '-upnp=0',
    `-rpcuser=${RPC_USER}`,
    `-rpcpassword=${RPC_PASSWORD}`,
    '-fallbackfee=0.0001',
    '-txindex=1',
    '-mempoolreplacement=1',
    '-printtoconsole=1',
    // Litecoin's MWEB activates at regtest height 432, and Litecoin Core 0.21 then cannot mine a block of its own
    // (CreateNewBlock: bad-txns-vin-empty, its integrating transaction): kept never active, so a test may mine past it.
    '-vbparams=mweb:-2:0',
    ...(options.args ?? []),
  ];
  const url = `http://127.0.0.1:${port}`;
  let child = await spawnNode(args, url).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const cleanUp = async () => {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const wallet = options.wallet ?? 'payer';
    await call(url, 'createwallet', [wallet]);
    const payerAddress = await call<string>(url, 'getnewaddress', ['', 'bech32'], wallet);
    const mine = (count: number) => call<string[]>(url, 'generatetoaddress', [count, payerAddress]);
    // 101 blocks: the first coinbase matures, so the payer has coins to spend.
    await mine(options.blocks ?? 101);
    return {
      url,
      urlWithAuth: `http://${RPC_USER}:${RPC_PASSWORD}@127.0.0.1:${port}`,
      port,
      dataDir,
      wallet,
      rpc: (method, params = [], rpcOptions = {}) => call(url, method, params, rpcOptions.wallet),
      mine,
      async restart({ downMs = 0 } = {}) {
        await stopProcess(child);
        if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
        child = await spawnNode(args, url);
        // A wallet made by createwallet is not loaded again at start unless asked to.
        await call(url, 'loadwallet', [wallet]);
      },
      stop: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
