import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import pg from 'pg';
import type { Database } from '../../src/db/client.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { fromPool } from '../../src/db/server.ts';
import type { RecordPaymentEventInput } from '../../src/modules/webhooks/events/service.ts';
import { createTestDatabase } from './harness.ts';

/** recordPaymentEvent's input for a `payment.confirmed` event of `merchantId`, its payment distinct for every `serial`. */
export function confirmedPaymentEvent(merchantId: string, serial: number): RecordPaymentEventInput {
  return {
    merchantId,
    type: 'payment.confirmed',
    occurredAt: new Date(),
    payment: {
      payment_id: `00000000-0000-7000-8000-${String(serial).padStart(12, '0')}`,
      status: 'completed',
      amount: '1',
      currency: 'USD',
      chain: 'ethereum',
      tx_hash: null,
      received_amount_native: '1',
      expected_amount_native: '1',
      is_test: true,
    },
  };
}

/**
 * The fields of a webhook payload, in order, as the seed (interface-spec 6.3) lists them, plus our additive
 * `amount_decimal` beside `amount`: the tests' own copy.
 */
export const seedPayloadFields = [
  'event',
  'payment_id',
  'status',
  'amount',
  'amount_decimal',
  'currency',
  'chain',
  'tx_hash',
  'received_amount_native',
  'expected_amount_native',
  'is_test',
  'timestamp',
];

/** One request as a receiver saw it: raw body bytes and headers as sent. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

export type ReceiverAction =
  | { status: number; body?: string; headers?: Record<string, string>; delayMs?: number }
  | { reset: true }
  | { hang: true };

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, including ones that never sent a request. */
  connections: number;
  /** The most requests that were open (received, not yet answered or abandoned) at once. */
  maxOpen: number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1, port 0, answering each request as `respond` says (200 by default); HTTPS with
 * `tls` (a key and certificate, see `selfSignedCertificate`).
 */
export async function startReceiver(
  respond: (request: ReceivedRequest, index: number) => ReceiverAction = () => ({ status: 200 }),
  tls?: { key: string; cert: string },
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  let connections = 0;
  let open = 0;
  let maxOpen = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => {
      open -= 1;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
        at: Date.now(),
      };
      const index = requests.length;
      requests.push(received);
      const action = respond(received, index);
      if ('reset' in action) {
        req.socket.destroy();
        return;
      }
      if ('hang' in action) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(action.status, { 'content-type': 'text/plain', ...action.headers });
        res.end(action.body ?? 'ok');
      };
      if (action.delayMs === undefined) send();
      else setTimeout(send, action.delayMs);
    });
  };
  const server = tls === undefined ? createServer(handle) : createTlsServer(tls, handle);
  server.on(tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}/hooks`,
    port,
    requests,
    get connections() {
      return connections;
    },
    get maxOpen() {
      return maxOpen;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      hanging.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A database of its own for tests that run delivery workers: a worker claims every due delivery of its database,
 * so on a shared PostgreSQL database it would take (and fail to decrypt) other test files' deliveries. On PGlite
 * every test file has its own copy anyway.
 */
export async function createIsolatedDatabase(): Promise<{
  database: Database;
  url: string | undefined;
  drop(): Promise<void>;
}> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await createTestDatabase();
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `svc_wh_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10 });
  // The forced drop at the end may cut connections that are still closing; that is no test failure.
  pool.on('error', () => {});
  const database = fromPool(pool);
  await migrateDatabase(database);
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
