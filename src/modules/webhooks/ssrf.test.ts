import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { createWebhookSender } from './delivery/sender.ts';
import { parseNetworkList } from './networks.ts';
import { classifyAddress, createSsrfGuard, type Resolver } from './ssrf.ts';

/** A resolver from a fixed table, so names can point anywhere without DNS. */
const table =
  (entries: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const addresses = entries[hostname];
    if (addresses === undefined)
      throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

const resolver = table({
  'public.example': ['93.184.216.34'],
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'v6private.example': ['2606:4700::1111', 'fd12:3456::1'],
  'loopback.example': ['127.0.0.1'],
  'rebind.example': ['127.0.0.1'],
});

const hostile = [
  'http://127.0.0.1/hook',
  'http://127.1/',
  'http://0177.0.0.1/',
  'http://017700000001/',
  'http://2130706433/',
  'http://0x7f000001/',
  'http://0x7f.0.0.1/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://api.localhost/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:7f00:1::]/',
  'http://[::127.0.0.1]/',
  'http://10.0.0.1/',
  'http://0x0a.0.0.1/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://2852039166/',
  'http://100.64.0.1/',
  'http://198.18.0.1/',
  'http://192.0.0.170/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://255.255.255.255/',
  'http://240.0.0.1/',
  'http://[fe80::1]/',
  'http://[fc00::1]/',
  'http://[fd00:ec2::254]/',
  'http://[ff02::1]/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://printer.local/',
  'http://router.home.arpa/',
  'http://mixed.example/',
  'http://mapped.example/',
  'http://v6private.example/',
  'http://loopback.example/',
];

function refused(check: Promise<void>) {
  return expect(check).rejects.toSatisfy(
    (error: unknown) =>
      error instanceof AppError && error.code === 'parameter_invalid' && error.param === 'url',
  );
}

describe('SSRF guard at registration', () => {
  const strict = createSsrfGuard({ allowLoopbackForTest: false, resolver });
  const developer = createSsrfGuard({ allowLoopbackForTest: true, resolver });

  it(`refuses all ${hostile.length} hostile URLs for live endpoints and for test endpoints without the allowance`, async () => {
    expect(hostile.length).toBeGreaterThanOrEqual(20);
    for (const raw of hostile) {
      const url = new URL(raw);
      await refused(strict.checkUrl(url, false));
      await refused(strict.checkUrl(url, true));
      await refused(developer.checkUrl(url, false));
    }
  });

  const loopbackUrls = [
    'http://127.0.0.1:4000/',
    'http://localhost:4000/',
    'http://[::1]:4000/',
    'http://2130706433/',
    'http://loopback.example/',
  ];

  it("lets the operator's test endpoints reach loopback, and only loopback, with the allowance", async () => {
    for (const raw of loopbackUrls) {
      await expect(developer.checkUrl(new URL(raw), true, true)).resolves.toBeUndefined();
      await refused(developer.checkUrl(new URL(raw), false, true));
    }
    for (const raw of [
      'http://10.0.0.1/',
      'http://169.254.169.254/',
      'http://[::ffff:127.0.0.1]/',
      'http://mixed.example/',
    ]) {
      await refused(developer.checkUrl(new URL(raw), true, true));
    }
  });

  it('refuses loopback to test endpoints of anyone but an operator, with its own code', async () => {
    for (const raw of loopbackUrls) {
      await expect(developer.checkUrl(new URL(raw), true, false), raw).rejects.toSatisfy(
        (error: unknown) =>
          error instanceof AppError &&
          error.code === 'private_target_not_allowed' &&
          error.status === 400 &&
          error.param === 'url' &&
          /operator/.test(error.message),
      );
    }
    // Without the allowance nobody may: the error says which setting, not who.
    await refused(strict.checkUrl(new URL('http://127.0.0.1:4000/'), true, true));
  });

  it("reaches the operator's trusted networks in both modes, and nothing else private", async () => {
    const operator = createSsrfGuard({
      allowLoopbackForTest: false,
      trustedNetworks: parseNetworkList('10.0.0.0/24, 127.0.0.1'),
      resolver: table({
        'shop.lan': ['10.0.0.7'],
        'other.lan': ['10.0.1.7'],
        'half.example': ['10.0.0.7', '10.9.9.9'],
      }),
    });
    for (const isTest of [false, true]) {
      for (const raw of [
        'https://10.0.0.7/',
        'https://127.0.0.1:8443/',
        'https://localhost/',
        'https://shop.lan/',
      ]) {
        await expect(operator.checkUrl(new URL(raw), isTest), raw).resolves.toBeUndefined();
      }
      for (const raw of [
        'https://10.0.1.1/',
        'https://127.0.0.2/',
        'https://[::1]/',
        'https://[::ffff:10.0.0.7]/',
        'https://other.lan/',
        'https://half.example/',
        'https://169.254.169.254/',
      ]) {
        await refused(operator.checkUrl(new URL(raw), isTest));
      }
    }
    await expect(strict.checkUrl(new URL('https://10.0.0.7/'), false)).rejects.toThrow(
      /SVC_WEBHOOK_TRUSTED_NETWORKS/,
    );
  });

  it('parses network lists and names a bad entry', () => {
    expect(parseNetworkList(undefined)).toEqual([]);
    expect(parseNetworkList(' 10.0.5.0/24 ,127.0.0.1, fd00::/8,::1')).toEqual([
      '10.0.5.0/24',
      '127.0.0.1/32',
      'fd00::/8',
      '::1/128',
    ]);
    for (const bad of ['10.0.0.0/33', 'shop.lan', '10.0.0.0/', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/x']) {
      expect(() => parseNetworkList(bad), bad).toThrow(/is not a network/);
    }
  });

  it('accepts public addresses and names, and names that do not resolve yet', async () => {
    for (const raw of ['https://93.184.216.34/', 'https://[2606:4700::1111]/', 'https://public.example/x']) {
      await expect(strict.checkUrl(new URL(raw), false)).resolves.toBeUndefined();
    }
    await expect(strict.checkUrl(new URL('https://not-yet.example/'), false)).resolves.toBeUndefined();
  });

  it('names the reason', async () => {
    await expect(strict.checkUrl(new URL('http://169.254.169.254/'), false)).rejects.toThrow(/link-local/);
    await expect(strict.checkUrl(new URL('http://mixed.example/'), false)).rejects.toThrow(
      /mixed\.example resolves to 10\.0\.0\.7 is a private address/,
    );
  });

  it('classifies addresses', () => {
    expect(classifyAddress('8.8.8.8')).toBe('public');
    expect(classifyAddress('2001:4860:4860::8888')).toBe('public');
    expect(classifyAddress('127.8.9.10')).toBe('loopback');
    expect(classifyAddress('::1')).toBe('loopback');
    expect(classifyAddress('::ffff:8.8.8.8')).toBe('ipv4-mapped');
    expect(classifyAddress('100.127.255.255')).toBe('cgnat');
    expect(classifyAddress('100.128.0.0')).toBe('public');
    expect(classifyAddress('172.32.0.1')).toBe('public');
    expect(classifyAddress('not an address')).toBe('reserved');
  });
});

describe('SSRF guard at delivery', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits += 1;
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (
    sender: ReturnType<typeof createWebhookSender>,
    url: string,
    isTest: boolean,
    operator = false,
  ) => sender.send({ url, isTest, operator, headers: { 'content-type': 'application/json' }, body: '{}' });

  it('never connects a live delivery to loopback, whatever the spelling or the DNS answer', async () => {
    const sender = createWebhookSender({
      guard: createSsrfGuard({ allowLoopbackForTest: true, resolver }),
      timeoutMs: 1000,
      connectionsPerOrigin: 2,
    });
    for (const host of [
      '127.0.0.1',
      '2130706433',
      '[::1]',
      'localhost',
      'rebind.example',
      '[::ffff:127.0.0.1]',
    ]) {
      const result = await post(sender, `http://${host}:${port}/`, false, true);
      expect(result, host).toMatchObject({ ok: false, statusCode: null });
      expect(result.error, host).toMatch(/Refused/);
    }
    expect(hits).toBe(0);
    await sender.close();
  });

  it('connects to the address it checked (pinned), and refuses loopback for test endpoints without the allowance', async () => {
    // The name resolves to loopback only through the guard's resolver: the socket must use that answer.
    const allowed = createWebhookSender({
      guard: createSsrfGuard({ allowLoopbackForTest: true, resolver }),
      timeoutMs: 1000,
      connectionsPerOrigin: 2,
    });
    const result = await post(allowed, `http://rebind.example:${port}/`, true, true);
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    expect(hits).toBe(1);
    // Not an operator's endpoint: refused at the connection even with the allowance.
    for (const url of [`http://rebind.example:${port}/`, `http://127.0.0.1:${port}/`]) {
      expect((await post(allowed, url, true, false)).error, url).toMatch(/Refused.*operator/);
    }
    expect(hits).toBe(1);
    await allowed.close();

    const strict = createWebhookSender({
      guard: createSsrfGuard({ allowLoopbackForTest: false, resolver }),
      timeoutMs: 1000,
      connectionsPerOrigin: 2,
    });
    for (const url of [`http://rebind.example:${port}/`, `http://127.0.0.1:${port}/`]) {
      const refusedResult = await post(strict, url, true);
      expect(refusedResult.error).toMatch(/Refused/);
    }
    expect(hits).toBe(1);
    await strict.close();
  });

  it('never keeps the response body of a private target (loopback, a trusted network), however it is named', async () => {
    const sender = createWebhookSender({
      guard: createSsrfGuard({ allowLoopbackForTest: true, trustedNetworks: ['127.0.0.0/8'], resolver }),
      timeoutMs: 1000,
      connectionsPerOrigin: 2,
    });
    const before = hits;
    for (const [url, isTest] of [
      [`http://127.0.0.1:${port}/`, true],
      [`http://rebind.example:${port}/`, true],
      [`http://127.0.0.1:${port}/`, false],
      [`http://loopback.example:${port}/`, false],
    ] as const) {
      const result = await post(sender, url, isTest, true);
      expect(result, url).toMatchObject({ ok: true, statusCode: 200, responseBody: null });
    }
    expect(hits - before).toBe(4);
    await sender.close();
  });

  it('reports a name that does not resolve as a failed attempt', async () => {
    const sender = createWebhookSender({
      guard: createSsrfGuard({ allowLoopbackForTest: true, resolver }),
      timeoutMs: 1000,
      connectionsPerOrigin: 2,
    });
    const result = await post(sender, 'https://nowhere.example/', false);
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/ENOTFOUND/);
    await sender.close();
  });
});
