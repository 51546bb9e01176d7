/** The one source of "now", so tests can move time instead of waiting for it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export function manualClock(start: Date = new Date('2026-01-01T00:00:00.000Z')): Clock & {
  set(date: Date): void;
  advance(ms: number): void;
} {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = date.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
