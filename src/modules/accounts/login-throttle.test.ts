import { describe, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { createLoginThrottle } from './login-throttle.ts';

describe('login throttle', () => {
  it('lets an account fail 4 times freely, then doubles the wait from 1 s up to 15 min', () => {
    const clock = manualClock();
    const throttle = createLoginThrottle(clock);
    for (let i = 0; i < 4; i++) {
      throttle.failed('a@example.com', '10.0.0.1');
      expect(throttle.waitMs('a@example.com', '10.0.0.1')).toBe(0);
    }
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      throttle.failed('a@example.com', `10.0.1.${i}`);
      const wait = throttle.waitMs('a@example.com', undefined);
      waits.push(wait);
      clock.advance(wait);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900].map((s) => s * 1000));
    // The account is delayed from any IP; another account from those IPs is not.
    throttle.failed('a@example.com', '10.0.2.1');
    expect(throttle.waitMs('a@example.com', '10.9.9.9')).toBe(900_000);
    expect(throttle.waitMs('b@example.com', '10.0.1.1')).toBe(0);
  });

  it('a success clears the account, not the IP', () => {
    const clock = manualClock();
    const throttle = createLoginThrottle(clock);
    for (let i = 0; i < 5; i++) throttle.failed('a@example.com', '10.0.0.1');
    expect(throttle.waitMs('a@example.com', undefined)).toBe(1000);
    throttle.succeeded('a@example.com');
    expect(throttle.waitMs('a@example.com', undefined)).toBe(0);
  });

  it('delays an IP that fails over many accounts (password spraying) after 20 failures', () => {
    const clock = manualClock();
    const throttle = createLoginThrottle(clock);
    for (let i = 0; i < 19; i++) throttle.failed(`user${i}@example.com`, '10.0.0.7');
    expect(throttle.waitMs('new@example.com', '10.0.0.7')).toBe(0);
    throttle.failed('user19@example.com', '10.0.0.7');
    expect(throttle.waitMs('new@example.com', '10.0.0.7')).toBe(1000);
    expect(throttle.waitMs('new@example.com', '10.0.0.8')).toBe(0);
  });

  it('forgets an account an hour after its last failure', () => {
    const clock = manualClock();
    const throttle = createLoginThrottle(clock);
    for (let i = 0; i < 6; i++) throttle.failed('a@example.com', undefined);
    clock.advance(61 * 60_000);
    throttle.failed('a@example.com', undefined);
    expect(throttle.waitMs('a@example.com', undefined)).toBe(0);
  });
});
