import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorStatus } from '../src/lib/errors.ts';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type Merchant,
  type TestApp,
} from './support/harness.ts';

/**
 * Requests generated from the served OpenAPI document, every operation, each with some of its input broken: wrong
 * types, NUL bytes, lone surrogates, huge strings, bad JSON, wrong content types and methods, mangled paths and
 * query strings, odd headers; a smaller share over a real socket for what `inject` cannot send (malformed request
 * lines, oversized or invalid headers). Seeded, so a failure is reproducible: SVC_FUZZ_SEED and SVC_FUZZ_COUNT
 * override the defaults. No answer may be a 5xx, and every error answer must be the one error shape.
 */
const SEED = Number(process.env.SVC_FUZZ_SEED ?? 20_261_125);
const COUNT = Number(process.env.SVC_FUZZ_COUNT ?? 10_000);
const RAW_COUNT = Math.max(50, Math.round(COUNT / 40));

/** mulberry32: small, fast and good enough to pick cases. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: Json[];
  const?: Json;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | undefined;
  security: Array<Record<string, string[]>> | undefined;
  /** Answers a stream (Server-Sent Events) that stays open until the client goes. */
  streams: boolean;
}

const nasty: Json[] = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '',
  ' ',
  'x'.repeat(5_000),
  "' or 1=1 --",
  '%00',
  '../../etc/passwd',
  '\u202e\ufeff',
  '😀'.repeat(50),
  '1e309',
  'NaN',
  '-0',
  '0x10',
  '9'.repeat(400),
  'null',
  '<script>alert(1)</script>',
  '2026-13-45T99:99:99Z',
];
const wrongTypes: Json[] = [
  null,
  true,
  0,
  -1,
  0.5,
  1e308,
  -1e308,
  2 ** 63,
  Number.MAX_SAFE_INTEGER + 2,
  [],
  {},
  [null],
  { a: '\u0000' },
  { __proto__: { polluted: true } } as unknown as Json,
];

function makeGenerator(
  document: { components?: { schemas?: Record<string, Schema> } },
  random: () => number,
) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const chance = (p: number) => random() < p;
  const resolve = (schema: Schema): Schema => {
    if (schema.$ref === undefined) return schema;
    const name = schema.$ref.split('/').pop() ?? '';
    return document.components?.schemas?.[name] ?? {};
  };
  const uuid = () =>
    'xxxxxxxx-xxxx-7xxx-8xxx-xxxxxxxxxxxx'.replace(/x/g, () => Math.floor(random() * 16).toString(16));

  /** A plausible value of a schema. */
  const valid = (input: Schema, depth = 0): Json => {
    const schema = resolve(input);
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return pick(schema.enum);
    const union = schema.anyOf ?? schema.oneOf;
    if (union) return valid(pick(union), depth + 1);
    if (schema.allOf?.[0]) return valid(schema.allOf[0], depth + 1);
    const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return chance(0.5);
      case 'integer':
        return Math.floor(
          (schema.minimum ?? 0) + random() * Math.min(100, (schema.maximum ?? 100) - (schema.minimum ?? 0)),
        );
      case 'number':
        return (schema.minimum ?? 0) + random() * 10;
      case 'array':
        return depth > 3 || !schema.items ? [] : [valid(schema.items, depth + 1)];
      case 'object': {
        const out: Record<string, Json> = {};
        for (const [key, value] of Object.entries(schema.properties ?? {})) {
          if (depth < 4 && (schema.required?.includes(key) || chance(0.5)))
            out[key] = valid(value, depth + 1);
        }
        return out;
      }
      default:
        break;
    }
    switch (schema.format) {
      case 'uuid':
        return uuid();
      case 'uri':
        return pick(['https://example.com/hooks', 'http://127.0.0.1:9/x', 'ftp://x', 'https://[::1]/']);
      case 'date-time':
        return new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 1e10)).toISOString();
      case 'email':
        return `fuzz-${Math.floor(random() * 1e9)}@example.com`;
      default:
        return pick([
          '19.99',
          '0.05',
          'ethereum',
          'USD',
          'ETH',
          'base',
          'abc',
          `evt_${uuid().slice(0, 20)}`,
          '1',
        ]);
    }
  };

  /** The same value with something broken somewhere inside it. */
  const mutate = (value: Json, depth = 0): Json => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 4 && chance(0.7)) {
      const keys = Object.keys(value);
      const out = { ...value };
      const roll = random();
      if (keys.length > 0 && roll < 0.6) {
        const key = pick(keys);
        out[key] = mutate(out[key] ?? null, depth + 1);
      } else if (keys.length > 0 && roll < 0.75) {
        delete out[pick(keys)];
      } else {
        out[pick(['extra', '\u0000', 'constructor', 'x'.repeat(300), '\ud800'])] = pick(nasty);
      }
      return out;
    }
    if (Array.isArray(value) && value.length > 0 && chance(0.5)) return [mutate(value[0] ?? null, depth + 1)];
    return chance(0.6) ? pick(nasty) : pick(wrongTypes);
  };

  /** A path or query segment: valid, random, or mangled (bad percent-encoding, encoded NUL and surrogates, …). */
  const segment = (schema: Schema | undefined): string => {
    const roll = random();
    if (roll < 0.35) return encodeURIComponent(String(valid(schema ?? { type: 'string' })));
    if (roll < 0.55) {
      const value = pick(nasty);
      try {
        return encodeURIComponent(String(value));
      } catch {
        return '%ED%A0%80'; // a lone surrogate cannot be encoded as UTF-8: send its CESU bytes instead
      }
    }
    return pick([
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%80',
      '%ED%A0%80',
      '%FF%FE',
      '%00',
      'a%2Fb',
      '..',
      '%2e%2e',
      'x'.repeat(250),
      '-1',
      '1e999',
      'true',
      '[]',
      '{}',
      uuid().toUpperCase(),
      `${uuid()}%00`,
      ' ',
      '%20',
      '😀',
    ]);
  };

  return { random, pick, chance, valid, mutate, segment };
}

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * What is wrong with an answer, or null: no 5xx, and an error answer is exactly the one error shape, except the
 * hosted checkout's own HTML pages (a payer's browser gets a page that says the link is wrong, not JSON).
 */
function problem(method: string, answer: Answer, url = ''): string | null {
  if (answer.status >= 500) return `status ${answer.status}`;
  if (answer.status < 400 || method === 'HEAD') return null;
  const checkoutPage = url.startsWith('/pay/') && !url.startsWith('/pay/assets/');
  if (checkoutPage && String(answer.headers['content-type']).startsWith('text/html')) return null;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `status ${answer.status}, not JSON: ${answer.body.slice(0, 120)}`;
  }
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (body === null || typeof body !== 'object' || Object.keys(body).join() !== 'error' || !error) {
    return `not the error shape: ${answer.body.slice(0, 160)}`;
  }
  const extra = Object.keys(error).filter((key) => !['code', 'message', 'param', 'request_id'].includes(key));
  const code = error.code as keyof typeof errorStatus;
  if (extra.length > 0) return `extra error fields ${extra.join()}`;
  if (!(code in errorStatus)) return `code ${String(code)} not in the closed list`;
  if (errorStatus[code] !== answer.status) return `code ${code} with status ${answer.status}`;
  if (typeof error.message !== 'string' || typeof error.request_id !== 'string') return 'message/request_id';
  if (error.param !== undefined && typeof error.param !== 'string') return 'param not a string';
  return null;
}

let t: TestApp;
let m: Merchant;
let operations: Operation[];
let document: { paths: Record<string, Record<string, Record<string, unknown>>> };
beforeAll(async () => {
  t = await createTestApp();
  m = await createMerchant(t.app);
  document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  operations = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const content = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)
        ?.content;
      operations.push({
        method: method.toUpperCase(),
        path: `/v1${path}`,
        parameters: (op.parameters as Parameter[] | undefined) ?? [],
        body: content?.['application/json']?.schema,
        security: op.security as Operation['security'],
        streams:
          (op.responses as Record<string, { content?: Record<string, unknown> }> | undefined)?.['200']
            ?.content?.['text/event-stream'] !== undefined,
      });
    }
  }
});
afterAll(() => t?.close());

type InjectRequest = { method: 'GET'; url: string; headers: Record<string, string>; payload?: string };

async function injectWhole(request: InjectRequest): Promise<Answer> {
  const response = await t.app.inject(request);
  return { status: response.statusCode, headers: response.headers, body: response.body };
}

/**
 * A route that answers a stream: the answer is taken once its head is written. An open stream is checked by its head
 * and then closed as a client going away would; anything else is read to its end.
 */
async function injectStream(request: InjectRequest): Promise<Answer> {
  const response = await t.app.inject({ ...request, payloadAsStream: true });
  const head = { status: response.statusCode, headers: response.headers };
  if (String(response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    response.raw.res.destroy();
    return { ...head, body: '' };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of response.stream()) chunks.push(chunk as Buffer);
  return { ...head, body: Buffer.concat(chunks).toString('utf8') };
}

describe('fuzzing the API from its OpenAPI document', () => {
  it(`answers ${COUNT} broken requests without a 5xx and always in the error shape`, {
    timeout: 240_000,
  }, async () => {
    const random = prng(SEED);
    const g = makeGenerator(document as never, random);
    const failures: string[] = [];
    const seen = new Set<string>();
    const methods = [
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'HEAD',
      'PROPFIND',
      'TRACE',
    ] as const;
    for (let i = 0; i < COUNT; i++) {
      const op = g.pick(operations);
      let method: string = op.method;
      if (g.chance(0.05)) method = g.pick(methods);
      let path = op.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
        g.segment(op.parameters.find((p) => p.in === 'path' && p.name === name)?.schema),
      );
      if (g.chance(0.03))
        path = g.pick([`${path}/`, `${path}/extra`, path.replace('/v1', '/v2'), `${path}//`, `${path}%`]);
      // Now and then the pages and routes beside the API: checkout, its assets, dashboard, docs, nothing at all.
      if (g.chance(0.04)) {
        path = g
          .pick([
            '/pay/',
            '/pay/assets/',
            '/dashboard/',
            '/docs/',
            '/docs/static/',
            '/v1/',
            '/',
            '/v1/openapi.json/',
          ])
          .concat(g.segment(undefined));
      }
      const query: string[] = [];
      for (const p of op.parameters.filter((x) => x.in === 'query')) {
        if (g.chance(0.4)) query.push(`${p.name}=${g.segment(p.schema)}`);
      }
      if (g.chance(0.05))
        query.push(g.pick(['limit=1&limit=2', 'x=%zz', 'a[b]=1', '%=', '&&', 'is_test=maybe']));
      const url = query.length > 0 ? `${path}?${query.join('&')}` : path;

      const headers: Record<string, string> = {};
      const secured = op.security?.length ? op.security : undefined;
      const auth = g.random();
      if (secured && auth < 0.85) {
        Object.assign(
          headers,
          secured.some((s) => 'apiKey' in s) && (auth < 0.5 || !secured.some((s) => 'bearer' in s))
            ? apiKey(g.chance(0.8) ? m.testKey : m.liveKey)
            : bearer(m.token),
        );
      } else if (auth < 0.95) {
        Object.assign(
          headers,
          g.pick([
            { 'x-api-key': 'svc_test_nope' },
            { 'x-api-key': `svc_live_${'a'.repeat(300)}` },
            { 'x-api-key': '' },
            { authorization: 'Bearer x.y.z' },
            { authorization: 'Basic Zm9vOmJhcg==' },
            { authorization: 'Bearer' },
            { 'x-api-key': m.testKey, authorization: `Bearer ${m.token}` },
          ]),
        );
      }
      if (g.chance(0.05)) headers['x-request-id'] = g.pick(['<x>', 'a'.repeat(500), 'ok-request-id-1']);
      if (g.chance(0.05)) headers.accept = g.pick(['text/html', '*/*', 'application/xml']);
      if (op.parameters.some((p) => p.in === 'header') && g.chance(0.5)) {
        headers['idempotency-key'] = g.pick(['k-1', 'x'.repeat(400), ' ', 'é']);
      }

      let payload: string | undefined;
      if (op.body || g.chance(0.05)) {
        const roll = g.random();
        headers['content-type'] = 'application/json';
        if (roll < 0.1) {
          payload = g.pick([
            '{"url": ',
            '{',
            '[1,2]',
            '"x"',
            '1',
            'null',
            '{"a":1}garbage',
            '\u0000',
            '{"\\ud800":1}',
            '{"a":"\\u0000"}',
          ]);
        } else if (roll < 0.15) {
          headers['content-type'] = g.pick([
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
            'application/jsonx',
            '',
          ]);
          payload = '{"a":1}';
        } else if (roll < 0.18) {
          payload = JSON.stringify({ pad: 'x'.repeat(70_000) });
        } else if (roll < 0.2) {
          payload = `${'['.repeat(5000)}${']'.repeat(5000)}`;
        } else {
          const base = g.valid(op.body ?? { type: 'object' });
          payload = JSON.stringify(g.chance(0.9) ? g.mutate(base) : base);
        }
      }
      if (method === 'GET' || method === 'HEAD') payload = undefined;

      const request = {
        method: method as 'GET',
        url,
        headers,
        ...(payload === undefined ? {} : { payload }),
      };
      const answer = op.streams ? await injectStream(request) : await injectWhole(request);
      const wrong = problem(method, answer, url);
      if (wrong !== null) {
        const key = `${op.method} ${op.path}: ${wrong.slice(0, 60)}`;
        if (!seen.has(key)) {
          seen.add(key);
          failures.push(`${method} ${url.slice(0, 200)} ${payload?.slice(0, 200) ?? ''} → ${wrong}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it(`answers ${RAW_COUNT} malformed requests on a real socket in the error shape`, {
    timeout: 120_000,
  }, async () => {
    const random = prng(SEED + 1);
    const g = makeGenerator(document as never, random);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const failures: string[] = [];
    const cases: Array<() => string> = [
      () => `GET /v1/payments/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: a\r\n\r\n`,
      () => `GET /v1/chains HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`,
      () => `GET /v1/chains HTTP/1.1\r\nHost: a\r\n${'X-N: 1\r\n'.repeat(3000)}\r\n`,
      () => 'GET /v1/chains HTTP/9.9\r\nHost: a\r\n\r\n',
      () => 'GARBAGE\r\n\r\n',
      () => 'GET  HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /v1/chains HTTP/1.1\r\nHost: a\r\nBad Header: x\r\n\r\n',
      () => 'GET /v1/chains HTTP/1.1\r\nHost: a\r\nX-Nul: a\u0000b\r\n\r\n',
      () => 'POST /v1/webhooks HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      () =>
        'POST /v1/webhooks HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
      () => 'GET /v1/payments/%ZZ HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /v1/payments/%ED%A0%80 HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /v1/payments/%E0%A4%A HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /v1/payments?limit=%E0%A4%A HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /pay/%ZZ HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /dashboard/%ZZ HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET /docs/%ZZ HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET http://evil.example/v1/chains HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'GET * HTTP/1.1\r\nHost: a\r\n\r\n',
      () => 'CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n',
      () => `${g.pick(['PROPFIND', 'TRACE', 'BREW', 'SEARCH'])} /v1/chains HTTP/1.1\r\nHost: a\r\n\r\n`,
      () => `GET /v1/${g.segment(undefined)} HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${m.testKey}\r\n\r\n`,
      () =>
        `GET /v1/payments/${g.segment({ type: 'string', format: 'uuid' })} HTTP/1.1\r\nHost: a\r\nX-Api-Key: ${m.testKey}\r\n\r\n`,
      () => `GET /v1/me HTTP/1.1\r\nHost: a\r\nX-Api-Key: svc_test_\u00ff\u00fe\r\n\r\n`,
      () => `GET /v1/chains HTTP/1.1\r\nHost: a\r\nX-Request-Id: ${'\u00e9'.repeat(10)}\r\n\r\n`,
    ];
    for (let i = 0; i < RAW_COUNT; i++) {
      const request = g.pick(cases)();
      const raw = await rawRequest(port, request);
      const answer = parseRaw(raw);
      if (answer === null) {
        if (raw.length > 0)
          failures.push(
            `${JSON.stringify(request.slice(0, 80))} → unparsable ${JSON.stringify(raw.slice(0, 80))}`,
          );
        continue;
      }
      const wrong = problem(request.split(' ')[0] ?? 'GET', answer);
      if (wrong !== null) failures.push(`${JSON.stringify(request.slice(0, 80))} → ${wrong}`);
    }
    expect([...new Set(failures)]).toEqual([]);
  });
});

function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // One answer is all we want; the server may keep the connection open.
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      if (head >= 0) {
        const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))?.[1];
        if (length !== undefined && text.length >= head + 4 + Number(length)) socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.setTimeout(5_000, () => socket.destroy());
    socket.end(Buffer.from(request, 'latin1'));
  });
}

function parseRaw(raw: string): Answer | null {
  const head = raw.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
  if (head < 0 || !status) return null;
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, head).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.slice(head + 4);
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: string[] = [];
    for (let rest = body; ; ) {
      const eol = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, eol), 16);
      if (!(size > 0)) break;
      parts.push(rest.slice(eol + 2, eol + 2 + size));
      rest = rest.slice(eol + 2 + size + 2);
    }
    body = parts.join('');
  }
  return { status: Number(status[1]), headers, body };
}
