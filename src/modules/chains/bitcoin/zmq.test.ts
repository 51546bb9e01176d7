import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/net.ts';
import { waitFor } from '../../../../test/support/webhooks.ts';
import { startZmqPublisher, type ZmqPublisher } from '../../../../test/support/zmq-publisher.ts';
import {
  createSequenceTracker,
  createZmqWatch,
  parseNotification,
  type ZmqNotification,
  type ZmqWatch,
} from './zmq.ts';

const seq = (n: number) => {
  const frame = Buffer.alloc(4);
  frame.writeUInt32LE(n, 0);
  return frame;
};
const hash = Buffer.from('0f'.repeat(32), 'hex');

describe('ZMQ notifications: message format', () => {
  it("reads Core's three frames: topic, body, little-endian sequence; anything else is ignored", () => {
    expect(parseNotification([Buffer.from('hashblock'), hash, seq(7)])).toEqual({
      topic: 'hashblock',
      body: hash,
      sequence: 7,
    });
    expect(parseNotification([Buffer.from('rawtx'), Buffer.from('0200', 'hex'), seq(0x01020304)])).toEqual({
      topic: 'rawtx',
      body: Buffer.from('0200', 'hex'),
      sequence: 0x01020304,
    });
    // Topics svc does not read, a frame missing, a short sequence, a block hash that is not 32 bytes.
    expect(parseNotification([Buffer.from('hashtx'), hash, seq(1)])).toBeNull();
    expect(parseNotification([Buffer.from('rawtx'), hash])).toBeNull();
    expect(parseNotification([Buffer.from('rawtx'), hash, Buffer.from([1, 0])])).toBeNull();
    expect(parseNotification([Buffer.from('hashblock'), Buffer.alloc(31), seq(1)])).toBeNull();
  });

  it('tracks the sequence per topic: first, next (wrapping at 2^32), gap (lost, or the node restarted)', () => {
    const tracker = createSequenceTracker();
    const n = (topic: 'hashblock' | 'rawtx', sequence: number): ZmqNotification => ({
      topic,
      body: hash,
      sequence,
    });
    expect(tracker.see(n('rawtx', 5))).toBe('first');
    expect(tracker.see(n('hashblock', 0))).toBe('first');
    expect(tracker.see(n('rawtx', 6))).toBe('next');
    expect(tracker.see(n('hashblock', 1))).toBe('next');
    expect(tracker.see(n('rawtx', 9))).toBe('gap');
    expect(tracker.see(n('rawtx', 10))).toBe('next');
    expect(tracker.see(n('hashblock', 0xffff_ffff))).toBe('gap');
    expect(tracker.see(n('hashblock', 0))).toBe('next');
    expect(tracker.see(n('rawtx', 0))).toBe('gap');
  });
});

describe('ZMQ notifications: a real subscriber against a real publisher', { timeout: 30_000 }, () => {
  let publisher: ZmqPublisher | undefined;
  let watch: ZmqWatch | undefined;
  afterEach(async () => {
    await watch?.close();
    publisher?.close();
    watch = undefined;
    publisher = undefined;
  });

  it('wakes on each block at once, coalesces a burst of transactions, reports gaps and survives a publisher restart', async () => {
    const port = await freePort();
    publisher = await startZmqPublisher(port);
    const seen: Array<{ topic: string; sequence: number; order: string }> = [];
    watch = createZmqWatch({
      urls: [publisher.url],
      logger: pino({ level: 'silent' }),
      rawtxWakeGapMs: 300,
      onNotification: (notification, order) =>
        seen.push({ topic: notification.topic, sequence: notification.sequence, order }),
    });
    let wakes = 0;
    const leave = watch.onActivity(() => {
      wakes++;
    });
    await publisher.subscribed(['hashblock', 'rawtx']);
    await waitFor('connected', () => watch?.connected());
    // The connection itself woke the loop (anything published before it is lost).
    await waitFor('the wake-up of the connection', () => wakes >= 1);
    let before = wakes;

    await publisher.publish('hashblock', hash);
    await waitFor('a block wake-up', () => wakes === before + 1);
    before = wakes;
    await publisher.publish('hashblock', hash);
    await waitFor('a second block wake-up', () => wakes === before + 1);

    // Ten transactions at once: the first wakes at once, the nine others give ONE more wake-up when the gap ends.
    before = wakes;
    for (let i = 0; i < 10; i++) await publisher.publish('rawtx', Buffer.from([i]));
    await waitFor('ten transactions read', () => seen.filter((s) => s.topic === 'rawtx').length === 10);
    expect(wakes).toBe(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(wakes).toBe(before + 2);

    // Sequence 2 comes next on hashblock; 5 says three were lost: counted, and it wakes at once.
    before = wakes;
    await publisher.publish('hashblock', hash, 5);
    await waitFor('the gap', () => watch?.stats().gaps === 1);
    expect(seen.at(-1)).toEqual({ topic: 'hashblock', sequence: 5, order: 'gap' });
    await waitFor('the gap wake-up', () => wakes === before + 1);

    // The node restarts: its publisher goes away and comes back on the same port, counting from 0 again.
    before = wakes;
    publisher.close();
    await waitFor('disconnected', () => watch?.connected() === false);
    // The disconnection wakes the loop too (it then polls at its regular interval).
    expect(wakes).toBeGreaterThan(before);
    publisher = await startZmqPublisher(port);
    await publisher.subscribed(['hashblock', 'rawtx']);
    await waitFor('reconnected', () => watch?.connected());
    before = wakes;
    await publisher.publish('hashblock', hash);
    await waitFor('a block after the restart', () => wakes > before);
    expect(seen.at(-1)).toEqual({ topic: 'hashblock', sequence: 0, order: 'gap' });
    expect(watch.stats()).toEqual({ received: 14, gaps: 2 });

    // The last subscriber leaving closes the socket.
    leave();
    expect(watch.connected()).toBe(false);
  });

  it('without the zeromq library: one warning, no wake-ups, never connected (the node is polled)', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    watch = createZmqWatch({
      urls: ['tcp://127.0.0.1:1'],
      logger,
      load: () => Promise.reject(new Error("Cannot find package 'zeromq'")),
    });
    const leave = watch.onActivity(() => {});
    await waitFor('the warning', () => warnings.length === 1);
    leave();
    watch.onActivity(() => {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/zeromq library cannot be loaded/);
    expect(watch.connected()).toBe(false);
  });
});
