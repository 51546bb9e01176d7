import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../lib/errors.ts';
import { checkLogo, MAX_LOGO_BYTES } from './logo.ts';

/** A minimal JPEG: SOI, a JFIF APP0, a baseline frame header of `width`×`height`, a scan header, EOI. */
function jpeg(width: number, height: number): Buffer {
  const app0 = [
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0, 0,
  ];
  const sof = [
    0xff,
    0xc0,
    0x00,
    0x0b,
    0x08,
    height >> 8,
    height & 0xff,
    width >> 8,
    width & 0xff,
    0x01,
    0x01,
    0x11,
    0x00,
  ];
  const sos = [0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x12, 0x34];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof, ...sos, 0xff, 0xd9]);
}

/** A lossless WebP header (VP8L) of `width`×`height` and a few bytes of (unread) image data. */
function webp(width: number, height: number): Buffer {
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const chunk = Buffer.alloc(10);
  chunk[0] = 0x2f;
  chunk.writeUInt32LE(bits >>> 0, 1);
  const body = Buffer.concat([Buffer.from('WEBPVP8L'), Buffer.from([chunk.length, 0, 0, 0]), chunk]);
  const head = Buffer.alloc(8);
  head.write('RIFF');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? `${error.code}:${error.param}:${error.message}` : String(error);
  }
  return 'accepted';
};

describe('logo uploads', () => {
  it('accepts a real PNG, a JPEG and a WebP with the dimensions their headers give', async () => {
    const png = await QRCode.toBuffer('logo', { type: 'png', width: 120 });
    expect(checkLogo(png, 'image/png')).toEqual({ contentType: 'image/png', width: 120, height: 120 });
    expect(checkLogo(jpeg(640, 200), 'image/jpeg')).toEqual({
      contentType: 'image/jpeg',
      width: 640,
      height: 200,
    });
    expect(checkLogo(webp(300, 100), 'image/webp; charset=binary')).toEqual({
      contentType: 'image/webp',
      width: 300,
      height: 100,
    });
  });

  it('refuses SVG, other formats, truncated files, a declared type that is not the real one, and odd sizes', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(code(() => checkLogo(svg, 'image/svg+xml'))).toMatch(/^parameter_invalid:logo:.*SVG/);
    expect(code(() => checkLogo(Buffer.from('GIF89a......'), 'image/gif'))).toMatch(
      /^parameter_invalid:logo/,
    );
    const png = await QRCode.toBuffer('logo', { type: 'png', width: 120 });
    expect(code(() => checkLogo(png.subarray(0, png.length - 12), 'image/png'))).toMatch(/complete PNG/);
    // An HTML page behind a PNG signature is no PNG.
    const polyglot = Buffer.concat([png.subarray(0, 33), Buffer.from('<html><script>alert(1)</script>')]);
    expect(code(() => checkLogo(polyglot, 'image/png'))).toMatch(/complete PNG/);
    expect(code(() => checkLogo(png, 'image/jpeg'))).toMatch(
      /is a image\/png image but was sent as image\/jpeg/,
    );
    expect(code(() => checkLogo(jpeg(8, 8), 'image/jpeg'))).toMatch(/16 to 2048 pixels/);
    expect(code(() => checkLogo(webp(4000, 100), 'image/webp'))).toMatch(/16 to 2048 pixels/);
    expect(code(() => checkLogo(Buffer.alloc(MAX_LOGO_BYTES + 1), 'image/png'))).toMatch(
      /larger than 256 KB/,
    );
    expect(code(() => checkLogo(Buffer.alloc(0), 'image/png'))).toMatch(/empty/);
  });
});
