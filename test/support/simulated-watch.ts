import type { SimulatedChain } from '../../src/modules/chains/families.ts';
import { createWatcher } from '../../src/modules/chains/watcher.ts';
import type { TestApp } from './harness.ts';

/**
 * The test app's simulated ethereum with a watcher of its own (driven by hand, not by the jobs): one block produced
 * and read, and `blocks(n)` to produce and read n more.
 */
export async function watchedSimulatedEthereum(t: TestApp) {
  const sim: SimulatedChain | undefined = t.services.chainAdapters.simulated('ethereum');
  if (sim === undefined) throw new Error('no simulated ethereum');
  const watcher = createWatcher({
    db: t.database.db,
    clock: t.clock,
    adapter: sim,
    payments: t.services.payments,
    lateWatchDays: 7,
  });
  await sim.produceBlock();
  await watcher.poll();
  return {
    sim,
    watcher,
    async blocks(count: number): Promise<void> {
      for (let i = 0; i < count; i++) {
        await sim.produceBlock();
        await watcher.poll();
      }
    },
  };
}
