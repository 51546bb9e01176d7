import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors.ts';
import type { Metrics } from '../metrics.ts';

/** Times every answer by its route template (never its URL: ids would make a series per payment). */
export function recordHttpMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest({
      method: request.method,
      route: request.routeOptions.url ?? '(unmatched)',
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
  });
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics on the API's port, for a scraper that sends `Authorization: Bearer <SVC_METRICS_TOKEN>` (compared in
 * constant time); anyone else gets 401. Not in the API reference: it is the operator's, not the merchants'.
 */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
      throw new AppError(
        'authentication_required',
        'GET /metrics takes Authorization: Bearer <SVC_METRICS_TOKEN>.',
      );
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
  });
}

/**
 * GET /metrics on a listener of its own (SVC_METRICS_PORT on SVC_METRICS_HOST, loopback by default), without a
 * token: bind it where only the scraper reaches it. Also how a `worker` process, which has no API, is scraped.
 */
export async function startMetricsListener(metrics: Metrics, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    metrics.scrape().then(
      ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
