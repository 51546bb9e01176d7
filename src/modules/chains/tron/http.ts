import type { Logger } from 'pino';
import type { NodeEndpoint, NodeHealth } from '../node-failover.ts';
import { closeEndpoints, createNodeFailover, nodeEndpoint, postToNode } from '../node-failover.ts';
import { parseJsonExactIntegers } from './json.ts';

/**
 * java-tron's HTTP API (a full node's `/wallet/*` and `/walletsolidity/*`, or TronGrid's) for one chain and mode:
 * POSTs of JSON bodies over undici, failover over the configured base URLs in order, rounds of retries with
 * exponential backoff, a timeout per request, the `TRON-PRO-API-KEY` header when configured, and a health record for
 * /readyz. Answers are parsed with parseJsonExactIntegers (token amounts can exceed 2^53).
 *
 * Only transport failures move to the next URL and retry: connection refused or reset, timeouts, HTTP statuses other
 * than 200 (TronGrid's 429 rate limit, 5xx of a proxy), and a body that is not JSON. java-tron answers a refused
 * request with HTTP 200 and `{"Error": "…"}`: that is the node's real answer and is thrown at once as a TronApiError.
 */

/** The node answered, refusing the request (`{"Error": …}`). */
export class TronApiError extends Error {
  constructor(
    readonly path: string,
    readonly nodeMessage: string,
  ) {
    super(`${path}: ${nodeMessage}`);
    this.name = 'TronApiError';
  }
}

/** The node could not be asked or did not answer usably. The message never holds an API key or URL path. */
export class TronTransportError extends Error {
  constructor(
    readonly kind: 'connection' | 'timeout' | 'http' | 'malformed',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TronTransportError';
  }
}

export interface TronHttp {
  /**
   * POSTs `body` (JSON) to `path` (e.g. `/wallet/getnowblock`) and returns the parsed answer, its integers exact
   * (parseJsonExactIntegers). `read: 'plain'` parses with JSON.parse instead: for a big answer of which only a few
   * amounts matter (a block), where an integer above 2^53 comes out rounded; `units` refuses such a number
   * (InexactAmountError), and the caller then asks again exactly.
   */
  post<T>(path: string, body?: Record<string, unknown>, read?: 'exact' | 'plain'): Promise<T>;
  health(): NodeHealth;
  close(): Promise<void>;
}

export interface TronHttpOptions {
  urls: string[];
  apiKey?: string | undefined;
  timeoutMs: number;
  /** Rounds over every URL before giving up. */
  retries: number;
  logger: Logger;
  /** Base backoff between rounds (doubles each round). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface Endpoint extends NodeEndpoint {
  /** The base path (a provider's `/…/key` prefix), without its trailing slash. */
  base: string;
}

export function createTronHttp(options: TronHttpOptions): TronHttp {
  if (options.urls.length === 0) throw new Error('tron needs at least one RPC URL');
  const endpoints: Endpoint[] = options.urls.map((url) => {
    const endpoint = nodeEndpoint(url);
    return { ...endpoint, base: endpoint.url.pathname.replace(/\/+$/, '') };
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined) headers['TRON-PRO-API-KEY'] = options.apiKey;
  // Rounds, backoff and logger as configured.
  const failover = createNodeFailover({
    ...options,
    endpoints,
    name: 'Tron',
    isTransportError: (error) => error instanceof TronTransportError,
    unreachable: (reason) => new TronTransportError('connection', reason),
  });

  async function postOnce(endpoint: Endpoint, path: string, body: string, exact: boolean): Promise<unknown> {
    const { status, text } = await postToNode(
      endpoint,
      { path: `${endpoint.base}${path}`, headers, body, timeoutMs: options.timeoutMs },
      (kind, message) => new TronTransportError(kind, message),
    );
    if (status !== 200) {
      throw new TronTransportError(
        'http',
        `HTTP ${status}${status === 429 ? ' (rate limited: set the API key)' : ''}`,
        status,
      );
    }
    try {
      // java-tron answers an empty object for a block or transaction it does not have; an empty body is the same.
      if (text.trim() === '') return {};
      return exact ? parseJsonExactIntegers(text) : JSON.parse(text);
    } catch {
      throw new TronTransportError('malformed', 'an answer that is not JSON', status);
    }
  }

  async function post<T>(
    path: string,
    body: Record<string, unknown> = {},
    read: 'exact' | 'plain' = 'exact',
  ): Promise<T> {
    const sent = JSON.stringify(body);
    const answer = await failover.run({ path }, (endpoint) =>
      postOnce(endpoint, path, sent, read === 'exact'),
    );
    if (answer !== null && typeof answer === 'object' && 'Error' in answer) {
      throw new TronApiError(path, String((answer as { Error: unknown }).Error));
    }
    return answer as T;
  }

  return {
    post,
    health: failover.health,
    close: () => closeEndpoints(endpoints),
  };
}
