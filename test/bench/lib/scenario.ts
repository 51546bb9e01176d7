/**
 * The bench's one contract. A scenario measures something of ours beside a bare baseline measured in the same run,
 * and reports every figure as a ratio `ours / baseline`, never as an absolute pass/fail time: absolute numbers move
 * with the machine and its load, a ratio taken side by side mostly does not.
 *
 * To add one, drop a file in `test/bench/scenarios/` whose default export is `defineScenario({...})`; `run.ts` finds
 * it by file name (`npm run bench -- <name>` runs just that one).
 */

export interface Goal {
  /** The ratio must be at least this (higher is better, e.g. requests/s). */
  atLeast?: number;
  /** The ratio must be at most this (lower is better, e.g. latency, start-up time). */
  atMost?: number;
}

export interface Measurement {
  /** What was measured, e.g. `GET /v1/webhooks/{id} [pglite] requests/s`. */
  name: string;
  unit: string;
  ours: number;
  baseline: number;
  /** ours / baseline. */
  ratio: number;
  better: 'higher' | 'lower';
  goal: Goal | undefined;
  /** Whether the ratio meets the goal; undefined without a goal. */
  met: boolean | undefined;
  /** Extra figures worth keeping in the JSON (samples, errors, settings). */
  details?: Record<string, unknown>;
}

interface BenchContext {
  /** Progress for the person watching (stderr, so stdout keeps just the table). */
  log(message: string): void;
  /** Scale factor for durations and repetitions: BENCH_SCALE (default 1; 0.2 for a quick look). */
  scale: number;
}

export interface Scenario {
  name: string;
  description: string;
  run(context: BenchContext): Promise<Measurement[]>;
}

export function defineScenario(scenario: Scenario): Scenario {
  return scenario;
}

/** Builds a measurement, deriving ratio and verdict. */
export function measurement(input: {
  name: string;
  unit: string;
  ours: number;
  baseline: number;
  better: 'higher' | 'lower';
  goal?: Goal;
  details?: Record<string, unknown>;
}): Measurement {
  const ratio = input.baseline === 0 ? Number.NaN : input.ours / input.baseline;
  const goal = input.goal;
  let met: boolean | undefined;
  if (goal !== undefined) {
    met =
      Number.isFinite(ratio) &&
      (goal.atLeast === undefined || ratio >= goal.atLeast) &&
      (goal.atMost === undefined || ratio <= goal.atMost);
  }
  return {
    name: input.name,
    unit: input.unit,
    ours: input.ours,
    baseline: input.baseline,
    ratio,
    better: input.better,
    goal,
    met,
    ...(input.details === undefined ? {} : { details: input.details }),
  };
}
