/**
 * `svc listen`: follows the key's live event stream and forwards each event to a local URL, signed exactly as svc
 * signs its webhooks but with a listen secret of its own (printed at start, kept in the config file), so a
 * developer's receiver works unchanged on a laptop without a public address. The stream resumes after the last event
 * when the connection drops, so nothing is lost or forwarded twice.
 */
import { type EventType, type StreamedEvent, type Svc, webhooks } from '../../packages/sdk/src/index.ts';
import type { Output } from './output.ts';

export interface ListenOptions {
  svc: Svc;
  forwardTo: string;
  secret: string;
  types: readonly EventType[] | undefined;
  output: Output;
  signal: AbortSignal;
  /** Bound on each forward (default 10 s). */
  timeoutMs?: number;
}

interface ForwardResult {
  event_id: string;
  type: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
  forwarded_at: string;
}

/** POSTs one event's exact body to the local URL with svc's delivery headers; never follows a redirect. */
async function forward(
  event: StreamedEvent,
  target: string,
  secret: string,
  timeoutMs = 10_000,
): Promise<ForwardResult> {
  const at = new Date();
  const started = performance.now();
  const headers = await webhooks.sign({
    id: event.id,
    body: event.data,
    secrets: secret,
    timestamp: at,
    userAgent: 'svc-cli-listen/1',
  });
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers,
      body: event.data,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    return result(event, at, started, response.status, null);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return result(event, at, started, null, cause?.code ?? cause?.message ?? String(error));
  }
}

function result(
  event: StreamedEvent,
  at: Date,
  started: number,
  status: number | null,
  error: string | null,
) {
  return {
    event_id: event.id,
    type: event.type,
    status,
    error,
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    forwarded_at: at.toISOString(),
  };
}

export async function listen(options: ListenOptions): Promise<void> {
  const { output } = options;
  if (output.json) {
    output.out(
      JSON.stringify({
        ready: true,
        forward_to: options.forwardTo,
        secret: options.secret,
        mode: options.svc.mode,
      }),
    );
  } else {
    output.out(
      `Forwarding ${options.svc.mode} events${options.types === undefined ? '' : ` (${options.types.join(', ')})`} to ${options.forwardTo}\n` +
        `Your listen signing secret is ${options.secret} (verify deliveries with it; Ctrl-C to stop)`,
    );
  }
  let connections = 0;
  const stream = options.svc.events.stream({
    signal: options.signal,
    ...(options.types === undefined ? {} : { types: options.types }),
    onConnect: () => {
      connections += 1;
      if (output.json) output.out(JSON.stringify({ connected: true, at: new Date().toISOString() }));
      else if (connections > 1) output.err('reconnected; resuming after the last event');
      else output.out('Connected: waiting for events');
    },
    onDisconnect: (error) => {
      if (!output.json)
        output.err(`stream lost (${error instanceof Error ? error.message : String(error)}); reconnecting`);
    },
  });
  for await (const event of stream) {
    const outcome = await forward(event, options.forwardTo, options.secret, options.timeoutMs);
    if (output.json) output.out(JSON.stringify(outcome));
    else {
      const what = outcome.status === null ? `failed: ${outcome.error}` : `${outcome.status}`;
      output.out(
        `${outcome.forwarded_at}  ${event.type.padEnd(26)} ${event.id}  -> ${what} (${outcome.duration_ms} ms)`,
      );
    }
  }
}
