import { describe, expect, it } from 'vitest';
import { testKey } from '../../../../test/support/tron-node.ts';
import { createTronAddressKeys } from './watched.ts';

describe('createTronAddressKeys', () => {
  it('keys an address by its 20 account bytes in lower-case hex, as blocks write them, and spells the key back', () => {
    const keys = createTronAddressKeys();
    const { address, hex } = testKey('keyed');
    const key = keys.keyOf(address);
    expect(key).toBe(hex.slice(2));
    expect(key).toMatch(/^[0-9a-f]{40}$/);
    // The hex form (41…, either case) is the same account.
    expect(keys.keyOf(hex.toUpperCase())).toBe(key);
    expect(keys.addressOf(key)).toBe(address);
    // A key never keyed is spelled from its bytes.
    const other = testKey('never-keyed');
    expect(createTronAddressKeys().addressOf(other.hex.slice(2))).toBe(other.address);
  });

  it('gives a string that is no Tron address a key no block address can equal', () => {
    const keys = createTronAddressKeys();
    const { address } = testKey('typo');
    const typo = `${address.slice(0, -1)}${address.endsWith('a') ? 'b' : 'a'}`;
    expect(keys.keyOf(typo)).toBe(`not-an-address:${typo}`);
    expect(keys.keyOf('0xC8BdbF85dd9d189e644eF5d8a59862841E0AC5A4')).toMatch(/^not-an-address:/);
  });
});
