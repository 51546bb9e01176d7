import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';

/**
 * Request limits per minute, counted by @fastify/rate-limit in this process (behind several API processes each
 * enforces its own window, so the limit is per process: the trade for needing no extra store). Two limits apply: per
 * client IP on every request, and per API key or dashboard session once the caller is known (auth.ts), so that one
 * merchant's traffic never uses up another's. A request over a limit gets the API's error shape, 429 `rate_limited`
 * with Retry-After; every counted request carries X-RateLimit-Limit and X-RateLimit-Remaining.
 */
export type RateLimitCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const WINDOW_MS = 60_000;
/** Callers remembered per limit (least recently seen forgotten first). */
const TRACKED = 50_000;

/** Registers the plugin without a global limit: the checks below decide where limits apply. */
export async function registerRateLimiting(app: FastifyInstance): Promise<void> {
  await app.register(rateLimit, { global: false, cache: TRACKED });
}

/** A limit of `max` requests a minute per `keyOf(request)`; none when `max` is 0. */
export function rateLimitCheck(
  app: FastifyInstance,
  max: number,
  keyOf: (request: FastifyRequest) => string,
): RateLimitCheck {
  if (max === 0) return async () => {};
  const limit = app.createRateLimit({ max, timeWindow: WINDOW_MS, keyGenerator: keyOf });
  return async (request, reply) => {
    const result = await limit(request);
    if (result.isAllowed) return;
    reply.header('x-ratelimit-limit', result.max);
    reply.header('x-ratelimit-remaining', result.remaining);
    if (result.isExceeded) {
      throw new AppError('rate_limited', `Too many requests; try again in ${result.ttlInSeconds} s.`, {
        headers: { 'retry-after': String(result.ttlInSeconds) },
      });
    }
  };
}
