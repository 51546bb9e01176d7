import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A Solana PubSub WebSocket for tests, as a validator serves it (its RPC port + 1): `slotSubscribe` answered with a
 * subscription id, `slotUnsubscribe`, and `slotNotification`s pushed with `notifySlot`; any other call with an id is
 * "Method not found", and messages without one (kit's keep-alive `ping`) get no answer. Faults: refusing sockets
 * (`accepting(false)`: every socket dropped, new upgrades answered 503), closing them cleanly (code 1000), keeping them
 * open without a word (`speaking(false)`), and a real restart (`stop()` closes the port, `start()` listens on it again).
 */

export interface SolanaPubSub {
  url: string;
  /** A slotNotification to every slot subscription. */
  notifySlot(notification: { slot: number; parent: number; root: number }): void;
  /** Subscriptions confirmed so far. */
  subscriptions(): number;
  /** Sockets open now. */
  open(): number;
  /** Sockets accepted, and refused while not accepting, so far. */
  connections(): { accepted: number; refused: number };
  accepting(on: boolean): void;
  speaking(on: boolean): void;
  /** Closes every socket with a normal closure (1000), as a node shutting connections down cleanly. */
  closeSockets(): void;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startSolanaPubSub(
  options: { port?: number; count?: (method: string) => void } = {},
): Promise<SolanaPubSub> {
  const sockets = new Map<WebSocket, Set<number>>();
  const wss = new WebSocketServer({ noServer: true });
  let confirmed = 0;
  let accepting = true;
  let speaking = true;
  let accepted = 0;
  let refused = 0;
  let http: Server | undefined;
  let port = options.port ?? 0;

  function onMessage(socket: WebSocket, text: string): void {
    let call: { id?: unknown; method?: unknown; params?: unknown };
    try {
      call = JSON.parse(text) as typeof call;
    } catch {
      return;
    }
    const method = String(call.method);
    options.count?.(method);
    if (call.id === undefined || call.id === null) return;
    const subscriptions = sockets.get(socket);
    if (subscriptions === undefined) return;
    let reply: Record<string, unknown>;
    if (method === 'slotSubscribe') {
      confirmed += 1;
      subscriptions.add(confirmed);
      reply = { result: confirmed };
    } else if (method === 'slotUnsubscribe') {
      reply = { result: subscriptions.delete(Number((call.params as unknown[] | undefined)?.[0])) };
    } else {
      reply = { error: { code: -32601, message: 'Method not found' } };
    }
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...reply }));
  }

  async function start(): Promise<void> {
    const server = createServer((_request, response) => response.writeHead(426).end());
    server.on('upgrade', (request, socket, head) => {
      if (!accepting) {
        refused += 1;
        socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
        return;
      }
      wss.handleUpgrade(request, socket, head, (ws) => {
        accepted += 1;
        sockets.set(ws, new Set());
        ws.on('message', (data) => onMessage(ws, String(data)));
        ws.on('close', () => sockets.delete(ws));
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    http = server;
  }

  await start();
  return {
    url: `ws://127.0.0.1:${port}`,
    notifySlot(notification) {
      if (!speaking) return;
      for (const [socket, subscriptions] of sockets) {
        for (const subscription of subscriptions) {
          socket.send(
            JSON.stringify({
              jsonrpc: '2.0',
              method: 'slotNotification',
              params: { result: notification, subscription },
            }),
          );
        }
      }
    },
    subscriptions: () => confirmed,
    open: () => sockets.size,
    connections: () => ({ accepted, refused }),
    accepting(on) {
      accepting = on;
      if (!on) for (const socket of sockets.keys()) socket.terminate();
    },
    speaking(on) {
      speaking = on;
    },
    closeSockets() {
      for (const socket of sockets.keys()) socket.close(1000);
    },
    async stop() {
      for (const socket of sockets.keys()) socket.terminate();
      const server = http;
      http = undefined;
      if (server === undefined) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    start,
  };
}
