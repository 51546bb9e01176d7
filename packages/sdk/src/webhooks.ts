import type { components } from './openapi.ts';

type Schemas = components['schemas'];

/** The body of a delivery, by its `event`: a payment's, a payout-wallet change's, or an endpoint's health. */
export type WebhookEvent =
  | Schemas['WebhookPayload']
  | Schemas['PayoutWalletUpdatedPayload']
  | Schemas['WebhookEndpointHealthPayload'];

/** Headers as any server hands them over: fetch's `Headers`, or Node's object (names in any case). */
export type HeadersLike =
  | { get(name: string): string | null }
  | Record<string, string | readonly string[] | undefined>;

export type WebhookVerificationReason =
  | 'missing_headers'
  | 'invalid_signature'
  | 'invalid_timestamp'
  | 'stale_timestamp'
  | 'invalid_body';

/** Why a delivery was not trusted; answer it with a 4xx and do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyOptions {
  /** Seconds a delivery's timestamp may be away from now (default 300); `Infinity` turns the check off. */
  tolerance?: number;
  /** The time to check against (default: now). */
  now?: Date | number;
}

const SECRET_PREFIX = 'whsec_';
const encoder = new TextEncoder();

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | readonly string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return new Uint8Array(body);
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((size, part) => size + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromHex(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The key of the Standard Webhooks scheme: the bytes after `whsec_`, base64-decoded. */
function standardKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const key = secret.startsWith(SECRET_PREFIX) ? fromBase64(secret.slice(SECRET_PREFIX.length)) : undefined;
  if (key === undefined || key.length === 0) {
    throw new TypeError('A signing secret is `whsec_` followed by base64, as the API showed it.');
  }
  return key;
}

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

function hmacKey(bytes: Uint8Array<ArrayBuffer>, usage: 'sign' | 'verify'): Promise<HmacKey> {
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function secondsOf(now: Date | number | undefined): number {
  if (now === undefined) return Date.now() / 1000;
  return (typeof now === 'number' ? now : now.getTime()) / 1000;
}

function checkAge(sentSeconds: number, options: VerifyOptions): void {
  const tolerance = options.tolerance ?? 300;
  if (Math.abs(secondsOf(options.now) - sentSeconds) > tolerance) {
    throw new WebhookVerificationError(
      'stale_timestamp',
      `The delivery's timestamp is more than ${tolerance} s away from now (a replay, or a clock that is off).`,
    );
  }
}

/** Standard Webhooks: any `v1,` signature of `<id>.<timestamp>.<body>` under any of the secrets. */
async function verifyStandard(
  body: Uint8Array<ArrayBuffer>,
  id: string,
  timestamp: string,
  signatures: string,
  secrets: readonly string[],
  options: VerifyOptions,
): Promise<void> {
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds.');
  }
  checkAge(Number(timestamp), options);
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), body);
  const candidates = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => fromBase64(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array<ArrayBuffer> => bytes !== undefined);
  for (const secret of secrets) {
    const key = await hmacKey(standardKeyBytes(secret), 'verify');
    for (const signature of candidates) {
      // Web Crypto's verify compares in constant time.
      if (await crypto.subtle.verify('HMAC', key, signature, signed)) return;
    }
  }
  throw new WebhookVerificationError(
    'invalid_signature',
    'No webhook-signature matches the body under the secret.',
  );
}

/** The seed's scheme: `X-Service-Signature: sha256=<hex HMAC of the body>`, keyed with the secret string itself. */
async function verifyServiceSignature(
  body: Uint8Array<ArrayBuffer>,
  signature: string,
  timestamp: string | undefined,
  secrets: readonly string[],
  options: VerifyOptions,
): Promise<void> {
  const sent = timestamp === undefined ? Number.NaN : Date.parse(timestamp);
  if (Number.isNaN(sent)) {
    throw new WebhookVerificationError(
      'invalid_timestamp',
      'X-Service-Timestamp is missing or not ISO 8601.',
    );
  }
  checkAge(sent / 1000, options);
  const mac = signature.startsWith('sha256=') ? fromHex(signature.slice('sha256='.length)) : undefined;
  if (mac !== undefined) {
    for (const secret of secrets) {
      const key = await hmacKey(encoder.encode(secret), 'verify');
      if (await crypto.subtle.verify('HMAC', key, mac, body)) return;
    }
  }
  throw new WebhookVerificationError(
    'invalid_signature',
    'X-Service-Signature does not match the body under the secret.',
  );
}

/**
 * Checks that a delivery came from svc, unaltered and recent, and returns its event. Give it the raw body exactly as
 * received (bytes or the string, before any JSON parsing), the request's headers, and the endpoint's signing secret
 * (`whsec_…`; during a rotation both the new and the previous one).
 *
 * svc signs every delivery twice. The Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) sign the timestamp with the body, so a replayed delivery is refused once `tolerance` has
 * passed, and carry a signature per live secret during a rotation: when present they decide. Without them (a
 * sender that sets only the seed's headers) `X-Service-Signature` (HMAC of the body) and `X-Service-Timestamp` are
 * checked; that timestamp is not signed, so prefer the first. Every comparison is Web Crypto's `verify`, which takes
 * the same time whatever the bytes.
 */
export async function verify(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: HeadersLike,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verify needs the endpoint signing secret.');
  const body = bytesOf(rawBody);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const serviceSignature = header(headers, 'x-service-signature');
  if (id !== undefined && timestamp !== undefined && signatures !== undefined) {
    await verifyStandard(body, id, timestamp, signatures, secrets, options);
  } else if (serviceSignature !== undefined) {
    await verifyServiceSignature(
      body,
      serviceSignature,
      header(headers, 'x-service-timestamp'),
      secrets,
      options,
    );
  } else {
    throw new WebhookVerificationError(
      'missing_headers',
      'The request has neither the webhook-* headers nor X-Service-Signature: it was not sent by svc.',
    );
  }
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'The signed body is not JSON.');
  }
  if (
    event === null ||
    typeof event !== 'object' ||
    typeof (event as { event?: unknown }).event !== 'string'
  ) {
    throw new WebhookVerificationError('invalid_body', 'The signed body is not an svc event.');
  }
  return event as WebhookEvent;
}

/**
 * The headers svc sends with a delivery of `body` (exactly these, in this order), signed with `secrets` (current
 * first). For tests of a receiver, and for `svc listen`, which forwards events signed as svc would.
 */
export async function sign(input: {
  id: string;
  body: string | Uint8Array;
  secrets: string | readonly string[];
  timestamp?: Date;
  userAgent?: string;
}): Promise<Record<string, string>> {
  const secrets = typeof input.secrets === 'string' ? [input.secrets] : input.secrets;
  const [current] = secrets;
  if (current === undefined) throw new TypeError('sign needs a signing secret.');
  const at = input.timestamp ?? new Date();
  const seconds = Math.floor(at.getTime() / 1000);
  const body = bytesOf(input.body);
  const serviceKey = await hmacKey(encoder.encode(current), 'sign');
  const serviceMac = new Uint8Array(await crypto.subtle.sign('HMAC', serviceKey, body));
  const signed = concat(encoder.encode(`${input.id}.${seconds}.`), body);
  const standard: string[] = [];
  for (const secret of secrets) {
    const key = await hmacKey(standardKeyBytes(secret), 'sign');
    standard.push(`v1,${toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, signed)))}`);
  }
  return {
    'content-type': 'application/json',
    'user-agent': input.userAgent ?? 'svc-webhooks/1',
    'x-service-event-id': input.id,
    'x-service-timestamp': at.toISOString(),
    'x-service-signature': `sha256=${toHex(serviceMac)}`,
    'webhook-id': input.id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': standard.join(' '),
  };
}

/** A fresh signing secret in svc's form (`whsec_` + base64 of 32 random bytes), e.g. for `svc listen`. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}
