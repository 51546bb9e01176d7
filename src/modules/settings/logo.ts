import { AppError } from '../../lib/errors.ts';

/**
 * Strict checks of an uploaded logo, without decoding it: the bytes must be a complete PNG, JPEG or WebP by their own
 * structure (magic bytes, the header that carries the dimensions, the end marker or declared length), within the size
 * and dimension caps, and of the type the upload declared. Anything else (SVG above all: it can carry script) is
 * refused. The image is then served only with the type found here and `nosniff`, so a browser never guesses.
 */

export const MAX_LOGO_BYTES = 256 * 1024;
const MIN_SIDE = 16;
const MAX_SIDE = 2048;

type LogoType = 'image/png' | 'image/jpeg' | 'image/webp';
const logoTypes: readonly LogoType[] = ['image/png', 'image/jpeg', 'image/webp'];

export interface CheckedLogo {
  contentType: LogoType;
  width: number;
  height: number;
}

const invalid = (message: string) => new AppError('parameter_invalid', message, { param: 'logo' });

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  return prefix.every((value, index) => bytes[at + index] === value);
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length));
}

function png(bytes: Buffer): { width: number; height: number } | undefined {
  if (!startsWith(bytes, PNG_SIGNATURE) || bytes.length < 45) return undefined;
  // The first chunk must be IHDR, 13 bytes long; the last IEND (length 0, then its CRC).
  if (bytes.readUInt32BE(8) !== 13 || ascii(bytes, 12, 4) !== 'IHDR') return undefined;
  if (ascii(bytes, bytes.length - 8, 4) !== 'IEND' || bytes.readUInt32BE(bytes.length - 12) !== 0)
    return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Start-of-frame markers carry the dimensions (C4, C8 and CC are other segments with the same high bits). */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpeg(bytes: Buffer): { width: number; height: number } | undefined {
  if (!startsWith(bytes, [0xff, 0xd8, 0xff]) || !startsWith(bytes, [0xff, 0xd9], bytes.length - 2)) {
    return undefined;
  }
  let at = 2;
  // Walk the segments before the image data: each is FF, a marker, a big-endian length that counts itself.
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return undefined;
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (marker === 0xda) return undefined; // image data before any frame header
    at += 2 + length;
  }
  return undefined;
}

function webp(bytes: Buffer): { width: number; height: number } | undefined {
  if (ascii(bytes, 0, 4) !== 'RIFF' || ascii(bytes, 8, 4) !== 'WEBP' || bytes.length < 30) return undefined;
  if (bytes.readUInt32LE(4) !== bytes.length - 8) return undefined;
  const chunk = ascii(bytes, 12, 4);
  if (chunk === 'VP8 ') {
    // Key frame: a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height.
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], 23)) return undefined;
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) return undefined;
    const bits = bytes.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    return { width: bytes.readUIntLE(24, 3) + 1, height: bytes.readUIntLE(27, 3) + 1 };
  }
  return undefined;
}

const readers: Record<LogoType, (bytes: Buffer) => { width: number; height: number } | undefined> = {
  'image/png': png,
  'image/jpeg': jpeg,
  'image/webp': webp,
};

/** The logo's type and dimensions, or `400 parameter_invalid` (param `logo`) saying what is wrong. */
export function checkLogo(bytes: Buffer, declared: string): CheckedLogo {
  if (bytes.length === 0) throw invalid('The logo is empty.');
  if (bytes.length > MAX_LOGO_BYTES) throw invalid(`The logo is larger than ${MAX_LOGO_BYTES / 1024} KB.`);
  const found = logoTypes.find((type) => readers[type](bytes) !== undefined);
  if (found === undefined) {
    throw invalid('The logo must be a complete PNG, JPEG or WebP image (SVG and other formats are refused).');
  }
  if (found !== declared.split(';')[0]?.trim().toLowerCase()) {
    throw invalid(`The logo is a ${found} image but was sent as ${declared}.`);
  }
  const size = readers[found](bytes);
  if (size === undefined) throw invalid('The logo could not be read.');
  const { width, height } = size;
  if (width < MIN_SIDE || height < MIN_SIDE || width > MAX_SIDE || height > MAX_SIDE) {
    throw invalid(
      `The logo must be from ${MIN_SIDE} to ${MAX_SIDE} pixels on each side (it is ${width}×${height}).`,
    );
  }
  return { contentType: found, width, height };
}
