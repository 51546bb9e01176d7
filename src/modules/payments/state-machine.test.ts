import { describe, expect, it } from 'vitest';
import { nextState, type PaymentFacts, toleranceUnits } from './state-machine.ts';
import type { PaymentStatus as Status } from './statuses.ts';

const E = 1_000_000n;
const base: PaymentFacts = {
  status: 'pending',
  expected: E,
  receivedBefore: 0n,
  receivedInTime: 0n,
  unfinalInTime: 0,
  windowEnded: false,
  tolerance: { under: 0n, over: 0n },
};
const facts = (overrides: Partial<PaymentFacts>): PaymentFacts => ({ ...base, ...overrides });

interface Row {
  name: string;
  from: Status;
  when: Partial<PaymentFacts>;
  to: Status;
  events: string[];
}

/** Every row of the table (README "Payment states"), for each "from" status it lists. */
const table: Row[] = [
  // pending | a deposit is seen, not yet final | confirming | —
  { name: 'deposit seen', from: 'pending', when: { unfinalInTime: 1 }, to: 'confirming', events: [] },
  // pending, confirming, underpaid | received within tolerance of expected | completed | payment.confirmed
  ...(['pending', 'confirming', 'underpaid'] as const).flatMap((from): Row[] => [
    {
      name: 'exact amount final',
      from,
      when: { receivedInTime: E, receivedBefore: from === 'underpaid' ? E / 2n : 0n },
      to: 'completed',
      events: ['payment.confirmed:completed'],
    },
    {
      name: 'short but within the underpayment tolerance',
      from,
      when: { receivedInTime: E - 10n, tolerance: { under: 10n, over: 0n } },
      to: 'completed',
      events: ['payment.confirmed:completed'],
    },
    {
      name: 'over but within the overpayment tolerance',
      from,
      when: { receivedInTime: E + 10n, tolerance: { under: 0n, over: 10n } },
      to: 'completed',
      events: ['payment.confirmed:completed'],
    },
    // pending, confirming, underpaid | received above expected + tolerance | overpaid | payment.overpaid
    {
      name: 'above expected + tolerance',
      from,
      when: { receivedInTime: E + 11n, tolerance: { under: 0n, over: 10n } },
      to: 'overpaid',
      events: ['payment.overpaid:overpaid'],
    },
  ]),
  // pending, confirming | 0 < received < expected − tolerance | underpaid | payment.underpaid
  ...(['pending', 'confirming'] as const).map(
    (from): Row => ({
      name: 'below expected − tolerance',
      from,
      when: { receivedInTime: E - 11n, tolerance: { under: 10n, over: 0n } },
      to: 'underpaid',
      events: ['payment.underpaid:underpaid'],
    }),
  ),
  // underpaid | a top-up that still leaves it short | underpaid | payment.underpaid again
  {
    name: 'top-up still short',
    from: 'underpaid',
    when: { receivedBefore: E / 4n, receivedInTime: E / 2n },
    to: 'underpaid',
    events: ['payment.underpaid:underpaid'],
  },
  {
    name: 'nothing new (re-evaluation)',
    from: 'underpaid',
    when: { receivedBefore: E / 2n, receivedInTime: E / 2n, unfinalInTime: 1 },
    to: 'underpaid',
    events: [],
  },
  // pending | the window ends and nothing was seen | expired | payment.expired
  {
    name: 'window ends, nothing seen',
    from: 'pending',
    when: { windowEnded: true },
    to: 'expired',
    events: ['payment.expired:expired'],
  },
  // underpaid | the window ends | expired | payment.expired
  {
    name: 'window ends while underpaid',
    from: 'underpaid',
    when: { windowEnded: true, receivedBefore: E / 2n, receivedInTime: E / 2n },
    to: 'expired',
    events: ['payment.expired:expired'],
  },
  // confirming | the window ends | stays confirming (a payment seen in time is honoured)
  {
    name: 'window ends while confirming',
    from: 'confirming',
    when: { windowEnded: true, unfinalInTime: 1 },
    to: 'confirming',
    events: [],
  },
  {
    name: 'seen in time, final after the window: honoured',
    from: 'confirming',
    when: { windowEnded: true, receivedInTime: E },
    to: 'completed',
    events: ['payment.confirmed:completed'],
  },
  // confirming | its only unfinal deposits are reorganised away | pending (expired if past the window)
  { name: 'reorganised away', from: 'confirming', when: {}, to: 'pending', events: [] },
  {
    name: 'reorganised away past the window',
    from: 'confirming',
    when: { windowEnded: true },
    to: 'expired',
    events: ['payment.expired:expired'],
  },
  // completed, overpaid, expired: later funds change nothing (they are counted and forwarded elsewhere)
  ...(['completed', 'overpaid', 'expired'] as const).flatMap((from): Row[] => [
    {
      name: 'late funds',
      from,
      when: { receivedInTime: E * 3n, unfinalInTime: 2, windowEnded: true },
      to: from,
      events: [],
    },
    { name: 'window ends', from, when: { windowEnded: true }, to: from, events: [] },
  ]),
];

describe('nextState: the states table', () => {
  it.each(table)('$from → $to when $name', ({ from, when, to, events }) => {
    const result = nextState(facts({ status: from, ...when }));
    expect(result.status).toBe(to);
    expect(result.steps.map((step) => `${step.event}:${step.status}`)).toEqual(events);
  });

  it('covers every status as a "from"', () => {
    expect(new Set(table.map((row) => row.from))).toEqual(
      new Set(['pending', 'confirming', 'completed', 'underpaid', 'overpaid', 'expired']),
    );
  });
});

describe('nextState: sequences', () => {
  /** Runs facts through the machine like the watcher does, carrying status and received forward. */
  function walk(start: Status, changes: Array<Partial<PaymentFacts>>) {
    let status = start;
    let receivedBefore = 0n;
    const events: string[] = [];
    const statuses: Status[] = [];
    for (const change of changes) {
      const input = facts({ status, receivedBefore, ...change });
      const result = nextState(input);
      status = result.status;
      receivedBefore = input.receivedInTime;
      statuses.push(status);
      events.push(...result.steps.map((step) => `${step.event}:${step.status}`));
    }
    return { statuses, events };
  }

  it('a payment in several deposits: seen, final part, seen top-up, final top-up', () => {
    const run = walk('pending', [
      { unfinalInTime: 1 },
      { receivedInTime: 400_000n },
      { receivedInTime: 400_000n, unfinalInTime: 1 },
      { receivedInTime: E },
    ]);
    expect(run.statuses).toEqual(['confirming', 'underpaid', 'underpaid', 'completed']);
    expect(run.events).toEqual(['payment.underpaid:underpaid', 'payment.confirmed:completed']);
  });

  it('two top-ups that stay short send payment.underpaid each time, then the window ends', () => {
    const run = walk('pending', [
      { receivedInTime: 100_000n },
      { receivedInTime: 200_000n },
      { receivedInTime: 300_000n },
      { receivedInTime: 300_000n, windowEnded: true },
    ]);
    expect(run.statuses).toEqual(['underpaid', 'underpaid', 'underpaid', 'expired']);
    expect(run.events).toEqual([
      'payment.underpaid:underpaid',
      'payment.underpaid:underpaid',
      'payment.underpaid:underpaid',
      'payment.expired:expired',
    ]);
  });

  it('an underpaid payment with a top-up seen in time waits past the window, then completes', () => {
    const run = walk('underpaid', [
      { receivedInTime: 500_000n, unfinalInTime: 1, windowEnded: true },
      { receivedInTime: E, windowEnded: true },
    ]);
    expect(run.statuses).toEqual(['underpaid', 'completed']);
    expect(run.events).toEqual(['payment.underpaid:underpaid', 'payment.confirmed:completed']);
  });

  it('a short in-time deposit that finalises after the window: underpaid, then expired at once', () => {
    const run = walk('confirming', [{ receivedInTime: 500_000n, windowEnded: true }]);
    expect(run.statuses).toEqual(['expired']);
    expect(run.events).toEqual(['payment.underpaid:underpaid', 'payment.expired:expired']);
  });

  it('reorg-away before finality, then paid again', () => {
    const run = walk('pending', [{ unfinalInTime: 1 }, {}, { unfinalInTime: 1 }, { receivedInTime: E }]);
    expect(run.statuses).toEqual(['confirming', 'pending', 'confirming', 'completed']);
    expect(run.events).toEqual(['payment.confirmed:completed']);
  });

  it('late funds after expiry never change the status', () => {
    const run = walk('pending', [
      { windowEnded: true },
      { windowEnded: true, unfinalInTime: 0 },
      // The late deposit is final but not in time: receivedInTime stays 0.
      { windowEnded: true, receivedInTime: 0n },
    ]);
    expect(run.statuses).toEqual(['expired', 'expired', 'expired']);
    expect(run.events).toEqual(['payment.expired:expired']);
  });

  it('a deposit that only arrives after the window does not hold a pending payment open', () => {
    // unfinalInTime counts only deposits from blocks before the window ended.
    expect(nextState(facts({ windowEnded: true, unfinalInTime: 0 })).status).toBe('expired');
  });
});

describe('toleranceUnits', () => {
  it('takes the larger of the percent and the absolute amount, rounding the percent down', () => {
    expect(toleranceUnits(1000n, { num: 1n, den: 2n }, 3n)).toBe(5n); // 0.5 % of 1000 = 5
    expect(toleranceUnits(1000n, { num: 1n, den: 2n }, 7n)).toBe(7n);
    expect(toleranceUnits(999n, { num: 1n, den: 1n }, 0n)).toBe(9n); // 9.99 → 9
    expect(toleranceUnits(1000n, { num: 0n, den: 1n }, 0n)).toBe(0n);
  });
});
