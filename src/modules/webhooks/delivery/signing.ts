import { createHmac } from 'node:crypto';

/**
 * The two signature schemes every delivery carries.
 *
 * 1. The seed's: `X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body>`, keyed with the endpoint's signing
 *    secret string exactly as it was shown (`whsec_…`, as UTF-8 bytes), plus `X-Service-Timestamp` (ISO 8601 UTC
 *    with milliseconds).
 * 2. Standard Webhooks: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`: space-separated
 *    `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed with the base64-decoded part of the secret after
 *    `whsec_` as that specification says. During a rotation overlap it carries one signature per live secret.
 */

const SECRET_PREFIX = 'whsec_';

/** The HMAC key of the Standard Webhooks scheme: the bytes the `whsec_` secret encodes. */
export function standardWebhooksKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('A signing secret starts with whsec_');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('The signing secret encodes no key');
  return key;
}

export function serviceSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** One `v1,<base64>` entry of the Standard Webhooks header. */
export function standardSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return `v1,${createHmac('sha256', standardWebhooksKey(secret)).update(signed).digest('base64')}`;
}

export interface SignInput {
  eventId: string;
  body: string;
  /** Current secret first, then the previous one while its overlap lasts. */
  secrets: readonly string[];
  /** The moment of this attempt. */
  at: Date;
}

/** Every header of a delivery request, in a fixed order. */
export function deliveryHeaders({ eventId, body, secrets, at }: SignInput): Record<string, string> {
  const [current] = secrets;
  if (current === undefined) throw new Error('An endpoint needs a signing secret');
  const seconds = Math.floor(at.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
    'x-service-event-id': eventId,
    'x-service-timestamp': at.toISOString(),
    'x-service-signature': serviceSignature(current, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(seconds),
    'webhook-signature': secrets.map((secret) => standardSignature(secret, eventId, seconds, body)).join(' '),
  };
}
