import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * A real local EVM node for tests: anvil from the `@foundry-rs/anvil` npm package (its platform package ships the
 * binary, so `npm install` alone provides it). Started on a free 127.0.0.1 port (`--port 0`, read back from its
 * "Listening on" line) and stopped after. `restart()` keeps the chain: the state is dumped on the way down and loaded
 * again, so a test can take the node away mid-scan and bring it back.
 */

const require = createRequire(import.meta.url);

/** Path of the anvil binary inside node_modules (the platform package of this machine). */
function anvilBinary(): string {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const binary = join(dirname(require.resolve(`${platformPackage}/package.json`)), 'bin', 'anvil');
    if (existsSync(binary)) return binary;
  } catch {
    // fall through to the wrapper
  }
  return join(dirname(require.resolve('@foundry-rs/anvil/package.json')), 'bin.mjs');
}

/** The default anvil mnemonic: its accounts are the well-known funded dev accounts. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

/** Private keys of the first anvil dev accounts (published with anvil; no real value anywhere). */
export const ANVIL_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
] as const;

export interface AnvilOptions {
  /** Seconds between blocks; unset mines one block per transaction (automine). */
  blockTime?: number;
  chainId?: number;
  /** Ether of each dev account. */
  balance?: number;
  /** Gas limit of a block (the bench fills blocks with hundreds of transfers). */
  gasLimit?: bigint;
  /** Dev accounts to create. */
  accounts?: number;
  /** Extra command-line arguments. */
  args?: string[];
}

export interface Anvil {
  url: string;
  port: number;
  /** JSON-RPC call straight to the node (test set-up; the program under test uses its own client). */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Stops the node, keeping its state, and starts it again on the same port. */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the node without keeping it (state is lost). */
  stop(): Promise<void>;
}

function startProcess(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`anvil did not start within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Listening on [0-9.]+:(\d+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        // Keep draining its output so the pipe never fills.
        child.stdout?.on('data', () => {});
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`anvil exited with ${code} before listening:\n${output}`));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

let rpcId = 0;

export async function rpcCall<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  rpcId += 1;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: rpcId, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const baseArgs = [
    '--host',
    '127.0.0.1',
    '--chain-id',
    String(options.chainId ?? 31337),
    '--accounts',
    String(options.accounts ?? 4),
    '--balance',
    String(options.balance ?? 10_000),
    '--mnemonic',
    ANVIL_MNEMONIC,
    ...(options.blockTime === undefined ? [] : ['--block-time', String(options.blockTime)]),
    ...(options.gasLimit === undefined ? [] : ['--gas-limit', options.gasLimit.toString()]),
    ...(options.args ?? []),
  ];
  let { child, port } = await startProcess([...baseArgs, '--port', '0']);
  const url = () => `http://127.0.0.1:${port}`;
  const anvil: Anvil = {
    get url() {
      return url();
    },
    get port() {
      return port;
    },
    rpc: (method, params) => rpcCall(url(), method, params),
    async restart({ downMs = 0 } = {}) {
      const state = await rpcCall<string>(url(), 'anvil_dumpState');
      await stopProcess(child);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      const started = await startProcess([...baseArgs, '--port', String(port)]);
      child = started.child;
      port = started.port;
      await rpcCall(url(), 'anvil_loadState', [state]);
    },
    async stop() {
      await stopProcess(child);
    },
  };
  return anvil;
}
