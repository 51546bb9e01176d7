import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Litecoind,
  litecoindSkipReason,
  RPC_PASSWORD,
  RPC_USER,
  runLitecoindTests,
  startLitecoind,
} from '../../../../test/support/litecoind.ts';
import { freePort } from '../../../../test/support/net.ts';
import { redactUrl } from '../rpc-url.ts';
import { BitcoinRpcError, BitcoinRpcTransportError, createBitcoinRpc } from './rpc.ts';

const logger = pino({ level: 'silent' });
const noSleep = async () => {};

/** A fake node: answers every request with `reply` (status, body) or never answers (`hang`). */
async function fakeNode(
  reply: { status: number; body: string } | 'hang',
): Promise<{ url: string; server: Server; hits: () => number }> {
  let hits = 0;
  const server = createServer((request, response) => {
    hits += 1;
    request.resume();
    if (reply === 'hang') return;
    response.writeHead(reply.status, { 'content-type': 'application/json' });
    response.end(reply.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://u:secret@127.0.0.1:${port}`, server, hits: () => hits };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('createBitcoinRpc without a node', () => {
  it('refuses a URL without credentials when there is no cookie file, and non-http URLs', () => {
    expect(() =>
      createBitcoinRpc({ urls: ['http://127.0.0.1:1'], timeoutMs: 100, retries: 1, logger }),
    ).toThrow(/no user:password/);
    expect(() =>
      createBitcoinRpc({ urls: ['ftp://u:p@127.0.0.1:1'], timeoutMs: 100, retries: 1, logger }),
    ).toThrow(/not an http/);
    expect(() => createBitcoinRpc({ urls: [], timeoutMs: 100, retries: 1, logger })).toThrow(/at least one/);
  });

  it('redacts credentials, paths and queries', () => {
    expect(redactUrl('http://user:pa55@10.0.0.1:8332/wallet/x?k=1')).toBe('http://10.0.0.1:8332/…');
    expect(redactUrl('http://10.0.0.1:8332')).toBe('http://10.0.0.1:8332');
  });

  it('gives up after its rounds with a transport error, says so in health, and never shows the password', async () => {
    const port = await freePort();
    const sleeps: number[] = [];
    const rpc = createBitcoinRpc({
      urls: [`http://user:hunter2@127.0.0.1:${port}`],
      timeoutMs: 1000,
      retries: 3,
      logger,
      backoffMs: 10,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const error = await rpc.call('getblockcount').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BitcoinRpcTransportError);
    expect((error as BitcoinRpcTransportError).kind).toBe('connection');
    expect(sleeps).toEqual([10, 20]);
    const health = rpc.health();
    expect(health.down?.reason).toMatch(/node unreachable: connection failed/);
    expect(JSON.stringify(health)).not.toContain('hunter2');
    await rpc.close();
  });

  it('times out a node that never answers', async () => {
    const node = await fakeNode('hang');
    const rpc = createBitcoinRpc({ urls: [node.url], timeoutMs: 200, retries: 1, logger });
    const error = await rpc.call('getblockcount').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'timeout' });
    await rpc.close();
    await closeServer(node.server);
  });

  it('treats warm-up (-28), 503 without JSON and 401 as transport failures and fails over to the next URL', async () => {
    const warming = await fakeNode({
      status: 500,
      body: '{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":1}',
    });
    const busy = await fakeNode({ status: 503, body: 'Work queue depth exceeded' });
    const unauthorized = await fakeNode({ status: 401, body: '' });
    const good = await fakeNode({ status: 200, body: '{"result":42,"error":null,"id":1}' });
    const rpc = createBitcoinRpc({
      urls: [warming.url, busy.url, unauthorized.url, good.url],
      timeoutMs: 1000,
      retries: 1,
      logger,
    });
    expect(await rpc.call('getblockcount')).toBe(42);
    expect([warming.hits(), busy.hits(), unauthorized.hits(), good.hits()]).toEqual([1, 1, 1, 1]);
    // It stays on the URL that answers.
    expect(await rpc.call('getblockcount')).toBe(42);
    expect(good.hits()).toBe(2);
    expect(rpc.health()).toEqual({ down: null, url: redactUrl(good.url) });
    await rpc.close();
    for (const node of [warming, busy, unauthorized, good]) await closeServer(node.server);
  });

  it("throws the node's JSON-RPC error at once, without failing over or retrying", async () => {
    const failing = await fakeNode({
      status: 500,
      body: '{"result":null,"error":{"code":-5,"message":"Block not found"},"id":1}',
    });
    const other = await fakeNode({ status: 200, body: '{"result":1,"error":null,"id":1}' });
    const rpc = createBitcoinRpc({
      urls: [failing.url, other.url],
      timeoutMs: 1000,
      retries: 3,
      logger,
      sleep: noSleep,
    });
    const error = await rpc.call('getblock', ['00']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BitcoinRpcError);
    expect(error).toMatchObject({ code: -5, method: 'getblock', nodeMessage: 'Block not found' });
    expect([failing.hits(), other.hits()]).toEqual([1, 0]);
    expect(rpc.health().down).toBeNull();
    await rpc.close();
    await closeServer(failing.server);
    await closeServer(other.server);
  });

  it('keeps decimals exact in callExact and not in call', async () => {
    const node = await fakeNode({
      status: 200,
      body: '{"result":{"value":0.30000000,"n":1},"error":null,"id":1}',
    });
    const rpc = createBitcoinRpc({ urls: [node.url], timeoutMs: 1000, retries: 1, logger });
    expect(await rpc.callExact('x')).toEqual({ value: '0.30000000', n: 1 });
    expect(await rpc.call('x')).toEqual({ value: 0.3, n: 1 });
    await rpc.close();
    await closeServer(node.server);
  });

  it('hands back a result object unparsed in callText, and checks any other answer as call does', async () => {
    /** callText('getblock', …) of a fake node answering `reply`; the node is closed after. */
    const callTextOn = async (reply: { status: number; body: string }) => {
      const node = await fakeNode(reply);
      const rpc = createBitcoinRpc({ urls: [node.url], timeoutMs: 1000, retries: 1, logger, sleep: noSleep });
      try {
        return await rpc.callText('getblock', ['h', 2]);
      } finally {
        await rpc.close();
        await closeServer(node.server);
      }
    };
    // Not JSON after the result's first brace: callText does not read it (its caller does).
    const block = '{"result":{"tx":[{"value":0.1}]},"error":null,"id":1} not parsed here';
    expect(await callTextOn({ status: 200, body: block })).toBe(block);

    const other = '{"id":1,"error":null,"result":{"tx":[]}}';
    expect(await callTextOn({ status: 200, body: other })).toBe(other);

    await expect(
      callTextOn({
        status: 404,
        body: '{"result":null,"error":{"code":-5,"message":"Block not found"},"id":1}',
      }),
    ).rejects.toMatchObject({
      name: 'BitcoinRpcError',
      code: -5,
    });

    await expect(callTextOn({ status: 200, body: '{"result":' })).rejects.toMatchObject({
      kind: 'malformed',
    });
  });
});

describe.skipIf(!runLitecoindTests)('createBitcoinRpc against litecoind regtest', () => {
  let node: Litecoind;
  let dir: string;
  beforeAll(async () => {
    node = await startLitecoind({ blocks: 3 });
    dir = mkdtempSync(join(tmpdir(), 'svc-cookie-'));
  });
  afterAll(async () => {
    await node?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('calls the node with user:password from the URL, failing over from a dead URL', async () => {
    const dead = `http://a:b@127.0.0.1:${await freePort()}`;
    const rpc = createBitcoinRpc({ urls: [dead, node.urlWithAuth], timeoutMs: 5000, retries: 1, logger });
    expect(await rpc.call<number>('getblockcount')).toBe(3);
    const info = await rpc.callExact<{ chain: string; difficulty: string }>('getblockchaininfo');
    expect(info.chain).toBe('regtest');
    expect(typeof info.difficulty).toBe('string');
    expect(rpc.health()).toEqual({ down: null, url: `http://127.0.0.1:${node.port}/…` });
    await rpc.close();
  });

  it("throws the node's errors typed (unknown block: -5, bad parameter: -8)", async () => {
    const rpc = createBitcoinRpc({
      urls: [node.urlWithAuth],
      timeoutMs: 5000,
      retries: 2,
      logger,
      sleep: noSleep,
    });
    await expect(rpc.call('getblock', ['00'.repeat(32)])).rejects.toMatchObject({
      name: 'BitcoinRpcError',
      code: -5,
    });
    await expect(rpc.call('getblockhash', [1_000_000])).rejects.toMatchObject({
      name: 'BitcoinRpcError',
      code: -8,
    });
    await expect(rpc.call('nosuchmethod')).rejects.toMatchObject({ name: 'BitcoinRpcError', code: -32601 });
    await rpc.close();
  });

  it('authenticates with a cookie file and reads it again after a 401 (the node rewrote it)', async () => {
    const cookieFile = join(dir, '.cookie');
    writeFileSync(cookieFile, `${RPC_USER}:wrong`);
    const rpc = createBitcoinRpc({ urls: [node.url], cookieFile, timeoutMs: 5000, retries: 1, logger });
    await expect(rpc.call('getblockcount')).rejects.toMatchObject({ kind: 'auth', status: 401 });
    writeFileSync(cookieFile, `${RPC_USER}:${RPC_PASSWORD}\n`);
    expect(await rpc.call<number>('getblockcount')).toBe(3);
    await rpc.close();
  });

  it('reports the node down while it is stopped and recovers when it is back, chain kept', async () => {
    const rpc = createBitcoinRpc({
      urls: [node.urlWithAuth],
      timeoutMs: 2000,
      retries: 2,
      logger,
      backoffMs: 10,
    });
    const tip = await rpc.call<string>('getbestblockhash');
    const restarted = node.restart({ downMs: 1500 });
    // Wait until the old process no longer answers, then ask: every round fails.
    for (let i = 0; i < 100; i++) {
      const answered = await rpc.call('getblockcount').then(
        () => true,
        () => false,
      );
      if (!answered) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(rpc.health().down?.reason).toMatch(/node unreachable/);
    await restarted;
    expect(await rpc.call<string>('getbestblockhash')).toBe(tip);
    expect(rpc.health().down).toBeNull();
    // The payer's wallet is loaded again, for the tests that go on paying.
    expect(await node.rpc('getwalletinfo', [], { wallet: node.wallet })).toMatchObject({
      walletname: node.wallet,
    });
    await rpc.close();
  });
});

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
