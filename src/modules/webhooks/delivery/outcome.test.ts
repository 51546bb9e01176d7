import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, outcomeOf } from './outcome.ts';
import type { WebhookResult } from './sender.ts';

const startedAt = new Date('2026-01-01T00:00:00.000Z');
const finishedAt = new Date('2026-01-01T00:00:01.000Z');
const schedule = [60_000, 600_000, 6_000_000, 60_000_000];
const ok: WebhookResult = { ok: true, statusCode: 200, responseBody: 'fine', error: null, durationMs: 1000 };
const refused: WebhookResult = {
  ok: false,
  statusCode: 500,
  responseBody: 'no',
  error: 'HTTP 500',
  durationMs: 1000,
};

const attemptOf = (attempt: number, result: WebhookResult) =>
  outcomeOf({
    delivery: { id: 'del_1', leaseToken: 'lease', attempt },
    result,
    startedAt,
    finishedAt,
    retryScheduleMs: schedule,
    random: () => 0.5,
  });

describe('what an attempt means', () => {
  it('a 2xx succeeds the delivery, and the attempt is recorded as it went', () => {
    const { attempt, outcome } = attemptOf(1, ok);
    expect(outcome).toEqual({
      id: 'del_1',
      leaseToken: 'lease',
      status: 'succeeded',
      nextAttemptAt: null,
      attemptedAt: startedAt,
      statusCode: 200,
      error: null,
    });
    expect(attempt).toMatchObject({ deliveryId: 'del_1', attempt: 1, success: true, responseBody: 'fine' });
    expect(attempt.id).toMatch(/^att_/);
  });

  it('anything else is tried again on the schedule, counted from when the attempt ended', () => {
    for (let n = 1; n < MAX_ATTEMPTS; n++) {
      const { outcome } = attemptOf(n, refused);
      expect(outcome.status).toBe('pending');
      expect(outcome.nextAttemptAt?.getTime()).toBe(finishedAt.getTime() + (schedule[n - 1] as number));
    }
  });

  it('the last attempt fails the delivery for good', () => {
    const { attempt, outcome } = attemptOf(MAX_ATTEMPTS, refused);
    expect(outcome).toMatchObject({ status: 'failed', nextAttemptAt: null, error: 'HTTP 500' });
    expect(attempt).toMatchObject({ success: false, statusCode: 500, error: 'HTTP 500' });
  });
});
