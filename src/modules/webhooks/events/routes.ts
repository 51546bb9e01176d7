import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../http/auth.ts';
import type { RouteContext } from '../../../http/context.ts';
import { eventStreamSchema, streamEventsHeadersSchema, streamEventsQuerySchema } from './schemas.ts';
import type { StreamItem, StreamSink } from './stream.ts';

/** A client that leaves this much unread is too slow to follow its stream: it is closed (it resumes when it can). */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** One item in the Server-Sent Events format; a body spanning lines (none do today) keeps them as data lines. */
function sseFrame(item: StreamItem): string {
  if (item.kind === 'heartbeat') return ': heartbeat\n\n';
  const data = item.event.body
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
  return `id: ${item.event.id}\nevent: ${item.event.type}\n${data}\n`;
}

/** The connection as the stream service writes to it; what it sends before the head is written waits in order. */
function responseSink(raw: ServerResponse): StreamSink & { begin(headers: OutgoingHttpHeaders): void } {
  let queued: string[] | undefined = [];
  const write = (text: string): boolean => {
    if (queued !== undefined) {
      queued.push(text);
      return true;
    }
    if (raw.destroyed || raw.writableEnded) return true;
    if (raw.writableLength > MAX_UNREAD_BYTES) {
      raw.destroy();
      return true;
    }
    return raw.write(text);
  };
  return {
    begin(headers) {
      raw.writeHead(200, headers);
      // The reconnection delay EventSource clients use, then anything that came before the head.
      raw.write('retry: 1000\n\n');
      const waiting = queued ?? [];
      queued = undefined;
      for (const text of waiting) write(text);
    },
    send: (item) => write(sseFrame(item)),
    drained: () =>
      new Promise<void>((resolve) => {
        if (raw.destroyed || !raw.writableNeedDrain) return resolve();
        const done = () => {
          raw.off('drain', done);
          raw.off('close', done);
          resolve();
        };
        raw.on('drain', done);
        raw.on('close', done);
      }),
    end: () => {
      if (!raw.writableEnded) raw.end();
    },
  };
}

/** GET /v1/events/stream: the live event stream of the key's merchant and mode (Server-Sent Events). */
export function eventStreamRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Open streams would hold the server open: they end first when it closes.
    app.addHook('preClose', async () => {
      await services.eventStreams.close();
    });

    app.get(
      '/events/stream',
      {
        preHandler: requireAuth('api_key'),
        schema: {
          tags: ['Events'],
          summary:
            "Follow the key's events live (Server-Sent Events), each once, resumable with Last-Event-ID",
          description:
            "Sends every event of the key's merchant and mode committed after the stream opened (or after the event " +
            'named by `Last-Event-ID`), in order, exactly once each; `: heartbeat` comments keep an idle stream ' +
            'open. A merchant may hold SVC_EVENT_STREAM_MAX_PER_MERCHANT streams open per process (`429 ' +
            'stream_limit_reached` beyond).',
          security: [{ apiKey: [] }],
          querystring: streamEventsQuerySchema,
          headers: streamEventsHeadersSchema,
          response: {
            200: {
              description: 'The stream.',
              content: { 'text/event-stream': { schema: eventStreamSchema } },
            },
          },
        },
      },
      async (request, reply) => {
        const sink = responseSink(reply.raw);
        const close = await services.eventStreams.open(
          principalOf(request),
          { lastEventId: request.headers['last-event-id'], types: request.query.types },
          sink,
        );
        reply.raw.on('close', close);
        // The client may have gone while the stream opened: its 'close' has fired already.
        if (request.raw.destroyed || reply.raw.destroyed) close();
        reply.hijack();
        sink.begin({
          ...(reply.getHeaders() as OutgoingHttpHeaders),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
      },
    );
  };
}
