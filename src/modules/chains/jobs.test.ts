import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/harness.ts';
import { createIsolatedDatabase, waitFor } from '../../../test/support/webhooks.ts';
import type { BlockRef, ChainAdapter } from './adapter.ts';
import type { ChainAdapters } from './families.ts';
import { createSettlementJobs } from './jobs.ts';
import { chainsRepo } from './repo.ts';

let t: TestApp;
let drop: () => Promise<void>;

beforeAll(async () => {
  // A database of its own: the jobs act on every chain cursor in it.
  const isolated = await createIsolatedDatabase();
  drop = isolated.drop;
  t = await createTestApp({ database: isolated.database });
});

afterAll(async () => {
  await t?.close();
  await drop?.();
});

const jobs = () =>
  createSettlementJobs({
    database: t.database,
    clock: t.clock,
    adapters: t.services.chainAdapters,
    payments: t.services.payments,
    settings: t.services.settings,
    simBlockMs: 200,
    lateWatchDays: 7,
  });

describe('settlement jobs', () => {
  it("are not ready until every chain's first run has set its cursor; a restart is ready at once", async () => {
    expect((await chainsRepo.cursorHeights(t.database.db)).size).toBe(0);
    const first = jobs();
    await first.start();
    expect(await first.readiness()).toMatch(/settlement starting: settlement:ethereum:test/);
    await waitFor('every chain started', async () => (await first.readiness()) === null, 20_000);
    const cursors = await chainsRepo.cursorHeights(t.database.db);
    expect(cursors.size).toBe(t.services.chainAdapters.all().length);
    await first.stop();

    const restarted = jobs();
    await restarted.start();
    expect(await restarted.readiness()).toBeNull();
    await restarted.stop();
  });

  it("cut a chain's wait short when its adapter reports activity: a poll at once, a burst during a poll gives one more", async () => {
    const block: BlockRef = {
      number: 0,
      hash: 'ab'.repeat(32),
      parentHash: '00'.repeat(32),
      timestamp: new Date(0),
    };
    let polls = 0;
    let hold: Promise<void> | undefined;
    let wake: (() => void) | undefined;
    let left = 0;
    // A node that pushes notifications (a Bitcoin node's ZMQ) with a poll interval far longer than the test.
    const adapter: ChainAdapter = {
      chain: 'litecoin',
      isTest: true,
      simulated: false,
      requiredConfirmations: 1,
      pollIntervalMs: 600_000,
      async head() {
        polls++;
        await hold;
        return block;
      },
      block: async (number) => (number === 0 ? block : null),
      transfers: async () => [],
      onActivity(w) {
        wake = w;
        return () => {
          left++;
          wake = undefined;
        };
      },
      addressKey: (address) => address,
      buildForward: () => Promise.reject(new Error('no forwards here')),
      broadcast: async () => {},
      forwardStatus: async () => ({ state: 'unknown' }),
    };
    const adapters: ChainAdapters = {
      all: () => [adapter],
      get: (chain, isTest) => (chain === 'litecoin' && isTest ? adapter : undefined),
      simulated: () => undefined,
      readiness: async () => null,
      feeWallets: async () => [],
    };
    const loop = createSettlementJobs({
      database: t.database,
      clock: t.clock,
      adapters,
      payments: t.services.payments,
      settings: t.services.settings,
      simBlockMs: 200,
      lateWatchDays: 7,
    });
    await loop.start();
    // The first round subscribes (the loop leads the chain) and sets the cursor.
    await waitFor('the first round', async () => wake !== undefined && (await loop.readiness()) === null);
    const settled = polls;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(polls).toBe(settled);

    // Waiting 600 s: a wake-up polls now.
    wake?.();
    await waitFor('the woken poll', () => polls === settled + 1, 2000);

    // Wake-ups while a poll runs: exactly one more poll after it.
    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    wake?.();
    await waitFor('the held poll', () => polls === settled + 2, 2000);
    for (let i = 0; i < 5; i++) wake?.();
    hold = undefined;
    release();
    await waitFor('one more poll', () => polls === settled + 3, 2000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(polls).toBe(settled + 3);

    await loop.stop();
    expect(left).toBe(1);
  });
});
