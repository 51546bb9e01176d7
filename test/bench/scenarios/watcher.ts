import { fileURLToPath } from 'node:url';
import { startChild } from '../lib/child.ts';
import { benchDatabases } from '../lib/databases.ts';
import { goals } from '../lib/goals.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { median, round } from '../lib/stats.ts';
import type { WatcherRunReady } from '../servers/watcher-run.ts';

const child = fileURLToPath(new URL('../servers/watcher-run.ts', import.meta.url));

/**
 * The watcher with 100,000 open payments: time to match a block of 1,000 deposits to payments and commit their
 * transitions (deposits, cursor, finality, state machine, payment.confirmed events with their deliveries, one
 * transaction), as transitions/s against each engine's goal (lib/goals.ts) and against a bare transaction doing the same writes;
 * and the growth of the watcher process's RSS (watched set of 100,000 addresses included) against its goal.
 * Runs in a child process per database; each engine has its goals.
 */
export default defineScenario({
  name: 'watcher',
  description: 'Watcher: a 1,000-deposit block among 100,000 open payments (transitions/s, RSS growth)',
  async run({ log, scale }) {
    const measurements: Measurement[] = [];
    const total = Math.max(10_000, Math.round(100_000 * Math.min(1, scale)));
    const rounds = Math.max(2, Math.round(4 * scale));
    for await (const database of benchDatabases()) {
      const label = database.kind;
      log(`watcher [${label}]: ${total} payments, ${rounds} rounds of 1,000 deposits`);
      const run = await startChild<WatcherRunReady>(child, {
        env: {
          BENCH_TARGET_KIND: database.kind,
          BENCH_TARGET: database.kind === 'postgres' ? database.url : database.dataDir,
          BENCH_PAYMENTS: String(total),
          BENCH_ROUNDS: String(rounds),
        },
        timeoutMs: 900_000,
      });
      let done = false;
      try {
        const r = run.ready;
        const ours = median(r.oursSeconds);
        const bare = median(r.bareSeconds);
        const details = {
          payments: r.payments,
          block: r.block,
          watched: r.watched,
          oursSeconds: r.oursSeconds.map((s) => round(s, 3)),
          bareSeconds: r.bareSeconds.map((s) => round(s, 3)),
          insertSeconds: round(r.insertSeconds, 1),
          watchLoadSeconds: round(r.watchLoadSeconds, 2),
          rssBeforeMb: round(r.rssBeforeMb, 1),
          rssAfterMb: round(r.rssAfterMb, 1),
        };
        log(`watcher [${label}]: ${JSON.stringify(details)}`);
        const perSecondGoal = goals.watcherTransitionsPerSecond[database.kind];
        measurements.push(
          measurement({
            name: `watcher: 1,000-deposit block → transitions/s vs the ${perSecondGoal.toLocaleString('en-US')}/s goal [${label}]`,
            unit: 'transitions/s',
            ours: round(r.block / ours, 0),
            baseline: perSecondGoal,
            better: 'higher',
            goal: { atLeast: 1 },
            details,
          }),
          measurement({
            name: `watcher: block commit vs a bare transaction of the same writes [${label}]`,
            unit: 's',
            ours: round(ours, 3),
            baseline: round(bare, 3),
            better: 'lower',
          }),
          measurement({
            name: `watcher: RSS growth with ${r.payments.toLocaleString('en-US')} watched vs the ${goals.watcherRssGrowthMb} MB goal [${label}]`,
            unit: 'MB',
            ours: round(r.rssAfterMb - r.rssBeforeMb, 1),
            baseline: goals.watcherRssGrowthMb,
            better: 'lower',
            goal: { atMost: 1 },
          }),
        );
        done = true;
      } finally {
        // Left to finish its checks and exit by itself: then --profile gets its CPU profile.
        await (done ? run.finished() : run.stop());
        await database.dispose();
      }
    }
    return measurements;
  },
});
