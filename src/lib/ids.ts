import { randomBytes, randomFillSync } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from the CSPRNG a few KiB at a time (as node's own randomUUID does): a system call per request
 * id showed up in profiles. Each byte is handed out once.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const byte = pool[poolOffset]!;
  pool[poolOffset] = 0;
  poolOffset += 1;
  return byte;
}

/** Random base36 string of `length` characters (about 5.17 bits each) without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 252) out += alphabet[byte % 36];
  }
  return out;
}

export type IdPrefix = 'mer' | 'kp' | 'key' | 'we' | 'evt' | 'del' | 'att' | 'dep' | 'fwd' | 'req';

/** Prefixed resource id such as `we_3k9…`: 20 random base36 characters (~103 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(20)}`;
}

/** UUID v7 (RFC 9562): 48-bit millisecond timestamp then randomness, so ids sort by creation time. */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  let ms = BigInt(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
