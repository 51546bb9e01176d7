import { describe, expect, it } from 'vitest';
import { manualClock } from '../../lib/clock.ts';
import { createKeyCache } from './key-cache.ts';
import type { ApiKeyRow, KeysRepo } from './repo.ts';
import { createKeysService } from './service.ts';

const principal = (keypairId: string, keyId = `key_${keypairId}`) => ({
  via: 'api_key' as const,
  merchantId: 'mer_1',
  isTest: true,
  keypairId,
  keyId,
});

describe('key cache', () => {
  const answer = (value: ReturnType<typeof principal> | null) => async () => value;
  const failIfAsked = async (): Promise<null> => {
    throw new Error('looked up although cached');
  };

  it('keeps an answer for the TTL, then asks again', async () => {
    let now = 0;
    const cache = createKeyCache({ ttlMs: 1000, now: () => now });
    expect(await cache.resolve('h1', answer(principal('kp_1')))).toEqual(principal('kp_1'));
    now = 999;
    expect(await cache.resolve('h1', failIfAsked)).toEqual(principal('kp_1'));
    now = 1000;
    expect(await cache.resolve('h1', answer(null))).toBeNull();
  });

  it('never keeps an unknown key, and with TTL 0 keeps nothing', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    await cache.resolve('unknown', answer(null));
    expect(await cache.resolve('unknown', answer(principal('kp_new')))).toEqual(principal('kp_new'));
    const off = createKeyCache({ ttlMs: 0 });
    await off.resolve('h1', answer(principal('kp_1')));
    expect(await off.resolve('h1', answer(null))).toBeNull();
  });

  it('forgets both keys of a revoked pair and nothing else', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    await cache.resolve('test', answer(principal('kp_1', 'key_t')));
    await cache.resolve('live', answer(principal('kp_1', 'key_l')));
    await cache.resolve('other', answer(principal('kp_2')));
    cache.forgetKeypair('kp_1');
    expect(await cache.resolve('test', answer(null))).toBeNull();
    expect(await cache.resolve('live', answer(null))).toBeNull();
    expect(await cache.resolve('other', failIfAsked)).toEqual(principal('kp_2'));
  });

  it('shares one lookup among concurrent callers', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    let lookups = 0;
    const slow = async () => {
      lookups += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return principal('kp_1');
    };
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.resolve('h1', slow)));
    expect(answers.every((a) => a?.keypairId === 'kp_1')).toBe(true);
    expect(lookups).toBe(1);
  });

  it('neither stores nor shares a lookup that was in flight when its pair was revoked', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    let release = () => {};
    const held = cache.resolve(
      'h1',
      () =>
        new Promise((resolve) => {
          release = () => resolve(principal('kp_1'));
        }),
    );
    cache.forgetKeypair('kp_1');
    // A caller after the revocation asks the database itself instead of joining the stale lookup.
    expect(await cache.resolve('h1', answer(null))).toBeNull();
    release();
    expect(await held).toEqual(principal('kp_1'));
    expect(await cache.resolve('h1', answer(null))).toBeNull();
  });

  it('stays within its size bound, dropping the oldest entry', async () => {
    const cache = createKeyCache({ ttlMs: 60_000, maxEntries: 2 });
    await cache.resolve('a', answer(principal('kp_a')));
    await cache.resolve('b', answer(principal('kp_b')));
    await cache.resolve('c', answer(principal('kp_c')));
    expect(await cache.resolve('a', answer(null))).toBeNull();
    expect(await cache.resolve('b', failIfAsked)).toBeDefined();
    expect(await cache.resolve('c', failIfAsked)).toBeDefined();
  });

  it('hands out frozen principals, so no caller can change what others get', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    await cache.resolve('h1', answer(principal('kp_1')));
    expect(Object.isFrozen(await cache.resolve('h1', failIfAsked))).toBe(true);
  });

  it('does not remember a failed lookup', async () => {
    const cache = createKeyCache({ ttlMs: 60_000 });
    await expect(cache.resolve('h1', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.resolve('h1', answer(principal('kp_1')))).toEqual(principal('kp_1'));
  });
});

describe('keys service with the cache', () => {
  const fullKey = `svc_test_${'a'.repeat(50)}`;

  /** A repo whose key lookup can be held open, to race a revocation against it. */
  function fakeRepo() {
    let revoked = false;
    let lookups = 0;
    let hold: Promise<void> | undefined;
    const row = (keyHash: string): ApiKeyRow => ({
      id: 'key_1',
      keypairId: 'kp_1',
      merchantId: 'mer_1',
      isTest: true,
      keyHash,
      displayPrefix: 'svc_test_aaaa',
      last4: 'aaaa',
    });
    const repo = {
      async findActiveKeyByHash(keyHash: string) {
        lookups += 1;
        const activeAtRead = !revoked;
        if (hold !== undefined) await hold;
        return activeAtRead ? row(keyHash) : undefined;
      },
      async revokePair() {
        revoked = true;
      },
      async findPair() {
        return {
          pair: { id: 'kp_1', merchantId: 'mer_1', createdAt: new Date(), revokedAt: new Date() },
          keys: [],
        };
      },
    } as unknown as KeysRepo;
    return {
      repo,
      lookups: () => lookups,
      holdLookups(until: Promise<void>) {
        hold = until;
      },
    };
  }

  it('asks the database once per TTL for a busy key', async () => {
    const fake = fakeRepo();
    const keys = createKeysService({ repo: fake.repo, clock: manualClock(), authCacheTtlMs: 60_000 });
    for (let i = 0; i < 5; i++) expect(await keys.authenticate(fullKey)).not.toBeNull();
    expect(fake.lookups()).toBe(1);
  });

  it('rejects a key at once after its pair is revoked in this process', async () => {
    const fake = fakeRepo();
    const keys = createKeysService({ repo: fake.repo, clock: manualClock(), authCacheTtlMs: 60_000 });
    expect(await keys.authenticate(fullKey)).not.toBeNull();
    await keys.revoke('mer_1', 'kp_1');
    expect(await keys.authenticate(fullKey)).toBeNull();
  });

  it('does not cache a lookup that was in flight while the pair was revoked', async () => {
    const fake = fakeRepo();
    const keys = createKeysService({ repo: fake.repo, clock: manualClock(), authCacheTtlMs: 60_000 });
    let release = () => {};
    fake.holdLookups(
      new Promise<void>((resolve) => {
        release = resolve;
      }),
    );
    const inFlight = keys.authenticate(fullKey); // reads the key while still active
    await keys.revoke('mer_1', 'kp_1');
    release();
    expect(await inFlight).not.toBeNull(); // that one request raced the revocation, as without a cache
    fake.holdLookups(Promise.resolve());
    expect(await keys.authenticate(fullKey)).toBeNull();
    expect(fake.lookups()).toBe(2);
  });
});
