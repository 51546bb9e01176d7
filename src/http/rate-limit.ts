import type { FastifyReply } from 'fastify';
import { AppError } from '../lib/errors.ts';

/**
 * Fixed-window request counters per API key and per client IP, kept in this process. Behind several API processes
 * each enforces its own window, so the effective limit is per process; that is the trade for needing no extra store.
 */
export interface RateLimiter {
  consumeIp(ip: string, reply: FastifyReply): void;
  consumeKey(key: string, reply: FastifyReply): void;
}

interface Window {
  startedAt: number;
  count: number;
}

const WINDOW_MS = 60_000;

function makeCounter(limit: number, now: () => number) {
  const windows = new Map<string, Window>();
  let lastSweep = now();
  return (id: string, reply: FastifyReply) => {
    if (limit === 0) return;
    const t = now();
    if (t - lastSweep > WINDOW_MS) {
      for (const [key, window] of windows) if (t - window.startedAt >= WINDOW_MS) windows.delete(key);
      lastSweep = t;
    }
    let window = windows.get(id);
    if (window === undefined || t - window.startedAt >= WINDOW_MS) {
      window = { startedAt: t, count: 0 };
      windows.set(id, window);
    }
    window.count += 1;
    const remaining = Math.max(0, limit - window.count);
    const resetSeconds = Math.ceil((window.startedAt + WINDOW_MS - t) / 1000);
    reply.header('x-ratelimit-limit', limit);
    reply.header('x-ratelimit-remaining', remaining);
    if (window.count > limit) {
      throw new AppError('rate_limited', `Too many requests; try again in ${resetSeconds} s.`, {
        headers: { 'retry-after': String(resetSeconds) },
      });
    }
  };
}

export function createRateLimiter(options: {
  perKey: number;
  perIp: number;
  now?: () => number;
}): RateLimiter {
  const now = options.now ?? Date.now;
  return { consumeIp: makeCounter(options.perIp, now), consumeKey: makeCounter(options.perKey, now) };
}
