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
