import { AppError } from '../../lib/errors.ts';
import type { Principal } from './caller.ts';

/**
 * The mode a write acts in. A key's prefix decides it; an explicit `is_test` must agree with the key. A dashboard
 * token has no mode of its own, so the request must say which.
 */
export function modeForWrite(
  principal: Principal,
  requested: boolean | undefined,
  param = 'is_test',
): boolean {
  if (principal.via === 'api_key') {
    if (requested !== undefined && requested !== principal.isTest) {
      throw new AppError(
        'mode_mismatch',
        `is_test is ${requested} but the API key is a ${principal.isTest ? 'test' : 'live'} key.`,
        { param },
      );
    }
    return principal.isTest;
  }
  if (requested === undefined) {
    throw new AppError(
      'parameter_missing',
      `Missing required parameter: ${param} (required with a dashboard token).`,
      {
        param,
      },
    );
  }
  return requested;
}

/** The mode filter for reads: a key sees only its own mode; a dashboard token sees both unless it asks for one. */
export function modeForRead(principal: Principal, requested: boolean | undefined): boolean | undefined {
  if (principal.via === 'api_key') return principal.isTest;
  return requested;
}
