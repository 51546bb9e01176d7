import { XPublisher } from 'zeromq';

/**
 * A ZMQ publisher standing in for a Bitcoin Core node's (`-zmqpubhashblock`, `-zmqpubrawtx`): Debian's litecoind is
 * built without ZMQ, so the tests publish what Core would, in Core's format (doc/zmq.md): [topic, body, 4-byte
 * little-endian sequence], the sequence counted per topic from 0. It is an XPUB socket, wire-compatible with Core's
 * PUB for the subscriber, so a test can wait until the subscriber's subscriptions have arrived instead of sleeping:
 * PUB drops what it publishes before a subscriber has subscribed.
 */
export interface ZmqPublisher {
  url: string;
  /** Resolves once the subscriptions to `topics` have arrived (since this publisher was bound). */
  subscribed(topics: readonly string[], timeoutMs?: number): Promise<void>;
  /** Publishes with the topic's next sequence number (or `sequence` as given, to show a gap); returns it. */
  publish(topic: string, body: Buffer, sequence?: number): Promise<number>;
  close(): void;
}

export async function startZmqPublisher(port: number): Promise<ZmqPublisher> {
  const socket = new XPublisher();
  const url = `tcp://127.0.0.1:${port}`;
  await socket.bind(url);
  const subscriptions = new Set<string>();
  const sequences = new Map<string, number>();
  void (async () => {
    try {
      for await (const [frame] of socket) {
        // 0x01 + topic subscribes, 0x00 + topic unsubscribes.
        if (frame === undefined || frame.length === 0) continue;
        const topic = frame.subarray(1).toString('latin1');
        if (frame[0] === 1) subscriptions.add(topic);
        else subscriptions.delete(topic);
      }
    } catch {
      // closed
    }
  })();
  return {
    url,
    async subscribed(topics, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!topics.every((topic) => subscriptions.has(topic))) {
        if (Date.now() > deadline) throw new Error(`no subscription to ${topics.join(', ')} on ${url}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async publish(topic, body, sequence) {
      const number = sequence ?? sequences.get(topic) ?? 0;
      sequences.set(topic, (number + 1) >>> 0);
      const frame = Buffer.alloc(4);
      frame.writeUInt32LE(number, 0);
      await socket.send([topic, body, frame]);
      return number;
    },
    close: () => socket.close(),
  };
}
