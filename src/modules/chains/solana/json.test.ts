import {
  parseJsonWithBigInts as kitParse,
  stringifyJsonWithBigInts as kitStringify,
} from '@solana/rpc-spec-types';
import { describe, expect, it } from 'vitest';
import { parseJsonWithBigInts, stringifyJsonWithBigInts } from './json.ts';

const kitFallback = (text: string) => ({ fallback: kitParse(text) });

describe('solana JSON with bigints', () => {
  it('reads every integer as a bigint, exactly beyond 2^53, and agrees with kit', () => {
    const text =
      '{"jsonrpc":"2.0","result":{"slot":5,"lamports":18446744073709551615,"neg":-3,"ui":1.5,"e":2.5e-3,' +
      '"keys":["1234","a\\"9","\\\\"],"nested":[[0,1],{"x":-0}],"t":true,"n":null}}';
    const ours = parseJsonWithBigInts(text, kitFallback);
    expect(ours).toEqual(kitParse(text));
    expect(ours).toEqual({
      jsonrpc: '2.0',
      result: {
        slot: 5n,
        lamports: 18_446_744_073_709_551_615n,
        neg: -3n,
        ui: 1.5,
        e: 0.0025,
        keys: ['1234', 'a"9', '\\'],
        nested: [[0n, 1n], { x: 0n }],
        t: true,
        n: null,
      },
    });
  });

  it('keeps a number with an exponent a number (kit would make 1e3 a bigint; the RPC writes none)', () => {
    expect(parseJsonWithBigInts('[1e3]', kitFallback)).toEqual([1000]);
  });

  it('for blocks, keeps integers below 16 digits numbers and makes the rest bigints', () => {
    const text = '{"a":[1,-2,999999999999999,9007199254740993,-9007199254740993],"b":"12345678901234567"}';
    expect(parseJsonWithBigInts(text, kitFallback, true)).toEqual({
      a: [1, -2, 999_999_999_999_999, 9_007_199_254_740_993n, -9_007_199_254_740_993n],
      b: '12345678901234567',
    });
    expect(parseJsonWithBigInts('{"a":[1,2]}', kitFallback, true)).toEqual({ a: [1, 2] });
  });

  it('leaves a string that starts with its mark to kit, never turning it into a number', () => {
    const text = '{"log":"\\u000142","n":1}';
    expect(parseJsonWithBigInts(text, kitFallback)).toEqual({ fallback: { log: '\u000142', n: 1n } });
  });

  it('refuses malformed text like JSON.parse', () => {
    expect(() => parseJsonWithBigInts('{"a":', kitFallback)).toThrow();
    expect(() => parseJsonWithBigInts('{"a":"open', kitFallback)).toThrow();
  });

  it('writes bigints as bare integers', () => {
    const value = { method: 'getBlock', params: [2n ** 64n - 1n, { commitment: 'confirmed', n: 3 }] };
    expect(stringifyJsonWithBigInts(value)).toBe(kitStringify(value));
    expect(stringifyJsonWithBigInts(value)).toBe(
      '{"method":"getBlock","params":[18446744073709551615,{"commitment":"confirmed","n":3}]}',
    );
  });
});
