import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from the CSPRNG a few KiB at a time (as node's own randomUUID does): a system call per request
 * id, or per payment id, showed up in profiles. Each byte is handed out once.
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

/** `count` fresh random bytes from the pool. */
function randomBuffer(count: number): Buffer {
  const bytes = Buffer.allocUnsafe(count);
  for (let i = 0; i < count; i++) bytes[i] = randomByte();
  return bytes;
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

export type IdPrefix =
  | 'mer'
  | 'kp'
  | 'key'
  | 'we'
  | 'evt'
  | 'del'
  | 'att'
  | 'dep'
  | 'fwd'
  | 'req'
  | 'pwc'
  | 'rf'
  | 'plink'
  | 'mail';

/** Prefixed resource id such as `we_3k9…`: 20 random base36 characters (~103 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(20)}`;
}

/** The millisecond of the last UUID made here, and the 12-bit counter (rand_a) used in it. */
let lastMs = -1;
let counter = 0;

/**
 * UUID v7 (RFC 9562): 48-bit millisecond timestamp, then a 12-bit counter (RFC 9562 method 1), then randomness, so ids
 * sort by creation time, also among those made in the same millisecond by this process. The counter starts at a
 * random value below 2048 each millisecond; in the rare millisecond that uses it up, the rest get random values.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBuffer(16);
  if (now === lastMs && counter < 0xfff) {
    counter += 1;
  } else {
    counter = ((bytes[6]! << 8) | bytes[7]!) & 0x7ff;
    lastMs = now;
  }
  let ms = BigInt(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
