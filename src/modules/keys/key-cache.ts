import type { Principal } from '../tenancy/caller.ts';

type KeyPrincipal = Extract<Principal, { via: 'api_key' }>;

/**
 * Remembers authenticated API keys for a short time, so a busy key costs one database lookup per TTL instead of one
 * per request. Keyed by the key's SHA-256 (never the key itself). Only successful lookups are kept: an unknown key is
 * asked again each time, so a new key works at once and garbage cannot fill the cache. Concurrent requests with the
 * same key share one lookup, so an expiry under load costs one query, not one per waiting request.
 *
 * Revocation is immediate inside this process: `forgetKeypair` drops the pair's entries and bumps a generation, and a
 * lookup that was already in flight then neither stores its (possibly stale) answer nor is shared with later
 * callers. Another process sharing the database (several `api` processes on PostgreSQL) may accept a revoked key
 * until its entry there expires, i.e. for at most the TTL.
 */
export interface KeyCache {
  /** The remembered principal for this key hash, else the answer of `lookup` (remembered when it is one). */
  resolve(keyHash: string, lookup: () => Promise<KeyPrincipal | null>): Promise<KeyPrincipal | null>;
  forgetKeypair(keypairId: string): void;
}

export function createKeyCache(options: {
  ttlMs: number;
  maxEntries?: number;
  /** Monotonic milliseconds (not the business clock: tests freeze that one). */
  now?: () => number;
}): KeyCache {
  const { ttlMs } = options;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, { principal: KeyPrincipal; expiresAt: number }>();
  const inFlight = new Map<string, Promise<KeyPrincipal | null>>();
  let generation = 0;

  function remember(keyHash: string, principal: KeyPrincipal): void {
    if (entries.size >= maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = entries.keys().next();
      if (oldest.done !== true) entries.delete(oldest.value);
    }
    entries.set(keyHash, { principal: Object.freeze({ ...principal }), expiresAt: now() + ttlMs });
  }

  return {
    resolve(keyHash, lookup) {
      if (ttlMs === 0) return lookup();
      const entry = entries.get(keyHash);
      if (entry !== undefined) {
        if (entry.expiresAt > now()) return Promise.resolve(entry.principal);
        entries.delete(keyHash);
      }
      const pending = inFlight.get(keyHash);
      if (pending !== undefined) return pending;
      const generationAtLookup = generation;
      const answer = lookup().then(
        (principal) => {
          if (generationAtLookup === generation) {
            inFlight.delete(keyHash);
            if (principal !== null) remember(keyHash, principal);
          }
          return principal;
        },
        (error: unknown) => {
          if (generationAtLookup === generation) inFlight.delete(keyHash);
          throw error;
        },
      );
      inFlight.set(keyHash, answer);
      return answer;
    },
    forgetKeypair(keypairId) {
      generation += 1;
      inFlight.clear();
      for (const [keyHash, entry] of entries) {
        if (entry.principal.keypairId === keypairId) entries.delete(keyHash);
      }
    },
  };
}
