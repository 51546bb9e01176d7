import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../lib/clock.ts';
import { decryptSecret, encryptSecret } from '../../../lib/crypto.ts';
import { AppError } from '../../../lib/errors.ts';
import { newId } from '../../../lib/ids.ts';
import type { Principal } from '../../tenancy/caller.ts';
import { modeForRead, modeForWrite } from '../../tenancy/scope.ts';
import type { WebhookEndpointRow, WebhookEndpointsRepo } from './repo.ts';
import type { WebhookEndpointView } from './schemas.ts';

/** How long a rotated-out secret keeps signing deliveries, so receivers can switch without downtime. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Decides whether a URL may receive deliveries; throws an AppError naming `url` when not. The delivery engine's
 * SSRF guard plugs in here so registration and delivery apply the same rules. `operator`: the endpoint's merchant is
 * one of the instance's operators (who alone may point test endpoints at loopback).
 */
export type EndpointUrlCheck = (url: URL, isTest: boolean, operator?: boolean) => Promise<void>;

export interface WebhookEndpointsDeps {
  repo: WebhookEndpointsRepo;
  clock: Clock;
  masterKey: Buffer;
  checkUrl: EndpointUrlCheck;
  /** Whether a merchant is one of the instance's operators (accounts/operators.ts). */
  isOperator(merchantId: string): Promise<boolean>;
  /** Endpoints a merchant may have in each mode (`SVC_WEBHOOK_MAX_ENDPOINTS`). */
  maxEndpoints: number;
}

function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function toView(row: WebhookEndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    is_test: row.isTest,
    enabled: row.enabled,
    description: row.description,
    consecutive_failures: row.consecutiveFailures,
    tripped_at: row.trippedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Shape rules every endpoint URL must meet, before any network check. */
function parseEndpointUrl(raw: string, isTest: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('parameter_invalid', 'url must be an absolute http(s) URL.', { param: 'url' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AppError('parameter_invalid', 'url must use http or https.', { param: 'url' });
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppError('parameter_invalid', 'url must not contain credentials.', { param: 'url' });
  }
  if (url.hostname === '') throw new AppError('parameter_invalid', 'url must name a host.', { param: 'url' });
  if (!isTest && url.protocol !== 'https:') {
    throw new AppError('parameter_invalid', 'Live webhook endpoints must use https.', { param: 'url' });
  }
  return url;
}

/** Opened signing secrets a process keeps (a secret and its predecessor per endpoint in rotation). */
const OPENED_SECRETS_MAX = 10_000;

export function createWebhookEndpointsService({
  repo,
  clock,
  masterKey,
  checkUrl,
  isOperator,
  maxEndpoints,
}: WebhookEndpointsDeps) {
  /**
   * Signing secrets already opened, by their sealed form. Every delivery signs with its endpoint's secret, and opening
   * it each time (an AES-GCM decipher per call) took about 5 % of a delivery's CPU. A sealed form always opens to the
   * same secret (a rotation seals a new one, under a new IV), so nothing here goes stale; the worker process holds
   * these secrets in memory either way while it signs. Emptied when full.
   */
  const openedSecrets = new Map<string, string>();
  function opened(sealed: string): string {
    let secret = openedSecrets.get(sealed);
    if (secret === undefined) {
      if (openedSecrets.size >= OPENED_SECRETS_MAX) openedSecrets.clear();
      secret = decryptSecret(masterKey, sealed);
      openedSecrets.set(sealed, secret);
    }
    return secret;
  }

  async function validUrl(merchantId: string, raw: string, isTest: boolean): Promise<string> {
    const url = parseEndpointUrl(raw, isTest);
    // Only test endpoints can ever reach past the public internet on an operator's say-so.
    await checkUrl(url, isTest, isTest && (await isOperator(merchantId)));
    return url.toString();
  }

  async function findOrThrow(principal: Principal, id: string): Promise<WebhookEndpointRow> {
    const row = await repo.find(principal.merchantId, modeForRead(principal, undefined), id);
    if (row === undefined) throw new AppError('not_found', 'No such webhook endpoint.', { param: 'id' });
    return row;
  }

  return {
    /** Endpoints failing (breaker open) for at least `forMs`, each returned once per trip (see the repo). */
    claimFailingNotices: (now: Date, forMs: number) =>
      repo.claimFailingNotices(new Date(now.getTime() - forMs), now),

    async create(
      principal: Principal,
      input: { url: string; is_test?: boolean | undefined; description?: string | null | undefined },
    ): Promise<WebhookEndpointView & { signing_secret: string }> {
      const isTest = modeForWrite(principal, input.is_test);
      // Counted before the insert: two registrations racing can pass one over the limit, which is harmless (the
      // limit bounds fan-out and worker slots, not a security boundary).
      if ((await repo.count(principal.merchantId, isTest)) >= maxEndpoints) {
        throw new AppError(
          'endpoint_limit_reached',
          `A merchant may have at most ${maxEndpoints} ${isTest ? 'test' : 'live'} webhook endpoints; delete one first.`,
        );
      }
      const url = await validUrl(principal.merchantId, input.url, isTest);
      const secret = newSigningSecret();
      const now = clock.now();
      const row: WebhookEndpointRow = {
        id: newId('we'),
        merchantId: principal.merchantId,
        isTest,
        url,
        description: input.description ?? null,
        enabled: true,
        secretSealed: encryptSecret(masterKey, secret),
        previousSecretSealed: null,
        previousSecretExpiresAt: null,
        consecutiveFailures: 0,
        trippedAt: null,
        nextProbeAt: null,
        failingNoticedAt: null,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
      };
      await repo.insert(row);
      return { ...toView(row), signing_secret: secret };
    },

    async list(principal: Principal, isTest: boolean | undefined): Promise<WebhookEndpointView[]> {
      return (await repo.list(principal.merchantId, modeForRead(principal, isTest))).map(toView);
    },

    async get(principal: Principal, id: string): Promise<WebhookEndpointView> {
      return toView(await findOrThrow(principal, id));
    },

    async update(
      principal: Principal,
      id: string,
      input: {
        url?: string | undefined;
        description?: string | null | undefined;
        enabled?: boolean | undefined;
      },
    ): Promise<WebhookEndpointView> {
      const existing = await findOrThrow(principal, id);
      const changes: Partial<WebhookEndpointRow> = { updatedAt: clock.now() };
      if (input.url !== undefined)
        changes.url = await validUrl(principal.merchantId, input.url, existing.isTest);
      if (input.description !== undefined) changes.description = input.description;
      if (input.enabled !== undefined) changes.enabled = input.enabled;
      const row = await repo.update(principal.merchantId, existing.isTest, id, changes);
      if (row === undefined) throw new AppError('not_found', 'No such webhook endpoint.', { param: 'id' });
      return toView(row);
    },

    async remove(principal: Principal, id: string): Promise<WebhookEndpointView> {
      const existing = await findOrThrow(principal, id);
      const now = clock.now();
      const row = await repo.update(principal.merchantId, existing.isTest, id, {
        deletedAt: now,
        enabled: false,
        updatedAt: now,
      });
      if (row === undefined) throw new AppError('not_found', 'No such webhook endpoint.', { param: 'id' });
      return toView(row);
    },

    async rotateSecret(
      principal: Principal,
      id: string,
    ): Promise<WebhookEndpointView & { signing_secret: string; previous_secret_expires_at: string }> {
      const existing = await findOrThrow(principal, id);
      const now = clock.now();
      const secret = newSigningSecret();
      const expiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      const row = await repo.update(principal.merchantId, existing.isTest, id, {
        secretSealed: encryptSecret(masterKey, secret),
        previousSecretSealed: existing.secretSealed,
        previousSecretExpiresAt: expiresAt,
        updatedAt: now,
      });
      if (row === undefined) throw new AppError('not_found', 'No such webhook endpoint.', { param: 'id' });
      return { ...toView(row), signing_secret: secret, previous_secret_expires_at: expiresAt.toISOString() };
    },

    /** The secrets that sign a delivery now: the current one, then the previous one while its overlap lasts. */
    signingSecrets(
      row: Pick<WebhookEndpointRow, 'secretSealed' | 'previousSecretSealed' | 'previousSecretExpiresAt'>,
    ) {
      const secrets = [opened(row.secretSealed)];
      if (
        row.previousSecretSealed !== null &&
        row.previousSecretExpiresAt !== null &&
        row.previousSecretExpiresAt.getTime() > clock.now().getTime()
      ) {
        secrets.push(opened(row.previousSecretSealed));
      }
      return secrets;
    },
  };
}

export type WebhookEndpointsService = ReturnType<typeof createWebhookEndpointsService>;
