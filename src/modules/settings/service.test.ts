import { describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.ts';
import { systemClock } from '../../lib/clock.ts';
import type { SettingsRepo } from './repo.ts';
import { createSettingsService, type SettingsDeps } from './service.ts';

type SettingsRow = Awaited<ReturnType<SettingsRepo['findSettings']>>[number];

/** A repo whose reads wait until released, counting them; writes replace the one stored row. */
function fakeRepo() {
  let stored: SettingsRow | undefined;
  let reads = 0;
  const waiting: Array<() => void> = [];
  const repo = {
    async findSettings() {
      reads += 1;
      const answer = stored;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return answer === undefined ? [] : [answer];
    },
    async findLogo() {
      return undefined;
    },
    async upsertSettings(row: SettingsRow) {
      stored = row;
    },
  } as unknown as SettingsRepo;
  return {
    repo,
    reads: () => reads,
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    releaseLatest: () => waiting.pop()?.(),
  };
}

const merchant = { via: 'jwt' as const, merchantId: 'mer_1', isTest: undefined };
// Only payout-wallet changes use these.
const unused = { events: {} as SettingsDeps['events'], accounts: {} as SettingsDeps['accounts'] };

describe('settings: the default window of new payments', () => {
  it('is looked up once for many simultaneous creations, then reused', async () => {
    const fake = fakeRepo();
    const settings = createSettingsService({ db: {} as Db, repo: fake.repo, clock: systemClock, ...unused });
    const answers = Array.from({ length: 50 }, () => settings.defaultWindowSeconds('mer_1'));
    await Promise.resolve();
    fake.release();
    expect(new Set(await Promise.all(answers))).toEqual(new Set([30 * 60]));
    expect(fake.reads()).toBe(1);
    expect(await settings.defaultWindowSeconds('mer_1')).toBe(30 * 60);
    expect(fake.reads()).toBe(1);
  });

  it('does not keep or share an answer read before a change made in this process', async () => {
    const fake = fakeRepo();
    const settings = createSettingsService({ db: {} as Db, repo: fake.repo, clock: systemClock, ...unused });
    const before = settings.defaultWindowSeconds('mer_1'); // reads the old row and stays in flight
    const update = settings.update(merchant, { default_expires_in: 600 });
    await Promise.resolve();
    fake.releaseLatest(); // the update's own read: the change is written while the lookup above still waits
    await update;
    fake.release();
    expect(await before).toBe(30 * 60); // that creation asked before the change
    const after = settings.defaultWindowSeconds('mer_1');
    await Promise.resolve();
    fake.release();
    expect(await after).toBe(600);
    expect(fake.reads()).toBe(3);
  });
});
