import type { Logger } from 'pino';

/**
 * The node's ZMQ notifications (Bitcoin Core doc/zmq.md: `-zmqpubhashblock=<address>`, `-zmqpubrawtx=<address>`) as
 * wake-ups of the chain's loop, never as the source of truth. A ZMQ PUB socket drops messages (its high-water mark,
 * a reconnection, a node restart), so a message only makes the loop poll NOW — the block scan and the `getrawmempool`
 * diff, exactly as a timed poll — and the timed polls go on as the safety net (adapter.ts, jobs.ts).
 *
 * A message is three frames: the topic, the body (`hashblock`: the 32-byte block hash in the byte order RPC displays;
 * `rawtx`: the serialised transaction) and a 4-byte little-endian sequence number counted per topic by the node. A
 * sequence that skips says messages were lost; that costs nothing more than the poll every message causes anyway, and
 * is counted and logged at debug level.
 *
 * `zeromq` is an optional dependency (a native addon, prebuilt for the usual platforms) loaded only when a ZMQ URL is
 * configured: when it cannot be loaded the warning says so once and the chain is polled as without ZMQ.
 */

type ZeroMq = Pick<typeof import('zeromq'), 'Subscriber'>;

type ZmqTopic = 'hashblock' | 'rawtx';

export interface ZmqNotification {
  topic: ZmqTopic;
  /** hashblock: the block hash (32 bytes, display order); rawtx: the serialised transaction. */
  body: Buffer;
  /** The node's per-topic counter (uint32, wraps). */
  sequence: number;
}

const TOPICS: readonly ZmqTopic[] = ['hashblock', 'rawtx'];

/** A message as the node sends it, or null when it is not one of the topics we read or is malformed. */
export function parseNotification(frames: readonly Buffer[]): ZmqNotification | null {
  if (frames.length !== 3) return null;
  const [topicFrame, body, sequenceFrame] = frames;
  if (topicFrame === undefined || body === undefined || sequenceFrame?.length !== 4) return null;
  const topic = topicFrame.toString('latin1');
  if (!(TOPICS as readonly string[]).includes(topic)) return null;
  if (topic === 'hashblock' && body.length !== 32) return null;
  return { topic: topic as ZmqTopic, body, sequence: sequenceFrame.readUInt32LE(0) };
}

/**
 * Per topic, whether a message follows the previous one: `first` (nothing seen yet on that topic), `next`, or `gap`
 * (messages lost, or the node restarted and counts from 0 again). Counters are uint32 and wrap.
 */
export function createSequenceTracker(): { see(notification: ZmqNotification): 'first' | 'next' | 'gap' } {
  const last = new Map<ZmqTopic, number>();
  return {
    see({ topic, sequence }) {
      const previous = last.get(topic);
      last.set(topic, sequence);
      if (previous === undefined) return 'first';
      return sequence === (previous + 1) >>> 0 ? 'next' : 'gap';
    },
  };
}

export interface ZmqWatch {
  /**
   * Calls `wake` when the node announces a block or a transaction (and when the connection comes or goes, since
   * messages may have been missed meanwhile); returns the unsubscribe. The socket is opened by the first subscriber
   * and closed when the last one leaves.
   */
  onActivity(wake: () => void): () => void;
  /** True while every configured endpoint is connected: the loop may then poll at its slower interval. */
  connected(): boolean;
  /** Messages read and sequence gaps seen since start (logs, tests). */
  stats(): { received: number; gaps: number };
  close(): Promise<void>;
}

/**
 * `rawtx` wake-ups at most this often: a busy mainnet node announces several transactions a second (and Core publishes
 * `rawtx` again for every transaction of a block it connects), and each wake-up costs a `getrawmempool`. The first transaction after a quiet spell wakes the loop at once (a payer's payment shows
 * within milliseconds); those that follow it within the window give one more wake-up at its end. `hashblock` always
 * wakes at once.
 */
const RAWTX_WAKE_GAP_MS = 250;

export function createZmqWatch(deps: {
  /** Endpoints the one subscriber connects to: one for both topics, or one per topic. */
  urls: readonly string[];
  logger: Logger;
  /** How zeromq is loaded (tests replace it to show a missing library). */
  load?: () => Promise<ZeroMq>;
  rawtxWakeGapMs?: number;
  /** Sees every message read, with its sequence check (tests). */
  onNotification?: (notification: ZmqNotification, order: 'first' | 'next' | 'gap') => void;
}): ZmqWatch {
  const { urls, logger } = deps;
  const load = deps.load ?? (() => import('zeromq'));
  const rawtxGapMs = deps.rawtxWakeGapMs ?? RAWTX_WAKE_GAP_MS;
  const subscribers = new Set<() => void>();
  const sequences = createSequenceTracker();
  const connectedEndpoints = new Set<string>();
  let socket: InstanceType<ZeroMq['Subscriber']> | null = null;
  /** The socket being opened (the library loads asynchronously), so two subscribers never open two sockets. */
  let opening: Promise<void> | null = null;
  let unavailable = false;
  /** Bumped when the socket is shut: an open() begun before sees it and opens nothing. */
  let generation = 0;
  let received = 0;
  let gaps = 0;
  let lastRawtxWake = 0;
  let rawtxTimer: NodeJS.Timeout | undefined;

  const wakeAll = () => {
    for (const wake of subscribers) wake();
  };

  function wakeForRawtx(): void {
    const now = Date.now();
    if (now - lastRawtxWake >= rawtxGapMs) {
      lastRawtxWake = now;
      wakeAll();
    } else if (rawtxTimer === undefined) {
      rawtxTimer = setTimeout(
        () => {
          rawtxTimer = undefined;
          lastRawtxWake = Date.now();
          wakeAll();
        },
        rawtxGapMs - (now - lastRawtxWake),
      );
    }
  }

  function handle(frames: Buffer[]): void {
    const notification = parseNotification(frames);
    if (notification === null) return;
    received++;
    const order = sequences.see(notification);
    deps.onNotification?.(notification, order);
    if (order === 'gap') {
      gaps++;
      logger.debug({ topic: notification.topic, sequence: notification.sequence }, 'ZMQ messages lost');
    }
    // A gap may hide a block: wake at once, whatever the topic.
    if (notification.topic === 'hashblock' || order === 'gap') wakeAll();
    else wakeForRawtx();
  }

  async function open(): Promise<void> {
    const mine = generation;
    let zmq: ZeroMq;
    try {
      zmq = await load();
    } catch (error) {
      unavailable = true;
      logger.warn(
        { err: error, urls },
        'ZMQ URL set but the zeromq library cannot be loaded: the node is polled only (npm install zeromq)',
      );
      return;
    }
    // Shut while the library loaded (every subscriber left): nothing to open.
    if (mine !== generation) return;
    const sub = new zmq.Subscriber();
    socket = sub;
    /** Said once per outage: libzmq retries every few hundred ms while the node's publisher is unreachable. */
    let retrySaid = false;
    sub.events.on('connect:retry', ({ address }) => {
      if (retrySaid) return;
      retrySaid = true;
      logger.warn({ address }, 'ZMQ not reachable: retrying, polling at the regular interval meanwhile');
    });
    sub.events.on('connect', ({ address }) => {
      retrySaid = false;
      connectedEndpoints.add(address);
      logger.info({ address }, 'ZMQ connected: block and transaction notifications wake the scan');
      // Whatever was announced while disconnected is lost: look now.
      wakeAll();
    });
    sub.events.on('disconnect', ({ address }) => {
      connectedEndpoints.delete(address);
      logger.warn({ address }, 'ZMQ disconnected: polling at the regular interval until it reconnects');
      wakeAll();
    });
    sub.subscribe(...TOPICS);
    for (const url of urls) sub.connect(url);
    logger.info({ urls }, 'ZMQ configured: connecting');
    void (async () => {
      try {
        for await (const frames of sub) handle(frames);
      } catch (error) {
        if (!sub.closed) logger.warn({ err: error }, 'ZMQ receive failed: the node is polled only');
      }
    })();
  }

  function shut(): void {
    generation++;
    if (rawtxTimer !== undefined) clearTimeout(rawtxTimer);
    rawtxTimer = undefined;
    connectedEndpoints.clear();
    const current = socket;
    socket = null;
    opening = null;
    if (current !== null && !current.closed) current.close();
  }

  return {
    onActivity(wake) {
      subscribers.add(wake);
      if (socket === null && opening === null && !unavailable) opening = open();
      return () => {
        subscribers.delete(wake);
        if (subscribers.size === 0) shut();
      };
    },
    connected: () => socket !== null && connectedEndpoints.size >= urls.length,
    stats: () => ({ received, gaps }),
    async close() {
      subscribers.clear();
      const pending = opening;
      shut();
      // A socket still being opened sees no subscriber left and opens nothing.
      await pending;
    },
  };
}
