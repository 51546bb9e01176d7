import { newId } from '../../../lib/ids.ts';
import type { AttemptRecord, DeliveryOutcome } from './repo.ts';
import type { WebhookResult } from './sender.ts';

/** Seed 6.4 and 8: up to 5 attempts per delivery. */
export const MAX_ATTEMPTS = 5;

/** The delay before attempt `attempt + 1`, with ±10% jitter so retries of one outage do not arrive in a lump. */
export function retryDelayMs(schedule: readonly number[], attempt: number, random: () => number): number {
  const base = schedule[Math.min(attempt, schedule.length) - 1] ?? 0;
  return Math.round(base * (0.9 + 0.2 * random()));
}

/**
 * What one attempt means (pure): a 2xx in time succeeds; any other answer, an error or a timeout is tried again on
 * the retry schedule until the last attempt, which fails the delivery. Returns the attempt as recorded and the
 * delivery's new state.
 */
export function outcomeOf(input: {
  delivery: { id: string; leaseToken: string; attempt: number };
  result: WebhookResult;
  startedAt: Date;
  finishedAt: Date;
  retryScheduleMs: readonly number[];
  random: () => number;
}): { attempt: AttemptRecord; outcome: DeliveryOutcome } {
  const { delivery, result, startedAt } = input;
  let status: DeliveryOutcome['status'];
  let nextAttemptAt: Date | null = null;
  if (result.ok) status = 'succeeded';
  else if (delivery.attempt >= MAX_ATTEMPTS) status = 'failed';
  else {
    status = 'pending';
    nextAttemptAt = new Date(
      input.finishedAt.getTime() + retryDelayMs(input.retryScheduleMs, delivery.attempt, input.random),
    );
  }
  return {
    attempt: {
      id: newId('att'),
      deliveryId: delivery.id,
      attempt: delivery.attempt,
      startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      success: result.ok,
      responseBody: result.responseBody,
      error: result.error,
    },
    outcome: {
      id: delivery.id,
      leaseToken: delivery.leaseToken,
      status,
      nextAttemptAt,
      attemptedAt: startedAt,
      statusCode: result.statusCode,
      error: result.error,
    },
  };
}
