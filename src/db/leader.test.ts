import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/support/harness.ts';
import type { Database } from './client.ts';
import { createLeaderElector } from './leader.ts';

let first: Database;
let second: Database;
beforeAll(async () => {
  first = await createTestDatabase();
  second = await createTestDatabase();
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

describe('leader election', () => {
  it.runIf(process.env.DATABASE_URL)(
    'one process leads a job; another takes over when it is gone',
    async () => {
      const job = `settlement:test:${randomBytes(6).toString('hex')}`;
      const a = createLeaderElector(first);
      const b = createLeaderElector(second);
      try {
        expect(await a.lead(job)).toBe(true);
        expect(await a.lead(job)).toBe(true); // still, and without stacking the lock
        expect(await b.lead(job)).toBe(false);
        expect(await b.lead(`${job}:other`)).toBe(true); // each job (chain and mode) is elected on its own
        await a.close(); // the process dies: PostgreSQL releases its locks with its connection
        expect(await b.lead(job)).toBe(true);
        const c = createLeaderElector(first);
        expect(await c.lead(job)).toBe(false);
        await c.close();
      } finally {
        await a.close();
        await b.close();
      }
    },
  );

  it.runIf(process.env.DATABASE_URL)(
    'every chain asking at once: each job elected, one statement at a time on the one connection',
    async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.message);
      process.on('warning', onWarning);
      const elector = createLeaderElector(first);
      try {
        const jobs = Array.from(
          { length: 12 },
          (_, n) => `settlement:many:${randomBytes(4).toString('hex')}:${n}`,
        );
        expect(await Promise.all(jobs.map((job) => elector.lead(job)))).toEqual(jobs.map(() => true));
        expect(await Promise.all(jobs.map((job) => elector.lead(job)))).toEqual(jobs.map(() => true));
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings.filter((message) => message.includes('already executing a query'))).toEqual([]);
      } finally {
        process.off('warning', onWarning);
        await elector.close();
      }
    },
  );

  it.skipIf(process.env.DATABASE_URL)('on the embedded database the one process always leads', async () => {
    const a = createLeaderElector(first);
    expect(await a.lead('settlement:ethereum:test')).toBe(true);
    await a.close();
  });
});
