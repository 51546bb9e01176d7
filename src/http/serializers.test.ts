import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiledSerializer } from './serializers.ts';

const schema = z.object({
  id: z.string(),
  amount: z.string(),
  tx_hash: z.string().nullable(),
  nested: z.object({ seen: z.number().int(), required: z.number().int() }),
  metadata: z.record(z.string(), z.string()),
  is_test: z.boolean(),
});

describe('compiled response serializer', () => {
  const serialize = compiledSerializer({ schema });
  const body = {
    id: 'p1',
    amount: '0.000000000000000001',
    tx_hash: null,
    nested: { seen: 0, required: 12 },
    metadata: { cart: '42', 'quote"d': 'a\nb' },
    is_test: true,
  };

  it('writes what JSON.stringify writes for a body of the schema', () => {
    expect(serialize(body)).toBe(JSON.stringify(body));
    expect(JSON.parse(serialize({ ...body, tx_hash: '0xabc' }))).toEqual({ ...body, tx_hash: '0xabc' });
  });

  it('never writes a field the schema does not declare', () => {
    const leaked = serialize({ ...body, merchant_secret: 'whsec_x', nested: { ...body.nested, extra: 1 } });
    expect(leaked).not.toContain('whsec_x');
    expect(leaked).not.toContain('extra');
    expect(JSON.parse(leaked)).toEqual(body);
  });
});

describe('compiled response serializer, nullable and union fields', () => {
  const schema = z.object({
    at: z.iso.datetime().nullable(),
    rate: z.object({ value: z.string(), source: z.string() }).nullable(),
    count: z.number().int().nullable(),
    payload: z.union([
      z.object({ event: z.literal('a'), first: z.string(), second: z.string().optional() }),
      z.object({ event: z.literal('b'), n: z.number() }),
    ]),
  });
  const serialize = compiledSerializer({ schema });

  it('writes a nullable field both ways, and keeps only the declared fields of its object', () => {
    const filled = { at: '2026-11-27T04:05:06.007Z', rate: { value: '1.5', source: 'x' }, count: 3 };
    const payload = { event: 'a', first: '1', second: '2' };
    expect(serialize({ ...filled, payload })).toBe(JSON.stringify({ ...filled, payload }));
    const empty = { at: null, rate: null, count: null, payload: { event: 'b', n: 0.1 } };
    expect(serialize(empty)).toBe(JSON.stringify(empty));
    expect(serialize({ ...filled, rate: { ...filled.rate, secret: 's' }, payload })).not.toContain('secret');
  });

  it('writes a union of shapes as the value is, its keys in their order', () => {
    const payload = { event: 'a', first: '1', second: '2' };
    expect(serialize({ at: null, rate: null, count: null, payload })).toContain(
      '"payload":{"event":"a","first":"1","second":"2"}',
    );
  });
});
