import { subscribe, unsubscribe } from 'node:diagnostics_channel';

/** Adds up the wall time during which at least one undici request of this process was on the wire. */
export function wireTimer(): { ms(): number; reset(): void; close(): void } {
  const open = new Set<unknown>();
  let since = 0;
  let total = 0;
  const opened = (message: unknown) => {
    if (open.size === 0) since = performance.now();
    open.add((message as { request: unknown }).request);
  };
  const closed = (message: unknown) => {
    if (!open.delete((message as { request: unknown }).request)) return;
    if (open.size === 0) total += performance.now() - since;
  };
  subscribe('undici:request:create', opened);
  subscribe('undici:request:trailers', closed);
  subscribe('undici:request:error', closed);
  return {
    ms: () => total,
    reset: () => {
      total = 0;
    },
    close: () => {
      unsubscribe('undici:request:create', opened);
      unsubscribe('undici:request:trailers', closed);
      unsubscribe('undici:request:error', closed);
    },
  };
}
