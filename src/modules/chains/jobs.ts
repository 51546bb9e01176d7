import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { createLeaderElector, type LeaderElector } from '../../db/leader.ts';
import type { Clock } from '../../lib/clock.ts';
import type { PaymentsService } from '../payments/service.ts';
import type { SettingsService } from '../settings/service.ts';
import type { ChainAdapter } from './adapter.ts';
import type { ChainAdapters, SimulatedChain } from './families.ts';
import { createForwarder, type ForwarderDeps, type ForwardRunResult } from './forwarder.ts';
import { getChain } from './registry.ts';
import { chainsRepo } from './repo.ts';
import { createWatcher, type OutsideWatch, type PollResult } from './watcher.ts';

/** What an operator's metrics learn from each round of a chain's loop (only in the process that leads it). */
export interface SettlementObserver {
  scanned(round: { chain: string; isTest: boolean; seconds: number; poll: PollResult }): void;
  forwarded(round: { chain: string; isTest: boolean; result: ForwardRunResult }): void;
}

export interface SettlementJobsDeps {
  database: Database;
  clock: Clock;
  adapters: ChainAdapters;
  payments: PaymentsService;
  settings: Pick<SettingsService, 'payoutWallet'>;
  /** Test mode: the simulated chains' block interval (SVC_SIM_BLOCK_MS). */
  simBlockMs: number;
  lateWatchDays: number;
  logger?: Logger | undefined;
  /** How often the expiry job looks for ended windows. */
  expiryIntervalMs?: number;
  elector?: LeaderElector;
  afterIntent?: ForwarderDeps['afterIntent'];
  observer?: SettlementObserver | undefined;
  /**
   * More work of each chain's loop, run by its leader after the forwarder (refunds): one task per adapter, made when
   * the loop starts. `hasOpenWork` keeps a simulated chain making blocks while the task waits for confirmations.
   */
  chainTasks?: ReadonlyArray<(adapter: ChainAdapter) => ChainTask>;
  /** Addresses the watchers also scan for (refunds the merchant pays): see WatcherDeps.outsideWatch. */
  outsideWatch?: OutsideWatch;
}

interface ChainTask {
  run(): Promise<unknown>;
  hasOpenWork?(): Promise<boolean>;
}

export interface SettlementJobs {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Null while healthy, else why not (for `/readyz`). */
  readiness(): Promise<string | null>;
}

function isSimulated(adapter: ChainAdapter): adapter is SimulatedChain {
  return adapter.simulated;
}

/**
 * The background work of settlement: per chain and mode, one loop (leader-elected across processes) that produces
 * the simulated chain's next block (test mode), runs the watcher and then the forwarder; and one expiry loop that any
 * number of processes may run (rows are claimed with SKIP LOCKED).
 */
export function createSettlementJobs(deps: SettlementJobsDeps): SettlementJobs {
  const { database, clock, logger } = deps;
  const db = database.db;
  const elector = deps.elector ?? createLeaderElector(database, logger);
  const expiryIntervalMs = deps.expiryIntervalMs ?? 500;
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let stopped = true;
  /** The last failure of each loop that has not succeeded since. */
  const failing = new Map<string, string>();
  /** Loops of chains without a cursor when they started: not ready before their first round has set it. */
  const starting = new Set<string>();
  /** Per loop, how to leave the node's push notifications (ChainAdapter.onActivity) it subscribed to while leading. */
  const activity = new Map<string, () => void>();

  function schedule(fn: () => Promise<void>, delayMs: number): NodeJS.Timeout | undefined {
    if (stopped) return undefined;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const work = fn().finally(() => running.delete(work));
      running.add(work);
    }, delayMs);
    timers.add(timer);
    return timer;
  }

  const loopName = (adapter: ChainAdapter) =>
    `settlement:${adapter.chain}:${adapter.isTest ? 'test' : 'live'}`;

  function chainLoop(adapter: ChainAdapter): (firstDelayMs: number) => void {
    const name = loopName(adapter);
    const log = logger?.child({ chain: adapter.chain, isTest: adapter.isTest });
    const watcher = createWatcher({
      db,
      clock,
      adapter,
      payments: deps.payments,
      lateWatchDays: deps.lateWatchDays,
      logger: log,
      outsideWatch: deps.outsideWatch,
    });
    const forwarder = createForwarder({
      db,
      clock,
      adapter,
      payments: deps.payments,
      settings: deps.settings,
      logger: log,
      afterIntent: deps.afterIntent,
    });
    const tasks = (deps.chainTasks ?? []).map((make) => make(adapter));
    const tasksBusy = async (): Promise<boolean> => {
      for (const task of tasks) if ((await task.hasOpenWork?.()) === true) return true;
      return false;
    };
    const blockSeconds = getChain(adapter.chain)?.blockTimeSeconds ?? 10;
    // Read before every wait: an adapter may poll less often while its node pushes notifications (onActivity).
    const intervalMs = (): number =>
      isSimulated(adapter)
        ? deps.simBlockMs
        : (adapter.pollIntervalMs ?? Math.min(15_000, Math.max(1000, (blockSeconds * 1000) / 2)));
    // Forwarding needs no block-by-block attention: at most once a second on fast (simulated) chains.
    const forwardEveryMs = (): number => Math.max(intervalMs(), 1000);
    let lastForward = 0;
    /** The wait before the next round, while one is scheduled. */
    let timer: NodeJS.Timeout | undefined;
    let ticking = false;
    /** A wake-up came while a round ran: one more round right after it (many wake-ups, one round). */
    let woken = false;
    const wake = (): void => {
      if (stopped) return;
      if (ticking) {
        woken = true;
        return;
      }
      if (timer === undefined) return;
      clearTimeout(timer);
      timers.delete(timer);
      timer = schedule(tick, 0);
    };
    let started = false;
    const scan = async (): Promise<void> => {
      const begun = performance.now();
      const poll = await watcher.poll();
      const seconds = (performance.now() - begun) / 1000;
      deps.observer?.scanned({ chain: adapter.chain, isTest: adapter.isTest, seconds, poll });
    };
    /**
     * A simulated chain at rest (nothing in its mempool, no unfinal deposit or forward) makes no blocks and its loop
     * slows to once a second: ten idle chains cost a few queries a second, not a block each per SVC_SIM_BLOCK_MS.
     */
    let busy = true;
    const tick = async (): Promise<void> => {
      timer = undefined;
      ticking = true;
      const begun = Date.now();
      try {
        const leading = await elector.lead(name);
        // Push notifications only where the chain is scanned: another process's wake-ups would only ask for the lock.
        const subscribed = activity.get(name);
        if (leading && subscribed === undefined && adapter.onActivity !== undefined && !stopped) {
          activity.set(name, adapter.onActivity(wake));
        } else if (!leading && subscribed !== undefined) {
          activity.delete(name);
          subscribed();
        }
        if (leading) {
          // Real adapters check their node once (chain id, tracing) before the first scan.
          if (!started && 'start' in adapter && typeof adapter.start === 'function') await adapter.start();
          if (!started && isSimulated(adapter)) {
            // Start the cursor before any deposit can land: at the head, or at a first block.
            if ((await adapter.head()) === null) await adapter.produceBlock();
            await watcher.poll();
          }
          started = true;
          if (isSimulated(adapter)) {
            busy =
              (await adapter.hasPendingTransfers()) ||
              (await chainsRepo.hasOpenWork(db, adapter.chain, adapter.isTest)) ||
              (await tasksBusy());
            if (busy) {
              await adapter.produceBlock();
              await scan();
            }
          } else {
            await scan();
          }
          if (Date.now() - lastForward >= forwardEveryMs()) {
            lastForward = Date.now();
            // One failing part (a sweep that cannot be built) must not hold up the others (refunds).
            const failures: unknown[] = [];
            try {
              const result = await forwarder.run();
              deps.observer?.forwarded({ chain: adapter.chain, isTest: adapter.isTest, result });
            } catch (error) {
              failures.push(error);
            }
            for (const task of tasks) await task.run().catch((error: unknown) => failures.push(error));
            if (failures.length > 0) throw failures[0];
          }
        }
        failing.delete(name);
        starting.delete(name);
      } catch (error) {
        failing.set(name, `${name}: ${error instanceof Error ? error.message : String(error)}`);
        log?.error({ err: error }, 'settlement tick failed; retrying');
      }
      ticking = false;
      const period = busy ? intervalMs() : Math.max(intervalMs(), 1000);
      const delayMs = woken ? 0 : Math.max(0, period - (Date.now() - begun));
      woken = false;
      timer = schedule(tick, delayMs);
    };
    // Starts the loop: its first round after `delayMs`.
    return (delayMs: number) => {
      timer = schedule(tick, delayMs);
    };
  }

  const expiryTick = async (): Promise<void> => {
    try {
      await deps.payments.expireDue(clock.now(), 500);
      // Rates at confirmation that no price feed gave while the payment settled (no feed is asked inside that
      // transaction): asked now, outside it.
      await deps.payments.fillConfirmationRates(clock.now());
      failing.delete('expiry');
    } catch (error) {
      failing.set('expiry', `expiry: ${error instanceof Error ? error.message : String(error)}`);
      logger?.error({ err: error }, 'expiry run failed; retrying');
    }
    schedule(expiryTick, expiryIntervalMs);
  };

  return {
    async start() {
      stopped = false;
      // A chain without a cursor (its first run) starts at once, and the service is not ready until that first
      // round has set the cursor at the chain's head: a payment handed out before it could be paid in a block the
      // watcher would then start after. The others (a restart) spread their first rounds over one block interval
      // (at most a second): ten at once would hold up the first requests on the embedded database's one connection.
      const heights = await chainsRepo.cursorHeights(db);
      const adapters = deps.adapters.all();
      const spreadMs = Math.min(deps.simBlockMs, 1000);
      adapters.forEach((adapter, index) => {
        const fresh = !heights.has(`${adapter.chain}:${adapter.isTest}`);
        if (fresh) starting.add(loopName(adapter));
        chainLoop(adapter)(fresh ? 0 : Math.round((index * spreadMs) / adapters.length));
      });
      schedule(expiryTick, 0);
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...running]);
      for (const leave of activity.values()) leave();
      activity.clear();
      await elector.close();
    },
    async readiness() {
      const problems = [...failing.values()];
      if (starting.size > 0) problems.push(`settlement starting: ${[...starting].join(', ')}`);
      return problems.length === 0 ? null : problems.join('; ');
    },
  };
}
