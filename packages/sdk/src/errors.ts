import type { components } from './openapi.ts';

/** The closed list of error codes the API answers with (its OpenAPI document's `Error` schema). */
export type ApiErrorCode = components['schemas']['Error']['error']['code'];

/**
 * Every code an `SvcError` carries: the API's own, `network_error` when no answer came (connection refused or reset,
 * DNS, timeout), and `unexpected_response` when an answer was not the API's (a proxy's error page, say).
 */
export type SvcErrorCode = ApiErrorCode | 'network_error' | 'unexpected_response';

/** The one error class of the SDK for failed API calls. */
export class SvcError extends Error {
  override readonly name = 'SvcError';
  /** From the closed list: switch on it, never on the message. */
  readonly code: SvcErrorCode;
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The parameter at fault, when the API named one. */
  readonly param: string | undefined;
  /** The request's id (`x-request-id`): quote it when asking the operator about a call. */
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait before trying again (`Retry-After`), when it did. */
  readonly retryAfterSeconds: number | undefined;

  constructor(input: {
    code: SvcErrorCode;
    message: string;
    status: number;
    param?: string | undefined;
    requestId?: string | undefined;
    retryAfterSeconds?: number | undefined;
    cause?: unknown;
  }) {
    super(input.message, input.cause === undefined ? undefined : { cause: input.cause });
    this.code = input.code;
    this.status = input.status;
    this.param = input.param;
    this.requestId = input.requestId;
    this.retryAfterSeconds = input.retryAfterSeconds;
  }
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date), or undefined. */
function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** The SvcError of an answer that is not 2xx, read from the API's error shape when it has one. */
export async function errorFromResponse(response: Response): Promise<SvcError> {
  const text = await response.text().catch(() => '');
  const headerId = response.headers.get('x-request-id') ?? undefined;
  const retryAfter = retryAfterSeconds(response.headers.get('retry-after'));
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = (
    parsed as { error?: { code?: unknown; message?: unknown; param?: unknown; request_id?: unknown } }
  )?.error;
  if (error !== undefined && typeof error.code === 'string' && typeof error.message === 'string') {
    return new SvcError({
      code: error.code as ApiErrorCode,
      message: error.message,
      status: response.status,
      param: typeof error.param === 'string' ? error.param : undefined,
      requestId: typeof error.request_id === 'string' ? error.request_id : headerId,
      retryAfterSeconds: retryAfter,
    });
  }
  return new SvcError({
    code: 'unexpected_response',
    message: `HTTP ${response.status} without the API's error shape: ${text.slice(0, 200)}`,
    status: response.status,
    requestId: headerId,
    retryAfterSeconds: retryAfter,
  });
}
