import { createServer as createTcpServer } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../../test/support/net.ts';
import { startSolanaPubSub } from '../../../../test/support/solana-pubsub.ts';
import { waitFor } from '../../../../test/support/webhooks.ts';
import { createSlotWatch, type SlotWatch } from './slots.ts';

/**
 * The slot watch against a real WebSocket server speaking Solana's PubSub (test/support/solana-pubsub.ts:
 * `slotSubscribe`, `slotNotification`) through kit's real client: wake-ups per slot, a server that restarts (refused, then reset connections while it is away), one
 * that closes cleanly or goes silent, and a URL nothing listens on. What the loop does with the wake-ups is
 * src/modules/chains/jobs.test.ts; the adapter's polling with the socket down is adapter.test.ts.
 */

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; reason?: string; url?: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const said = (text: string) => lines.filter((line) => line.msg.startsWith(text));
  return { logger, lines, said };
}

describe('Solana slot notifications as wake-ups', { timeout: 30_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function setUp(staleAfterMs = 10_000) {
    const server = await startSolanaPubSub();
    const log = recordingLogger();
    const watch: SlotWatch = createSlotWatch({
      url: server.url,
      logger: log.logger,
      staleAfterMs,
      backoffMs: { first: 20, max: 100 },
    });
    let wakes = 0;
    const leave = watch.onActivity(() => {
      wakes += 1;
    });
    cleanups.push(async () => {
      leave();
      await watch.close();
      await server.stop();
    });
    await waitFor('subscribed', () => watch.connected());
    return { server, watch, log, leave, wakes: () => wakes };
  }

  it('wakes the loop on each slot the node announces, and once more when it connects', async () => {
    const { server, watch, wakes, log } = await setUp();
    expect(wakes()).toBe(1); // on connecting: slots may have passed unannounced
    for (let slot = 100; slot < 105; slot++) server.notifySlot({ slot, parent: slot - 1, root: slot - 32 });
    await waitFor('five notifications', () => watch.stats().received === 5);
    expect(wakes()).toBe(6);
    expect(watch.stats()).toEqual({ received: 5, attempts: 1, connections: 1, outages: 0 });
    expect(log.said('Solana WebSocket subscribed to slots')).toHaveLength(1);
  });

  it('a server that restarts: down said once over many failed reconnects, back once, waking again', async () => {
    const { server, watch, wakes, log } = await setUp();
    const port = Number(new URL(server.url).port);
    const before = wakes();
    await server.stop();
    await waitFor('seen down', () => !watch.connected() && wakes() > before);
    const tried = watch.stats().attempts;
    await waitFor('reconnects refused', () => watch.stats().attempts >= tried + 2);
    // Then something on its port resets every connection: the watch keeps trying, with backoff.
    let resets = 0;
    const away = createTcpServer((socket) => {
      resets += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => away.listen(port, '127.0.0.1', resolve));
    await waitFor('reconnects reset', () => resets >= 2);
    await new Promise<void>((resolve) => away.close(() => resolve()));
    expect(log.said('Solana WebSocket down')).toHaveLength(1);
    // One wake-up for the outage (the loop polls at once, then at its regular interval), none per failed attempt.
    expect(wakes()).toBe(before + 1);
    expect(watch.connected()).toBe(false);
    await server.start();
    await waitFor('back', () => watch.connected());
    const woken = wakes();
    server.notifySlot({ slot: 200, parent: 199, root: 168 });
    await waitFor('woken by the new socket', () => wakes() > woken);
    expect(log.said('Solana WebSocket back')).toHaveLength(1);
    expect(log.said('Solana WebSocket down')).toHaveLength(1);
    expect(watch.stats()).toMatchObject({ connections: 2, outages: 1 });
  });

  it('a node that closes the socket cleanly, or keeps it open without a word, is taken as down and reopened', async () => {
    const { server, watch, log } = await setUp(1500);
    // Slots keep coming faster than the watchdog's 1.5 s: the socket stays.
    for (let slot = 1; slot <= 4; slot++) {
      server.notifySlot({ slot, parent: slot - 1, root: slot - 32 });
      await waitFor(`slot ${slot}`, () => watch.stats().received === slot);
    }
    expect(watch.stats().connections).toBe(1);
    // A clean close ends nothing in kit's subscription: the silence after it does.
    server.closeSockets();
    await waitFor('reopened after a clean close', () => server.subscriptions() === 2 && watch.connected());
    // Subscribed, then never a notification: after 1.5 s of silence, the socket is down and opened again.
    server.speaking(false);
    await waitFor('reopened after silence', () => server.subscriptions() >= 3);
    const down = log.said('Solana WebSocket down');
    expect(down.length).toBeGreaterThanOrEqual(1);
    expect(down.at(-1)?.reason).toBe('no slot notification for 1500 ms');
    expect(JSON.stringify(log.lines)).not.toContain('undefined');
  });

  it('the last subscriber leaving closes the socket; a URL nothing listens on is tried on without a throw', async () => {
    const { server, leave } = await setUp();
    expect(server.open()).toBe(1);
    leave();
    await waitFor('socket closed', () => server.open() === 0);

    const nowhere = `ws://127.0.0.1:${await freePort()}/?api-key=secret`;
    const log = recordingLogger();
    const watch = createSlotWatch({ url: nowhere, logger: log.logger, backoffMs: { first: 10, max: 20 } });
    let wakes = 0;
    const stop = watch.onActivity(() => {
      wakes += 1;
    });
    await waitFor('a few attempts', () => watch.stats().attempts >= 3);
    expect(wakes).toBe(1);
    stop();
    await watch.close();
    expect(watch.connected()).toBe(false);
    const down = log.said('Solana WebSocket down');
    expect(down).toHaveLength(1);
    expect(down[0]?.url).toBe(`ws://127.0.0.1:${new URL(nowhere).port}/…`);
    expect(JSON.stringify(log.lines)).not.toContain('secret');
  });
});
