import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/net.ts';
import { createSolanaRpcClient, SolanaTransportError } from './rpc.ts';

const logger = pino({ level: 'silent' });
const servers: Server[] = [];

/** A fake RPC: `reply` decides each answer (status, body, headers) from the request count. */
async function fakeRpc(
  reply: (
    hit: number,
    body: { method: string },
  ) => { status: number; body: string; headers?: Record<string, string> },
): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      hits += 1;
      const answer = reply(hits, JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string });
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/?api-key=secret`, hits: () => hits };
}

const ok = (result: string) => ({ status: 200, body: `{"jsonrpc":"2.0","id":0,"result":${result}}` });

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('Solana RPC client', () => {
  it('reads u64 amounts beyond 2^53 exactly (kit parses integers as bigint)', async () => {
    const node = await fakeRpc(() => ok('{"context":{"slot":5},"value":18446744073709551615}'));
    const { rpc } = createSolanaRpcClient({ urls: [node.url], timeoutMs: 1000, retries: 1, logger });
    const { value } = await rpc.getBalance('11111111111111111111111111111111' as never).send();
    expect(value).toBe(18_446_744_073_709_551_615n);
  });

  it('fails over to the next URL when one is down, and says so in health until one answers', async () => {
    const deadPort = await freePort();
    const good = await fakeRpc(() => ok('42'));
    const sleeps: number[] = [];
    const client = createSolanaRpcClient({
      urls: [`http://127.0.0.1:${deadPort}/?api-key=hunter2`, good.url],
      timeoutMs: 1000,
      retries: 2,
      logger,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(await client.rpc.getSlot().send()).toBe(42n);
    expect(client.health()).toEqual({ down: null, url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/) });
    expect(sleeps).toEqual([]);
    expect(client.requests()).toBe(2);
  });

  it('gives up after its rounds with backoff, reports the RPC down without the URL secrets', async () => {
    const deadPort = await freePort();
    const sleeps: number[] = [];
    const client = createSolanaRpcClient({
      urls: [`http://127.0.0.1:${deadPort}/?api-key=hunter2`],
      timeoutMs: 1000,
      retries: 3,
      logger,
      backoffMs: 10,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const error = await client.rpc
      .getSlot()
      .send()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolanaTransportError);
    expect((error as SolanaTransportError).kind).toBe('connection');
    expect(sleeps).toEqual([10, 20]);
    expect(client.health().down?.reason).toMatch(/RPC unreachable: connection failed/);
    expect(JSON.stringify(client.health())).not.toContain('hunter2');
  });

  it('honours a 429: the URL rests for its Retry-After while another answers, then is asked again', async () => {
    const limited = await fakeRpc((hit) =>
      hit === 1 ? { status: 429, body: 'slow down', headers: { 'retry-after': '0.05' } } : ok('7'),
    );
    const other = await fakeRpc(() => ok('8'));
    const client = createSolanaRpcClient({
      urls: [limited.url, other.url],
      timeoutMs: 1000,
      retries: 2,
      logger,
    });
    expect(await client.rpc.getSlot().send()).toBe(8n);
    expect(limited.hits()).toBe(1);
    // Still resting: the other URL answers.
    expect(await client.rpc.getSlot().send()).toBe(8n);
    expect(limited.hits()).toBe(1);
  });

  it('with one URL, waits out a 429 and retries it', async () => {
    const limited = await fakeRpc((hit) =>
      hit === 1 ? { status: 429, body: 'slow down', headers: { 'retry-after': '1' } } : ok('9'),
    );
    const sleeps: number[] = [];
    const client = createSolanaRpcClient({
      urls: [limited.url],
      timeoutMs: 1000,
      retries: 2,
      logger,
      backoffMs: 5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    expect(await client.rpc.getSlot().send()).toBe(9n);
    expect(limited.hits()).toBe(2);
    // The round's backoff, then the rest of the Retry-After (about 1 s).
    expect(sleeps[0]).toBe(5);
    expect(sleeps[1]).toBeGreaterThan(900);
  });

  it("passes the node's JSON-RPC errors through at once (no failover, no retry)", async () => {
    const node = await fakeRpc(() => ({
      status: 200,
      body: '{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Invalid param"}}',
    }));
    const client = createSolanaRpcClient({ urls: [node.url], timeoutMs: 1000, retries: 3, logger });
    await expect(client.rpc.getSlot().send()).rejects.toThrow(/Invalid param|-32602/);
    expect(node.hits()).toBe(1);
    expect(client.health().down).toBeNull();
  });

  it('times a hanging URL out and moves on', async () => {
    const hanging = createServer(() => {});
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    servers.push(hanging);
    const good = await fakeRpc(() => ok('3'));
    const client = createSolanaRpcClient({
      urls: [`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, good.url],
      timeoutMs: 200,
      retries: 1,
      logger,
    });
    expect(await client.rpc.getSlot().send()).toBe(3n);
  });
});
