import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { closeEndpoints, createNodeFailover, nodeEndpoint, postToNode } from './node-failover.ts';

class Transport extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

/** A logger that keeps its lines (level and message) for the test to read. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        const { level, msg } = JSON.parse(line) as { level: number; msg: string };
        lines.push({ level, msg });
      },
    },
  );
  return { logger, lines };
}

function failover(urls: string[], options: { retries?: number; sleeps?: number[] } = {}) {
  const { logger, lines } = recordingLogger();
  const endpoints = urls.map(nodeEndpoint);
  const run = createNodeFailover({
    endpoints,
    retries: options.retries ?? 3,
    backoffMs: 100,
    sleep: async (ms) => {
      options.sleeps?.push(ms);
    },
    logger,
    name: 'Test',
    isTransportError: (error) => error instanceof Transport,
    unreachable: (reason) => new Transport('connection', reason),
  });
  return { run, endpoints, lines };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('createNodeFailover', () => {
  it('tries each URL in order on transport failures, backs off between rounds, and stays on the one that answers', async () => {
    const sleeps: number[] = [];
    const { run, lines } = failover(['http://a.test:1', 'http://b.test:2', 'http://c.test:3'], { sleeps });
    const asked: string[] = [];
    // a and b fail in the first round, c answers.
    const answer = await run.run({ path: '/x' }, async (endpoint) => {
      asked.push(endpoint.url.host);
      if (endpoint.url.host !== 'c.test:3') throw new Transport('connection', 'refused');
      return 42;
    });
    expect(answer).toBe(42);
    expect(asked).toEqual(['a.test:1', 'b.test:2', 'c.test:3']);
    expect(sleeps).toEqual([]);
    expect(run.health()).toEqual({ down: null, url: 'http://c.test:3' });
    // The next request starts where the last answer came from.
    asked.length = 0;
    await run.run({ path: '/y' }, async (endpoint) => {
      asked.push(endpoint.url.host);
      return 1;
    });
    expect(asked).toEqual(['c.test:3']);
    expect(lines.filter((line) => line.msg === 'Test node request failed; failing over')).toHaveLength(2);
  });

  it('throws anything but a transport failure at once, on the first URL, without backoff', async () => {
    const sleeps: number[] = [];
    const { run } = failover(['http://a.test:1', 'http://b.test:2'], { sleeps });
    const asked: string[] = [];
    await expect(
      run.run({}, async (endpoint) => {
        asked.push(endpoint.url.host);
        throw new TypeError('a bug, not the network');
      }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(asked).toEqual(['a.test:1']);
    expect(sleeps).toEqual([]);
    expect(run.health().down).toBeNull();
  });

  it('gives up after its rounds with the last transport error, records the outage once and its end', async () => {
    const sleeps: number[] = [];
    const { run, lines } = failover(['http://a.test:1', 'http://user:secret@b.test:2/key'], { sleeps });
    let calls = 0;
    const failing = async (): Promise<number> => {
      calls += 1;
      throw new Transport('timeout', `timed out (${calls})`);
    };
    await expect(run.run({ method: 'm' }, failing)).rejects.toThrow('timed out (6)');
    expect(calls).toBe(6);
    expect(sleeps).toEqual([100, 200]);
    const first = run.health().down;
    expect(first?.reason).toBe('node unreachable: timed out (6) (http://a.test:1, http://b.test:2/…)');
    expect(first?.reason).not.toContain('secret');
    // Still down: the reason follows the last failure, `since` stays when it began; one error line in all.
    await expect(run.run({ method: 'm' }, failing)).rejects.toThrow('timed out (12)');
    expect(run.health().down?.since).toBe(first?.since);
    expect(run.health().down?.reason).toContain('timed out (12)');
    expect(lines.filter((line) => line.msg === 'Test node down: every RPC URL failed')).toHaveLength(1);
    // While down, the failures of each URL are not logged again.
    expect(lines.filter((line) => line.msg.startsWith('Test node request failed'))).toHaveLength(6);
    // An answer ends the outage, and says so.
    expect(await run.run({ method: 'm' }, async () => 'ok')).toBe('ok');
    expect(run.health().down).toBeNull();
    expect(lines.filter((line) => line.msg === 'Test node reachable again')).toHaveLength(1);
  });

  it('without a single attempt (no rounds), throws what `unreachable` makes of the reason', async () => {
    const { run } = failover(['http://a.test:1'], { retries: 0 });
    await expect(run.run({}, async () => 1)).rejects.toThrow(
      'node unreachable: no attempt (http://a.test:1)',
    );
  });

  it('refuses no URL and URLs that are not http(s)', () => {
    expect(() => failover([])).toThrow('Test needs at least one RPC URL');
    expect(() => nodeEndpoint('ftp://user:pw@node.test/')).toThrow(
      'RPC URL "ftp://node.test/…" is not an http:// or https:// URL',
    );
  });
});

describe('postToNode', () => {
  it('posts to the node and reads the whole answer; a refused connection and a timeout are transport failures', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/hang') return;
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        response.writeHead(207, { 'content-type': 'text/plain' });
        response.end(`${request.method} ${request.url} ${request.headers['x-k']} ${body}`);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const endpoint = nodeEndpoint(url);
    const make = (kind: string, message: string) => new Transport(kind, message);
    expect(
      await postToNode(
        endpoint,
        { path: '/p?q=1', headers: { 'x-k': 'v' }, body: 'hello', timeoutMs: 5000 },
        make,
      ),
    ).toEqual({ status: 207, text: 'POST /p?q=1 v hello' });
    await expect(
      postToNode(endpoint, { path: '/hang', headers: {}, body: '', timeoutMs: 100 }, make),
    ).rejects.toMatchObject({ kind: 'timeout', message: 'timed out after 100 ms' });
    await closeEndpoints([endpoint]);

    const closed = nodeEndpoint('http://127.0.0.1:1');
    await expect(
      postToNode(closed, { path: '/', headers: {}, body: '', timeoutMs: 5000 }, make),
    ).rejects.toMatchObject({ kind: 'connection', message: 'connection failed (ECONNREFUSED)' });
    await closeEndpoints([closed]);
  });
});
