import { createServerSentEventParser, type ServerSentEvent } from '../../packages/sdk/src/sse.ts';
import { waitFor } from './webhooks.ts';

/** A live GET /v1/events/stream read over real HTTP: what arrived so far, and a way to hang up. */
export interface OpenedStream {
  status: number;
  headers: Headers;
  /** The error body when the stream was refused. */
  refusal: unknown;
  events: ServerSentEvent[];
  comments: string[];
  /** Waits until at least `count` events arrived (fails after `timeoutMs`). */
  waitForEvents(count: number, timeoutMs?: number): Promise<ServerSentEvent[]>;
  close(): void;
}

export async function openEventStream(
  base: string,
  key: string,
  options: { lastEventId?: string; types?: string } = {},
): Promise<OpenedStream> {
  const controller = new AbortController();
  const url = new URL(`${base}/v1/events/stream`);
  if (options.types !== undefined) url.searchParams.set('types', options.types);
  const response = await fetch(url, {
    headers: {
      'x-api-key': key,
      accept: 'text/event-stream',
      ...(options.lastEventId === undefined ? {} : { 'last-event-id': options.lastEventId }),
    },
    signal: controller.signal,
  });
  const events: ServerSentEvent[] = [];
  const comments: string[] = [];
  let refusal: unknown;
  if (response.status === 200 && response.body !== null) {
    const parser = createServerSentEventParser({
      onEvent: (event) => events.push(event),
      onComment: (text) => comments.push(text),
    });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // aborted by close()
      }
    })();
  } else {
    refusal = await response.json();
  }
  return {
    status: response.status,
    headers: response.headers,
    refusal,
    events,
    comments,
    waitForEvents: (count, timeoutMs = 10_000) =>
      waitFor(
        `${count} stream events (have ${events.length})`,
        () => events.length >= count && events,
        timeoutMs,
      ),
    close: () => controller.abort(),
  };
}
