import { describe, expect, it } from 'vitest';
import { measurement } from './scenario.ts';
import { median } from './stats.ts';

describe('bench measurements', () => {
  it('reports ours / baseline and judges it against the goal in the right direction', () => {
    const throughput = measurement({
      name: 'rps',
      unit: 'req/s',
      ours: 600,
      baseline: 1000,
      better: 'higher',
      goal: { atLeast: 0.5 },
    });
    expect(throughput).toMatchObject({ ratio: 0.6, met: true });
    expect(
      measurement({
        name: 'rps',
        unit: 'req/s',
        ours: 400,
        baseline: 1000,
        better: 'higher',
        goal: { atLeast: 0.5 },
      }).met,
    ).toBe(false);
    const start = measurement({
      name: 'start',
      unit: 'ms',
      ours: 1600,
      baseline: 1000,
      better: 'lower',
      goal: { atMost: 1.5 },
    });
    expect(start).toMatchObject({ ratio: 1.6, met: false });
  });

  it('has no verdict without a goal, and never meets a goal with a zero baseline', () => {
    expect(
      measurement({ name: 'cpu', unit: 'µs', ours: 2, baseline: 1, better: 'lower' }).met,
    ).toBeUndefined();
    expect(
      measurement({ name: 'x', unit: 'ms', ours: 1, baseline: 0, better: 'lower', goal: { atMost: 2 } }).met,
    ).toBe(false);
  });

  it('takes medians of odd and even counts', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});
