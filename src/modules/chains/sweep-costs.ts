import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { chainsRepo as repo } from './repo.ts';

/** What one chain's sweeps in one mode cost in a month. */
export interface SweepCost {
  chain: string;
  isTest: boolean;
  /** Sweeps (forwards) that became final in the month. */
  sweeps: number;
  /** Network fees they paid, in base units of the chain's native coin (on Tron: the TRX they burnt). */
  fee: bigint;
  /** Energy units they used (Tron); null on chains that charge none. */
  energyUsed: bigint | null;
  /** Of those, the units paid by staked TRX lent to the deposit addresses, not by burning TRX. */
  energyDelegated: bigint | null;
}

/**
 * What the instance's sweeps cost, per chain and mode and calendar month (UTC), from the forwards recorded when each
 * became final (its fee as charged and the energy its receipts show). For operators: the fees come from the
 * instance's own wallets. Test-mode sweeps on the built-in simulated chain move nothing real and are left out
 * (`real` says which chain and mode run on a real network).
 */
export function createSweepCosts(deps: {
  db: Db;
  clock: Clock;
  real: (chain: string, isTest: boolean) => boolean;
}) {
  return {
    /** The calendar month (UTC) `month` of `year` (1–12); the current month when absent. */
    async month(which?: { year: number; month: number }): Promise<{ month: string; costs: SweepCost[] }> {
      const now = deps.clock.now();
      const year = which?.year ?? now.getUTCFullYear();
      const index = which === undefined ? now.getUTCMonth() : which.month - 1;
      const from = new Date(Date.UTC(year, index, 1));
      const to = new Date(Date.UTC(year, index + 1, 1));
      const rows = await repo.sweepCosts(deps.db, from, to);
      return {
        month: `${year}-${String(index + 1).padStart(2, '0')}`,
        costs: rows
          .filter((row) => deps.real(row.chain, row.is_test))
          .map((row) => ({
            chain: row.chain,
            isTest: row.is_test,
            sweeps: row.sweeps,
            fee: BigInt(row.fee),
            energyUsed: row.energy_used === null ? null : BigInt(row.energy_used),
            energyDelegated: row.energy_delegated === null ? null : BigInt(row.energy_delegated),
          })),
      };
    },
  };
}
