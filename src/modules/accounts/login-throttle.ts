import type { Clock } from '../../lib/clock.ts';

/** Failures an account may have before each further attempt waits; a person mistyping stays under it. */
const ACCOUNT_FREE_FAILURES = 5;
/** Failures one IP may have (over any accounts) before it waits: password spraying across accounts. */
const IP_FREE_FAILURES = 20;
const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 15 * 60_000;
/** A counter with no failure for this long starts again from zero. */
const FORGET_AFTER_MS = 60 * 60_000;
/** Bound on the memory of one process: the oldest counters go first. */
const MAX_ENTRIES = 100_000;

interface Counter {
  failures: number;
  lastFailure: number;
  /** No attempt before this time (ms). */
  blockedUntil: number;
}

/**
 * Growing delays after failed logins, per account and per client IP, kept in this process's memory: after the free
 * failures every further failure doubles the wait (1 s, 2 s, 4 s … up to 15 min) during which attempts are refused
 * without checking the password. A success clears the account's counter (not the IP's: one good password must not
 * reset a spray). Each process counts alone, so N API processes allow up to N times as many attempts.
 */
export function createLoginThrottle(clock: Clock) {
  const counters = new Map<string, Counter>();

  function current(key: string, now: number): Counter | undefined {
    const counter = counters.get(key);
    if (counter !== undefined && now - counter.lastFailure > FORGET_AFTER_MS && now >= counter.blockedUntil) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  }

  function fail(key: string, free: number, now: number): void {
    const counter = current(key, now) ?? { failures: 0, lastFailure: now, blockedUntil: 0 };
    counter.failures += 1;
    counter.lastFailure = now;
    if (counter.failures >= free) {
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (counter.failures - free));
      counter.blockedUntil = now + delay;
    }
    // Re-inserted last, so the map's order is the order of last failure and eviction drops the stalest.
    counters.delete(key);
    counters.set(key, counter);
    while (counters.size > MAX_ENTRIES) {
      const oldest = counters.keys().next().value;
      if (oldest === undefined) break;
      counters.delete(oldest);
    }
  }

  const accountKey = (account: string) => `account:${account}`;
  const ipKey = (ip: string) => `ip:${ip}`;

  return {
    /** Milliseconds to wait before this account may try again from this IP; 0 when it may now. */
    waitMs(account: string, ip: string | undefined): number {
      const now = clock.now().getTime();
      const until = Math.max(
        current(accountKey(account), now)?.blockedUntil ?? 0,
        ip === undefined ? 0 : (current(ipKey(ip), now)?.blockedUntil ?? 0),
      );
      return Math.max(0, until - now);
    },
    failed(account: string, ip: string | undefined): void {
      const now = clock.now().getTime();
      fail(accountKey(account), ACCOUNT_FREE_FAILURES, now);
      if (ip !== undefined) fail(ipKey(ip), IP_FREE_FAILURES, now);
    },
    succeeded(account: string): void {
      counters.delete(accountKey(account));
    },
  };
}
