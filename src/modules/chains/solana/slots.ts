import { setTimeout as sleep } from 'node:timers/promises';
import { createSolanaRpcSubscriptions } from '@solana/kit';
import type { Logger } from 'pino';
import { redactUrl } from '../rpc-url.ts';

/**
 * The node's slot notifications (Solana's PubSub WebSocket, `slotSubscribe`) as wake-ups of the chain's loop, never as
 * the source of truth: a notification only makes the loop poll NOW — `getSlot` at `confirmed` and the new blocks, exactly
 * as a timed poll — and the timed polls go on as the safety net (adapter.ts, jobs.ts).
 *
 * Why `slotSubscribe`: it is the stable subscription every node and provider serves, and it fires on each slot the node
 * processes (~2.5 a second on mainnet), so the confirmed slot is read again within a slot of moving. `blockSubscribe`
 * would carry the blocks themselves but is marked unstable, needs a validator started with
 * `--rpc-pubsub-enable-block-subscription`, and most providers refuse it or sell it apart; `logsSubscribe` filters by
 * one address per subscription (`mentions`), so 10,000 open payments would need 10,000 subscriptions, far past the
 * per-connection limits providers set (100 on the public endpoint). Only the wake-up is used, so nothing is lost by the
 * notification carrying only slot numbers.
 *
 * Through @solana/kit's subscriptions (on Node 20, whose WebSocket global needs a flag, kit brings the `ws` package;
 * Node 22 has it built in). A socket can fail in several ways, none of which may stop detection: the connection is
 * refused or drops (kit ends the subscription with an error), the node closes it cleanly (kit's subscription then just
 * stops yielding) or it goes silent half-open. So a watchdog counts any `staleAfterMs` without a notification as the
 * socket down; it is then reopened with exponential backoff, the log says once per outage that it is down and once that
 * it is back, and the loop polls at its regular interval meanwhile (`connected()` is false).
 */

export interface SlotWatch {
  /**
   * Calls `wake` on each slot notification, and when the socket comes or goes (slots may have passed unannounced
   * meanwhile); returns the unsubscribe. The socket is opened by the first subscriber and closed when the last leaves.
   */
  onActivity(wake: () => void): () => void;
  /** True while the subscription is open and notifications keep coming: the loop may then poll at its slower interval. */
  connected(): boolean;
  /** Notifications read, subscriptions tried and made, and outages seen since start (logs, tests). */
  stats(): { received: number; attempts: number; connections: number; outages: number };
  close(): Promise<void>;
}

/** One subscription: resolves once the node has confirmed it; the iterable ends or throws when the socket is lost. */
export type SlotSubscribe = (url: string, signal: AbortSignal) => Promise<AsyncIterable<unknown>>;

const subscribeWithKit: SlotSubscribe = (url, signal) =>
  createSolanaRpcSubscriptions(url).slotNotifications().subscribe({ abortSignal: signal });

/** A socket without a notification for this long counts as down (a slot is ~400 ms; kit pings every 5 s of silence). */
const STALE_AFTER_MS = 5000;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

export function createSlotWatch(deps: {
  url: string;
  logger: Logger;
  /** How a subscription is made (default kit's `slotNotifications`). */
  subscribe?: SlotSubscribe;
  staleAfterMs?: number;
  backoffMs?: { first: number; max: number };
}): SlotWatch {
  const { url, logger } = deps;
  const shown = redactUrl(url);
  const subscribe = deps.subscribe ?? subscribeWithKit;
  const staleAfterMs = deps.staleAfterMs ?? STALE_AFTER_MS;
  const backoff = deps.backoffMs ?? { first: FIRST_BACKOFF_MS, max: MAX_BACKOFF_MS };
  const subscribers = new Set<() => void>();
  /** The socket's life while someone listens; a new one (a subscriber back after all left) never sees the old's state. */
  let running: { stop: AbortController; done: Promise<void>; subscribed: boolean } | null = null;
  let received = 0;
  let attempts = 0;
  let connections = 0;
  let outages = 0;
  /** Since when the socket is down, while it is (null while up, and before the first attempt). */
  let downSince: number | null = null;

  const wakeAll = (): void => {
    for (const wake of subscribers) wake();
  };

  /** One subscription, read until it fails; returns why it ended. Never throws. */
  async function connectOnce(life: NonNullable<typeof running>): Promise<string> {
    const stop = life.stop.signal;
    const attempt = new AbortController();
    const onStop = () => attempt.abort();
    stop.addEventListener('abort', onStop, { once: true });
    let silent = false;
    // Armed from the start: a connection that hangs before the node confirms the subscription counts too.
    const watchdog = setTimeout(() => {
      silent = true;
      attempt.abort();
    }, staleAfterMs);
    let reason = 'closed by the node';
    attempts += 1;
    try {
      const notifications = await subscribe(url, attempt.signal);
      life.subscribed = true;
      connections += 1;
      if (downSince !== null) {
        logger.info(
          { url: shown, downForMs: Date.now() - downSince },
          'Solana WebSocket back: slot notifications wake the scan again',
        );
        downSince = null;
      } else if (connections === 1) {
        logger.info({ url: shown }, 'Solana WebSocket subscribed to slots: each new slot wakes the scan');
      }
      watchdog.refresh();
      // Slots may have passed while it connected: look now.
      wakeAll();
      for await (const _ of notifications) {
        watchdog.refresh();
        received += 1;
        wakeAll();
      }
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(watchdog);
      stop.removeEventListener('abort', onStop);
      attempt.abort();
      life.subscribed = false;
    }
    return silent ? `no slot notification for ${staleAfterMs} ms` : reason;
  }

  async function run(life: NonNullable<typeof running>): Promise<void> {
    const stop = life.stop.signal;
    let failures = 0;
    while (!stop.aborted) {
      const before = received;
      const reason = await connectOnce(life);
      if (stop.aborted) return;
      // A socket that delivered starts its next outage's backoff afresh; one that never did keeps slowing down.
      if (received > before) failures = 0;
      if (downSince === null) {
        downSince = Date.now();
        outages += 1;
        logger.warn(
          { url: shown, reason },
          'Solana WebSocket down: the scan is polled at its regular interval until it is back; reconnecting with backoff',
        );
        // The loop may be waiting out the slower interval: a poll now, and the regular interval after it.
        wakeAll();
      }
      const delay = Math.min(backoff.max, backoff.first * 2 ** failures) * (0.8 + 0.4 * Math.random());
      failures += 1;
      await sleep(delay, undefined, { signal: stop }).catch(() => {});
    }
  }

  function shut(): void {
    running?.stop.abort();
    running = null;
  }

  return {
    onActivity(wake) {
      subscribers.add(wake);
      if (running === null) {
        const life = { stop: new AbortController(), done: Promise.resolve(), subscribed: false };
        life.done = run(life);
        running = life;
      }
      return () => {
        subscribers.delete(wake);
        if (subscribers.size === 0) shut();
      };
    },
    connected: () => running?.subscribed === true,
    stats: () => ({ received, attempts, connections, outages }),
    async close() {
      subscribers.clear();
      const current = running;
      shut();
      await current?.done;
    },
  };
}
