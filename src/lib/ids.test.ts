import { describe, expect, it } from 'vitest';
import { uuidPattern, uuidv7 } from './ids.ts';

describe('uuidv7', () => {
  it('carries the millisecond, version 7 and the RFC variant', () => {
    const id = uuidv7(0x0189_abcd_ef01);
    expect(id).toMatch(uuidPattern);
    expect(id.slice(0, 13)).toBe('0189abcd-ef01');
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('sorts by creation, also among ids made in the same millisecond', () => {
    const now = Date.now();
    const ids = [
      ...Array.from({ length: 1000 }, () => uuidv7(now)),
      ...Array.from({ length: 10 }, () => uuidv7(now + 1)),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
