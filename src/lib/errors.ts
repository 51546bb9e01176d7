/**
 * The one closed list of API error codes and their HTTP statuses. Every error the API returns carries one of
 * these codes; adding a code is an additive change, renaming one is not.
 */
export const errorStatus = {
  invalid_request: 400,
  invalid_json: 400,
  parameter_invalid: 400,
  parameter_missing: 400,
  parameter_unknown: 400,
  mode_mismatch: 400,
  weak_password: 400,
  unsupported_chain: 400,
  unsupported_asset: 400,
  payout_wallet_missing: 400,
  live_seed_missing: 400,
  chain_unavailable: 400,
  not_test_mode: 400,
  private_target_not_allowed: 400,
  endpoint_limit_reached: 400,
  refunds_unsupported: 400,
  refund_address_invalid: 400,
  refund_too_small: 400,
  refund_exceeds_received: 409,
  invalid_state: 409,
  authentication_required: 401,
  invalid_api_key: 401,
  invalid_token: 401,
  invalid_credentials: 401,
  forbidden: 403,
  reauthentication_required: 403,
  signup_closed: 403,
  invite_invalid: 403,
  reset_token_invalid: 400,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  email_taken: 409,
  idempotency_conflict: 409,
  idempotency_in_progress: 409,
  checkout_already_simulated: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  rate_limited: 429,
  stream_limit_reached: 429,
  internal_error: 500,
  rate_unavailable: 503,
  derivation_mismatch: 503,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { param?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.param = options.param;
    this.headers = options.headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}
