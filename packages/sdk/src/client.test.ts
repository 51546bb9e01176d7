import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Svc } from './client.ts';
import { SvcError } from './errors.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server answering each request as `answer` says (by its index); records what it saw. */
async function server(answer: (seen: Seen, index: number, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      seen.push(request);
      answer(request, seen.length - 1, res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const close = () => new Promise<void>((resolve) => http.close(() => resolve()));
  closers.push(close);
  return { base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, seen };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_server', ...headers });
  res.end(JSON.stringify(body));
};
const apiError = (code: string, requestId = 'req_abc') => ({
  error: { code, message: `it is ${code}`, request_id: requestId },
});
const payment = { payment_id: '0190b0a4-0000-7000-8000-000000000001', status: 'pending' };
const key = 'svc_test_0123456789abcdef';

describe('the client', () => {
  it('retries a creation after a dropped connection, a 5xx and a 409 in progress, with one Idempotency-Key', async () => {
    const { base, seen } = await server((_request, index, res) => {
      if (index === 0) res.socket?.destroy();
      else if (index === 1) json(res, 503, apiError('service_unavailable'));
      else if (index === 2) json(res, 409, apiError('idempotency_in_progress'));
      else json(res, 201, payment);
    });
    const svc = new Svc({ apiKey: key, baseUrl: base });
    await expect(svc.payments.create({ amount: '10', currency: 'USD', chain: 'ethereum' })).resolves.toEqual(
      payment,
    );
    expect(seen).toHaveLength(4);
    const keys = new Set(seen.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      seen.every((request) => request.headers['x-api-key'] === key && request.url === '/v1/payments'),
    ).toBe(true);
    expect(JSON.parse(seen[3]?.body ?? '')).toEqual({ amount: '10', currency: 'USD', chain: 'ethereum' });
  });

  it('waits as Retry-After says on a 429', async () => {
    const { base, seen } = await server((_request, index, res) => {
      if (index === 0) json(res, 429, apiError('rate_limited'), { 'retry-after': '1' });
      else json(res, 200, { data: [] });
    });
    const started = Date.now();
    await new Svc({ apiKey: key, baseUrl: base }).webhookEndpoints.list().toArray();
    expect(seen).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('never retries another 4xx, and surfaces the code, the parameter and the request id', async () => {
    const { base, seen } = await server((_request, _index, res) =>
      json(res, 400, {
        error: { code: 'unsupported_chain', message: 'no', param: 'chain', request_id: 'req_x' },
      }),
    );
    const error = await new Svc({ apiKey: key, baseUrl: `${base}/v1/` }).payments
      .create({ amount: '1', currency: 'USD', chain: 'nowhere' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({
      code: 'unsupported_chain',
      status: 400,
      param: 'chain',
      requestId: 'req_x',
    });
    expect(seen).toHaveLength(1);
  });

  it('does not send a creation without idempotency again after a 5xx, and says when no answer came', async () => {
    const { base, seen } = await server((_request, _index, res) =>
      json(res, 500, apiError('internal_error')),
    );
    const svc = new Svc({ apiKey: key, baseUrl: base, maxRetries: 2 });
    await expect(svc.webhookEndpoints.create({ url: 'https://shop.example/hooks' })).rejects.toMatchObject({
      code: 'internal_error',
      status: 500,
      requestId: 'req_abc',
    });
    expect(seen).toHaveLength(1);
    // Reads are retried, then the last answer is thrown.
    await expect(svc.events.retrieve('evt_1')).rejects.toMatchObject({ code: 'internal_error' });
    expect(seen).toHaveLength(4);
    const closed = new Svc({ apiKey: key, baseUrl: 'http://127.0.0.1:9', maxRetries: 1 });
    await expect(closed.events.retrieve('evt_1')).rejects.toMatchObject({ code: 'network_error', status: 0 });
    // A proxy's page instead of the API's answer.
    const { base: proxy } = await server((_request, _index, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    });
    await expect(
      new Svc({ apiKey: key, baseUrl: proxy, maxRetries: 0 }).events.retrieve('e'),
    ).rejects.toMatchObject({
      code: 'unexpected_response',
      status: 502,
      requestId: undefined,
    });
  });

  it('lists every page as one async iterator', async () => {
    const pages = [
      { data: [{ payment_id: 'a' }, { payment_id: 'b' }], has_more: true, next_cursor: 'b' },
      { data: [{ payment_id: 'c' }], has_more: true, next_cursor: 'c' },
      { data: [{ payment_id: 'd' }], has_more: false, next_cursor: null },
    ];
    const { base, seen } = await server((_request, index, res) => json(res, 200, pages[index]));
    const ids: string[] = [];
    for await (const item of new Svc({ apiKey: key, baseUrl: base }).payments.list({
      status: 'completed',
      limit: 2,
    })) {
      ids.push(item.payment_id);
    }
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
    expect(seen.map((request) => request.url)).toEqual([
      '/v1/payments?status=completed&limit=2',
      '/v1/payments?status=completed&limit=2&starting_after=b',
      '/v1/payments?status=completed&limit=2&starting_after=c',
    ]);
  });

  it('refuses a value that is not an svc key', () => {
    expect(() => new Svc({ apiKey: 'sk_test_123' })).toThrow(/svc_test_/);
  });
});
