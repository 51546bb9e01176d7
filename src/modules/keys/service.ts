import type { Clock } from '../../lib/clock.ts';
import { safeEqual, sha256Hex } from '../../lib/crypto.ts';
import { AppError } from '../../lib/errors.ts';
import { newId, randomToken } from '../../lib/ids.ts';
import type { Principal } from '../tenancy/caller.ts';
import { createKeyCache } from './key-cache.ts';
import type { ApiKeyRow, KeypairRow, KeysRepo } from './repo.ts';
import type { CreatedKeypairView, KeypairView } from './schemas.ts';

const TEST_PREFIX = 'svc_test_';
const LIVE_PREFIX = 'svc_live_';
/** 50 base36 characters carry 258 bits of randomness. */
const KEY_BODY_LENGTH = 50;
const keyPattern = /^svc_(test|live)_[0-9a-z]{50}$/;

type KeyPrincipal = Extract<Principal, { via: 'api_key' }>;

export interface KeysDeps {
  repo: KeysRepo;
  clock: Clock;
  /** How long this process remembers an authenticated key (see key-cache.ts); 0 asks the database every time. */
  authCacheTtlMs?: number;
}

function redacted(key: ApiKeyRow | undefined, isTest: boolean) {
  return { display_prefix: key?.displayPrefix ?? '', last4: key?.last4 ?? '', is_test: isTest };
}

function toView({ pair, keys }: { pair: KeypairRow; keys: ApiKeyRow[] }): KeypairView {
  return {
    keypair_id: pair.id,
    test: redacted(
      keys.find((key) => key.isTest),
      true,
    ),
    live: redacted(
      keys.find((key) => !key.isTest),
      false,
    ),
    created_at: pair.createdAt.toISOString(),
    revoked: pair.revokedAt !== null,
    revoked_at: pair.revokedAt?.toISOString() ?? null,
  };
}

export function createKeysService({ repo, clock, authCacheTtlMs = 0 }: KeysDeps) {
  const cache = createKeyCache({ ttlMs: authCacheTtlMs });
  return {
    async generate(merchantId: string): Promise<CreatedKeypairView> {
      const now = clock.now();
      const pair: KeypairRow = { id: newId('kp'), merchantId, createdAt: now, revokedAt: null };
      const testKey = TEST_PREFIX + randomToken(KEY_BODY_LENGTH);
      const liveKey = LIVE_PREFIX + randomToken(KEY_BODY_LENGTH);
      const row = (fullKey: string, isTest: boolean): ApiKeyRow => ({
        id: newId('key'),
        keypairId: pair.id,
        merchantId,
        isTest,
        keyHash: sha256Hex(fullKey),
        displayPrefix: fullKey.slice(0, TEST_PREFIX.length + 4),
        last4: fullKey.slice(-4),
      });
      await repo.insertPair(pair, [row(testKey, true), row(liveKey, false)]);
      return {
        keypair_id: pair.id,
        test: { full_key: testKey, is_test: true },
        live: { full_key: liveKey, is_test: false },
        created_at: now.toISOString(),
      };
    },

    async list(merchantId: string): Promise<KeypairView[]> {
      return (await repo.listPairs(merchantId)).map(toView);
    },

    async revoke(merchantId: string, keypairId: string): Promise<KeypairView> {
      await repo.revokePair(merchantId, keypairId, clock.now());
      // After the revocation is committed, so no lookup can cache the pair as active again.
      cache.forgetKeypair(keypairId);
      const found = await repo.findPair(merchantId, keypairId);
      if (found === undefined) throw new AppError('not_found', 'No such keypair.', { param: 'id' });
      return toView(found);
    },

    /** Unknown, malformed and revoked keys all answer null, so callers cannot tell them apart. */
    async authenticate(fullKey: string): Promise<KeyPrincipal | null> {
      if (!keyPattern.test(fullKey)) return null;
      const keyHash = sha256Hex(fullKey);
      return cache.resolve(keyHash, async () => {
        const key = await repo.findActiveKeyByHash(keyHash);
        if (key === undefined || !safeEqual(key.keyHash, keyHash)) return null;
        // The prefix decides the mode, and it must agree with what was stored for this key.
        if (key.isTest !== fullKey.startsWith(TEST_PREFIX)) return null;
        return {
          via: 'api_key',
          merchantId: key.merchantId,
          isTest: key.isTest,
          keypairId: key.keypairId,
          keyId: key.id,
        };
      });
    },
  };
}
