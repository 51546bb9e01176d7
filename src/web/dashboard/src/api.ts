/**
 * The dashboard's only way out: JSON requests to the public /v1 API on this origin. The dashboard token is sent as a
 * Bearer token; a test key (for creating test payments) is sent as x-api-key when a call asks for it.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | undefined,
    readonly requestId: string | undefined,
    readonly path: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The network failed before any answer came back (server down, connection lost). */
export class NetworkError extends Error {
  constructor(readonly path: string) {
    super('The request did not reach the service.');
    this.name = 'NetworkError';
  }
}

export type QueryValue = string | number | boolean | undefined | null;

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Send this API key instead of the dashboard token. */
  apiKey?: string;
  headers?: Record<string, string>;
}

let token: string | null = null;
let onSessionEnded: (() => void) | null = null;

export function setToken(value: string | null): void {
  token = value;
}

/** Called once when the API says the dashboard token is no longer valid. */
export function onSessionEnd(handler: (() => void) | null): void {
  onSessionEnded = handler;
}

export function buildUrl(path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    params.set(name, String(value));
  }
  const search = params.toString();
  return `/v1${path}${search === '' ? '' : `?${search}`}`;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export async function api(path: string, options: RequestOptions = {}): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  else if (token !== null) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method: options.method ?? 'GET', headers, credentials: 'omit' };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(buildUrl(path, options.query), init);
  } catch {
    throw new NetworkError(path);
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok) return parsed;

  const error = asRecord(asRecord(parsed)?.error);
  const code = typeof error?.code === 'string' ? error.code : `http_${response.status}`;
  const message =
    typeof error?.message === 'string'
      ? error.message
      : `The service answered with HTTP ${response.status} ${response.statusText}.`.trim();
  const failure = new ApiError(
    response.status,
    code,
    message,
    typeof error?.param === 'string' ? error.param : undefined,
    typeof error?.request_id === 'string'
      ? error.request_id
      : (response.headers.get('x-request-id') ?? undefined),
    path,
  );
  if (options.apiKey === undefined && (code === 'invalid_token' || code === 'authentication_required')) {
    onSessionEnded?.();
  }
  throw failure;
}

/** The dashboard token's header, for a request the page makes itself (a download read as a file). */
export function authorization(): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}
