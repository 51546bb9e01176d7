import { z } from 'zod';
import { AppError } from '../lib/errors.ts';

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header of a retry-safe creation, described for OpenAPI as `what` says it behaves. */
export function idempotencyHeadersSchema(what: string) {
  return z.object({ 'idempotency-key': z.string().optional().describe(what) });
}

/** The key as sent, checked: 1 to 255 printable ASCII characters (or none). */
export function idempotencyKeyOf(key: string | undefined): string | undefined {
  if (key !== undefined && !idempotencyKeyPattern.test(key)) {
    throw new AppError('parameter_invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      param: 'Idempotency-Key',
    });
  }
  return key;
}
