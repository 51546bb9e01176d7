import { request } from 'node:http';

export { freePort } from '../../support/net.ts';

/** One GET on 127.0.0.1; resolves with the status, or 0 when nothing answers. */
export function probe(port: number, path: string, timeoutMs = 1000): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });
}
