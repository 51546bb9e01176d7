/**
 * Child process of the `webhook-delivery` scenario: the merchant's receiver, on its own event loop so that the
 * moment a delivery arrives is stamped without waiting behind the parent's work. Answers 200 at once and keeps the
 * first arrival of each event (by `webhook-id`) as an absolute time (`performance.timeOrigin + performance.now()`),
 * comparable across processes. Driven over IPC: `expect` (tell me when N distinct events arrived), `collect`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportError, reportReady } from '../lib/child.ts';

export interface ReceiverReady {
  base: string;
}

export type ReceiverCommand = { type: 'expect'; count: number } | { type: 'collect' } | { type: 'reset' };

export type ReceiverMessage =
  | { type: 'arrived'; count: number; received: number }
  | { type: 'collected'; arrivals: Array<[string, number]>; received: number };

async function main(): Promise<void> {
  let arrivals = new Map<string, number>();
  let received = 0;
  let expected = Number.POSITIVE_INFINITY;
  const tell = (message: ReceiverMessage) => process.send?.(message);
  const check = () => {
    if (arrivals.size >= expected) {
      expected = Number.POSITIVE_INFINITY;
      tell({ type: 'arrived', count: arrivals.size, received });
    }
  };
  const server = createServer((request, response) => {
    request.on('data', () => {});
    request.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const id = String(request.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, at);
      received += 1;
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      check();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.on('message', (message: ReceiverCommand) => {
    if (message.type === 'reset') {
      arrivals = new Map();
      received = 0;
      expected = Number.POSITIVE_INFINITY;
    } else if (message.type === 'expect') {
      expected = message.count;
      check();
    } else if (message.type === 'collect') {
      tell({ type: 'collected', arrivals: [...arrivals], received });
    }
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
  reportReady<ReceiverReady>({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

main().catch((error: unknown) => {
  reportError(error);
  process.exit(1);
});
