import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/harness.ts';
import { createIsolatedDatabase, waitFor } from '../../../test/support/webhooks.ts';
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
});
