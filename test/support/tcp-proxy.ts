import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a local server, that a test can take down (listener closed, every open
 * connection reset) and bring back on the same port: a node that goes away mid-scan and comes back.
 */
export interface TcpProxy {
  url: string;
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;

  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer((client) => {
        const upstream = connect(targetPort, '127.0.0.1');
        sockets.add(client);
        sockets.add(upstream);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop);
        upstream.on('error', drop);
        client.on('close', drop);
        upstream.on('close', drop);
        client.pipe(upstream);
        upstream.pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        const address = s.address();
        if (address !== null && typeof address === 'object') port = address.port;
        server = s;
        resolve();
      });
    });

  const down = (): Promise<void> =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
      const s = server;
      server = null;
      if (s === null) return resolve();
      s.close(() => resolve());
    });

  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    down,
    up: listen,
    close: down,
  };
}
