/**
 * keccak256 (the Ethereum hash: Keccak-f[1600] with the original 0x01 padding, not NIST SHA3-256) of an input shorter
 * than one block (< 136 bytes), for the EIP-55 casing of the addresses a scan finds: one permutation, its 25 64-bit
 * lanes held as 50 32-bit locals (a<i>l / a<i>h: lane i = x + 5y, low and high halves), the round written out in
 * full. It gives what @noble/hashes' keccak_256 gives (keccak.test.ts compares every input length and the Keccak
 * test vectors) about three times as fast: noble's general sponge, state arrays and loops cost most of the scanner's own
 * time per block (a checksum per transfer found).
 *
 * Rotation offsets (ρ) by row y (lines) and column x:
 *    0  1 62 28 27
 *   36 44  6 55 20
 *    3 10 43 25 39
 *   41 45 15 21  8
 *   18  2 61 56 14
 */

/** The 24 round constants (ι), low and high 32 bits. */
const ROUND_LO = new Int32Array([
  1, 32898, 32906, -2147450880, 32907, -2147483647, -2147450751, 32777, 138, 136, -2147450871, -2147483638,
  -2147450741, 139, 32905, 32771, 32770, 128, 32778, -2147483638, -2147450751, 32896, -2147483647,
  -2147450872,
]);
const ROUND_HI = new Int32Array([
  0, 0, -2147483648, -2147483648, 0, 0, -2147483648, -2147483648, 0, 0, 0, 0, 0, -2147483648, -2147483648,
  -2147483648, -2147483648, -2147483648, 0, -2147483648, -2147483648, -2147483648, 0, -2147483648,
]);

const RATE = 136;
/** The padded block (reused: the function is synchronous). */
const block = new Uint8Array(RATE);

/** Little-endian 32-bit word of the block at byte `at`. */
function word(at: number): number {
  return (
    (block[at] ?? 0) |
    ((block[at + 1] ?? 0) << 8) |
    ((block[at + 2] ?? 0) << 16) |
    ((block[at + 3] ?? 0) << 24)
  );
}

function put(out: Uint8Array, at: number, value: number): void {
  out[at] = value & 0xff;
  out[at + 1] = (value >>> 8) & 0xff;
  out[at + 2] = (value >>> 16) & 0xff;
  out[at + 3] = value >>> 24;
}

export function keccak256Short(input: Uint8Array): Uint8Array {
  if (input.length >= RATE)
    throw new RangeError(`keccak256Short takes under ${RATE} bytes, got ${input.length}`);
  block.fill(0);
  block.set(input);
  block[input.length] = 0x01;
  block[RATE - 1] = (block[RATE - 1] ?? 0) | 0x80;
  let a0l = word(0);
  let a0h = word(4);
  let a1l = word(8);
  let a1h = word(12);
  let a2l = word(16);
  let a2h = word(20);
  let a3l = word(24);
  let a3h = word(28);
  let a4l = word(32);
  let a4h = word(36);
  let a5l = word(40);
  let a5h = word(44);
  let a6l = word(48);
  let a6h = word(52);
  let a7l = word(56);
  let a7h = word(60);
  let a8l = word(64);
  let a8h = word(68);
  let a9l = word(72);
  let a9h = word(76);
  let a10l = word(80);
  let a10h = word(84);
  let a11l = word(88);
  let a11h = word(92);
  let a12l = word(96);
  let a12h = word(100);
  let a13l = word(104);
  let a13h = word(108);
  let a14l = word(112);
  let a14h = word(116);
  let a15l = word(120);
  let a15h = word(124);
  let a16l = word(128);
  let a16h = word(132);
  let a17l = 0;
  let a17h = 0;
  let a18l = 0;
  let a18h = 0;
  let a19l = 0;
  let a19h = 0;
  let a20l = 0;
  let a20h = 0;
  let a21l = 0;
  let a21h = 0;
  let a22l = 0;
  let a22h = 0;
  let a23l = 0;
  let a23h = 0;
  let a24l = 0;
  let a24h = 0;
  for (let round = 0; round < 24; round++) {
    // θ: c = the xor of each column; d[x] = c[x-1] ^ rotl(c[x+1], 1), xored into every lane of column x.
    const c0l = a0l ^ a5l ^ a10l ^ a15l ^ a20l;
    const c0h = a0h ^ a5h ^ a10h ^ a15h ^ a20h;
    const c1l = a1l ^ a6l ^ a11l ^ a16l ^ a21l;
    const c1h = a1h ^ a6h ^ a11h ^ a16h ^ a21h;
    const c2l = a2l ^ a7l ^ a12l ^ a17l ^ a22l;
    const c2h = a2h ^ a7h ^ a12h ^ a17h ^ a22h;
    const c3l = a3l ^ a8l ^ a13l ^ a18l ^ a23l;
    const c3h = a3h ^ a8h ^ a13h ^ a18h ^ a23h;
    const c4l = a4l ^ a9l ^ a14l ^ a19l ^ a24l;
    const c4h = a4h ^ a9h ^ a14h ^ a19h ^ a24h;
    const d0l = c4l ^ ((c1l << 1) | (c1h >>> 31));
    const d0h = c4h ^ ((c1h << 1) | (c1l >>> 31));
    const d1l = c0l ^ ((c2l << 1) | (c2h >>> 31));
    const d1h = c0h ^ ((c2h << 1) | (c2l >>> 31));
    const d2l = c1l ^ ((c3l << 1) | (c3h >>> 31));
    const d2h = c1h ^ ((c3h << 1) | (c3l >>> 31));
    const d3l = c2l ^ ((c4l << 1) | (c4h >>> 31));
    const d3h = c2h ^ ((c4h << 1) | (c4l >>> 31));
    const d4l = c3l ^ ((c0l << 1) | (c0h >>> 31));
    const d4h = c3h ^ ((c0h << 1) | (c0l >>> 31));
    // ρ and π: lane (x, y), θ applied, rotated left by its offset, moves to (y, 2x + 3y).
    const b0l = a0l ^ d0l;
    const b0h = a0h ^ d0h;
    const t5l = a5l ^ d0l;
    const t5h = a5h ^ d0h;
    const b16l = (t5h << 4) | (t5l >>> 28);
    const b16h = (t5l << 4) | (t5h >>> 28);
    const t10l = a10l ^ d0l;
    const t10h = a10h ^ d0h;
    const b7l = (t10l << 3) | (t10h >>> 29);
    const b7h = (t10h << 3) | (t10l >>> 29);
    const t15l = a15l ^ d0l;
    const t15h = a15h ^ d0h;
    const b23l = (t15h << 9) | (t15l >>> 23);
    const b23h = (t15l << 9) | (t15h >>> 23);
    const t20l = a20l ^ d0l;
    const t20h = a20h ^ d0h;
    const b14l = (t20l << 18) | (t20h >>> 14);
    const b14h = (t20h << 18) | (t20l >>> 14);
    const t1l = a1l ^ d1l;
    const t1h = a1h ^ d1h;
    const b10l = (t1l << 1) | (t1h >>> 31);
    const b10h = (t1h << 1) | (t1l >>> 31);
    const t6l = a6l ^ d1l;
    const t6h = a6h ^ d1h;
    const b1l = (t6h << 12) | (t6l >>> 20);
    const b1h = (t6l << 12) | (t6h >>> 20);
    const t11l = a11l ^ d1l;
    const t11h = a11h ^ d1h;
    const b17l = (t11l << 10) | (t11h >>> 22);
    const b17h = (t11h << 10) | (t11l >>> 22);
    const t16l = a16l ^ d1l;
    const t16h = a16h ^ d1h;
    const b8l = (t16h << 13) | (t16l >>> 19);
    const b8h = (t16l << 13) | (t16h >>> 19);
    const t21l = a21l ^ d1l;
    const t21h = a21h ^ d1h;
    const b24l = (t21l << 2) | (t21h >>> 30);
    const b24h = (t21h << 2) | (t21l >>> 30);
    const t2l = a2l ^ d2l;
    const t2h = a2h ^ d2h;
    const b20l = (t2h << 30) | (t2l >>> 2);
    const b20h = (t2l << 30) | (t2h >>> 2);
    const t7l = a7l ^ d2l;
    const t7h = a7h ^ d2h;
    const b11l = (t7l << 6) | (t7h >>> 26);
    const b11h = (t7h << 6) | (t7l >>> 26);
    const t12l = a12l ^ d2l;
    const t12h = a12h ^ d2h;
    const b2l = (t12h << 11) | (t12l >>> 21);
    const b2h = (t12l << 11) | (t12h >>> 21);
    const t17l = a17l ^ d2l;
    const t17h = a17h ^ d2h;
    const b18l = (t17l << 15) | (t17h >>> 17);
    const b18h = (t17h << 15) | (t17l >>> 17);
    const t22l = a22l ^ d2l;
    const t22h = a22h ^ d2h;
    const b9l = (t22h << 29) | (t22l >>> 3);
    const b9h = (t22l << 29) | (t22h >>> 3);
    const t3l = a3l ^ d3l;
    const t3h = a3h ^ d3h;
    const b5l = (t3l << 28) | (t3h >>> 4);
    const b5h = (t3h << 28) | (t3l >>> 4);
    const t8l = a8l ^ d3l;
    const t8h = a8h ^ d3h;
    const b21l = (t8h << 23) | (t8l >>> 9);
    const b21h = (t8l << 23) | (t8h >>> 9);
    const t13l = a13l ^ d3l;
    const t13h = a13h ^ d3h;
    const b12l = (t13l << 25) | (t13h >>> 7);
    const b12h = (t13h << 25) | (t13l >>> 7);
    const t18l = a18l ^ d3l;
    const t18h = a18h ^ d3h;
    const b3l = (t18l << 21) | (t18h >>> 11);
    const b3h = (t18h << 21) | (t18l >>> 11);
    const t23l = a23l ^ d3l;
    const t23h = a23h ^ d3h;
    const b19l = (t23h << 24) | (t23l >>> 8);
    const b19h = (t23l << 24) | (t23h >>> 8);
    const t4l = a4l ^ d4l;
    const t4h = a4h ^ d4h;
    const b15l = (t4l << 27) | (t4h >>> 5);
    const b15h = (t4h << 27) | (t4l >>> 5);
    const t9l = a9l ^ d4l;
    const t9h = a9h ^ d4h;
    const b6l = (t9l << 20) | (t9h >>> 12);
    const b6h = (t9h << 20) | (t9l >>> 12);
    const t14l = a14l ^ d4l;
    const t14h = a14h ^ d4h;
    const b22l = (t14h << 7) | (t14l >>> 25);
    const b22h = (t14l << 7) | (t14h >>> 25);
    const t19l = a19l ^ d4l;
    const t19h = a19h ^ d4h;
    const b13l = (t19l << 8) | (t19h >>> 24);
    const b13h = (t19h << 8) | (t19l >>> 24);
    const t24l = a24l ^ d4l;
    const t24h = a24h ^ d4h;
    const b4l = (t24l << 14) | (t24h >>> 18);
    const b4h = (t24h << 14) | (t24l >>> 18);
    // χ: each lane ^= (not its next neighbour in the row) & the one after.
    a0l = b0l ^ (~b1l & b2l);
    a0h = b0h ^ (~b1h & b2h);
    a1l = b1l ^ (~b2l & b3l);
    a1h = b1h ^ (~b2h & b3h);
    a2l = b2l ^ (~b3l & b4l);
    a2h = b2h ^ (~b3h & b4h);
    a3l = b3l ^ (~b4l & b0l);
    a3h = b3h ^ (~b4h & b0h);
    a4l = b4l ^ (~b0l & b1l);
    a4h = b4h ^ (~b0h & b1h);
    a5l = b5l ^ (~b6l & b7l);
    a5h = b5h ^ (~b6h & b7h);
    a6l = b6l ^ (~b7l & b8l);
    a6h = b6h ^ (~b7h & b8h);
    a7l = b7l ^ (~b8l & b9l);
    a7h = b7h ^ (~b8h & b9h);
    a8l = b8l ^ (~b9l & b5l);
    a8h = b8h ^ (~b9h & b5h);
    a9l = b9l ^ (~b5l & b6l);
    a9h = b9h ^ (~b5h & b6h);
    a10l = b10l ^ (~b11l & b12l);
    a10h = b10h ^ (~b11h & b12h);
    a11l = b11l ^ (~b12l & b13l);
    a11h = b11h ^ (~b12h & b13h);
    a12l = b12l ^ (~b13l & b14l);
    a12h = b12h ^ (~b13h & b14h);
    a13l = b13l ^ (~b14l & b10l);
    a13h = b13h ^ (~b14h & b10h);
    a14l = b14l ^ (~b10l & b11l);
    a14h = b14h ^ (~b10h & b11h);
    a15l = b15l ^ (~b16l & b17l);
    a15h = b15h ^ (~b16h & b17h);
    a16l = b16l ^ (~b17l & b18l);
    a16h = b16h ^ (~b17h & b18h);
    a17l = b17l ^ (~b18l & b19l);
    a17h = b17h ^ (~b18h & b19h);
    a18l = b18l ^ (~b19l & b15l);
    a18h = b18h ^ (~b19h & b15h);
    a19l = b19l ^ (~b15l & b16l);
    a19h = b19h ^ (~b15h & b16h);
    a20l = b20l ^ (~b21l & b22l);
    a20h = b20h ^ (~b21h & b22h);
    a21l = b21l ^ (~b22l & b23l);
    a21h = b21h ^ (~b22h & b23h);
    a22l = b22l ^ (~b23l & b24l);
    a22h = b22h ^ (~b23h & b24h);
    a23l = b23l ^ (~b24l & b20l);
    a23h = b23h ^ (~b24h & b20h);
    a24l = b24l ^ (~b20l & b21l);
    a24h = b24h ^ (~b20h & b21h);
    // ι
    a0l ^= ROUND_LO[round] ?? 0;
    a0h ^= ROUND_HI[round] ?? 0;
  }
  const out = new Uint8Array(32);
  put(out, 0, a0l);
  put(out, 4, a0h);
  put(out, 8, a1l);
  put(out, 12, a1h);
  put(out, 16, a2l);
  put(out, 20, a2h);
  put(out, 24, a3l);
  put(out, 28, a3h);
  return out;
}
