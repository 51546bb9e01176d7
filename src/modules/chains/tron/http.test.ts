import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTronHttp, TronApiError, TronTransportError } from './http.ts';

const logger = pino({ level: 'silent' });
const noSleep = async () => {};
const servers: Server[] = [];

/** A stand-in HTTP API answering every request with `reply`; records paths and headers. */
async function fakeApi(reply: { status: number; body: string } | 'hang') {
  const seen: Array<{ path: string; key: string | undefined; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      seen.push({
        path: request.url ?? '',
        key: request.headers['tron-pro-api-key'] as string | undefined,
        body,
      });
      if (reply === 'hang') return;
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(reply.body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('createTronHttp', () => {
  it('posts JSON under the base path with the API key header, and reads big integers exactly', async () => {
    const api = await fakeApi({ status: 200, body: '{"balance":123456789012345678901,"n":5}' });
    const http = createTronHttp({
      urls: [`${api.url}/prefix/`],
      apiKey: 'k-123',
      timeoutMs: 1000,
      retries: 1,
      logger,
    });
    const answer = await http.post<{ balance: string; n: number }>('/wallet/getaccount', { address: 'T…' });
    expect(answer).toEqual({ balance: '123456789012345678901', n: 5 });
    expect(api.seen[0]).toEqual({
      path: '/prefix/wallet/getaccount',
      key: 'k-123',
      body: '{"address":"T…"}',
    });
    await http.close();
  });

  it('throws the node`s own refusal at once, without failing over', async () => {
    const api = await fakeApi({
      status: 200,
      body: '{"Error":"class java.lang.NullPointerException : null"}',
    });
    const second = await fakeApi({ status: 200, body: '{}' });
    const http = createTronHttp({
      urls: [api.url, second.url],
      timeoutMs: 1000,
      retries: 3,
      logger,
      sleep: noSleep,
    });
    await expect(http.post('/wallet/broadcasttransaction')).rejects.toBeInstanceOf(TronApiError);
    expect(second.seen).toHaveLength(0);
    expect(http.health().down).toBeNull();
  });

  it('fails over on 503 and 429, backs off between rounds, and records the outage until a request succeeds', async () => {
    const busy = await fakeApi({ status: 503, body: 'Service Unavailable' });
    const limited = await fakeApi({ status: 429, body: '' });
    const sleeps: number[] = [];
    const http = createTronHttp({
      urls: [busy.url, limited.url],
      timeoutMs: 1000,
      retries: 3,
      backoffMs: 100,
      logger,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
    const error = await http.post('/wallet/getnowblock').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TronTransportError);
    expect((error as TronTransportError).message).toMatch(/429 \(rate limited/);
    expect(busy.seen).toHaveLength(3);
    expect(limited.seen).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
    expect(http.health().down?.reason).toMatch(/node unreachable/);
    await http.close();

    const good = await fakeApi({ status: 200, body: '{"blockID":"00"}' });
    const failover = createTronHttp({
      urls: [busy.url, good.url],
      timeoutMs: 1000,
      retries: 1,
      logger,
      sleep: noSleep,
    });
    expect(await failover.post('/wallet/getnowblock')).toEqual({ blockID: '00' });
    // The answering URL is kept: the next request goes there first.
    await failover.post('/wallet/getnowblock');
    expect(good.seen).toHaveLength(2);
    expect(failover.health()).toEqual({ down: null, url: good.url });
    await failover.close();
  });

  it('times out a node that never answers, and calls an empty or non-JSON body what it is', async () => {
    const hang = await fakeApi('hang');
    const http = createTronHttp({ urls: [hang.url], timeoutMs: 200, retries: 1, logger });
    await expect(http.post('/wallet/getnowblock')).rejects.toMatchObject({ kind: 'timeout' });
    await http.close();
    const html = await fakeApi({ status: 200, body: '<html>' });
    const bad = createTronHttp({ urls: [html.url], timeoutMs: 1000, retries: 1, logger });
    await expect(bad.post('/wallet/getnowblock')).rejects.toMatchObject({ kind: 'malformed' });
    await bad.close();
  });

  it('refuses non-http URLs and an empty list', () => {
    expect(() => createTronHttp({ urls: [], timeoutMs: 1, retries: 1, logger })).toThrow(/at least one/);
    expect(() => createTronHttp({ urls: ['ftp://x'], timeoutMs: 1, retries: 1, logger })).toThrow(
      /not an http/,
    );
  });
});
