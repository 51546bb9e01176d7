import type { Logger } from 'pino';
import type { Pool } from 'undici';
import { loadUndici } from '../../../lib/undici.ts';
import { redactUrl } from '../rpc-url.ts';
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

interface TronHttpHealth {
  down: { reason: string; since: Date } | null;
  /** The base URL (redacted) answering now. */
  url: string;
}

export interface TronHttp {
  /** POSTs `body` (JSON) to `path` (e.g. `/wallet/getnowblock`) and returns the parsed answer. */
  post<T>(path: string, body?: Record<string, unknown>): Promise<T>;
  health(): TronHttpHealth;
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

interface Endpoint {
  redacted: string;
  origin: string;
  /** The base path (a provider's `/…/key` prefix), without its trailing slash. */
  base: string;
  pool: Pool | undefined;
}

export function createTronHttp(options: TronHttpOptions): TronHttp {
  const { logger } = options;
  if (options.urls.length === 0) throw new Error('tron needs at least one RPC URL');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const backoffMs = options.backoffMs ?? 250;
  const endpoints: Endpoint[] = options.urls.map((url) => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`RPC URL "${redactUrl(url)}" is not an http:// or https:// URL`);
    }
    return {
      redacted: redactUrl(url),
      origin: parsed.origin,
      base: parsed.pathname.replace(/\/+$/, ''),
      pool: undefined,
    };
  });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined) headers['TRON-PRO-API-KEY'] = options.apiKey;
  let current = 0;
  let down: TronHttpHealth['down'] = null;

  async function postOnce(endpoint: Endpoint, path: string, body: string): Promise<unknown> {
    const undici = await loadUndici();
    endpoint.pool ??= new undici.Pool(endpoint.origin, { connections: 4, pipelining: 1 });
    let status: number;
    let text: string;
    try {
      const response = await endpoint.pool.request({
        path: `${endpoint.base}${path}`,
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      if (
        (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
        error instanceof undici.errors.HeadersTimeoutError ||
        error instanceof undici.errors.BodyTimeoutError
      ) {
        throw new TronTransportError('timeout', `timed out after ${options.timeoutMs} ms`);
      }
      const code = (error as NodeJS.ErrnoException).code;
      throw new TronTransportError('connection', `connection failed (${code ?? (error as Error).message})`);
    }
    if (status !== 200) {
      throw new TronTransportError(
        'http',
        `HTTP ${status}${status === 429 ? ' (rate limited: set the API key)' : ''}`,
        status,
      );
    }
    try {
      // java-tron answers an empty object for a block or transaction it does not have; an empty body is the same.
      return text.trim() === '' ? {} : parseJsonExactIntegers(text);
    } catch {
      throw new TronTransportError('malformed', 'an answer that is not JSON', status);
    }
  }

  function markUp(): void {
    if (down !== null) {
      logger.info(
        { url: endpoints[current]?.redacted, downForMs: Date.now() - down.since.getTime() },
        'Tron node reachable again',
      );
      down = null;
    }
  }

  async function post<T>(path: string, body: Record<string, unknown> = {}): Promise<T> {
    const text = JSON.stringify(body);
    let lastError: TronTransportError | undefined;
    for (let round = 0; round < options.retries; round++) {
      for (let tried = 0; tried < endpoints.length; tried++) {
        const index = current;
        const endpoint = endpoints[index];
        if (endpoint === undefined) break;
        try {
          const answer = await postOnce(endpoint, path, text);
          markUp();
          if (answer !== null && typeof answer === 'object' && 'Error' in answer) {
            throw new TronApiError(path, String((answer as { Error: unknown }).Error));
          }
          return answer as T;
        } catch (error) {
          if (!(error instanceof TronTransportError)) throw error;
          lastError = error;
          const next = (index + 1) % endpoints.length;
          if (down === null)
            logger.warn(
              {
                path,
                url: endpoint.redacted,
                error: error.message,
                ...(endpoints.length > 1 ? { next: endpoints[next]?.redacted } : {}),
              },
              endpoints.length > 1 ? 'Tron node request failed; failing over' : 'Tron node request failed',
            );
          if (current === index) current = next;
        }
      }
      if (round + 1 < options.retries) await sleep(backoffMs * 2 ** round);
    }
    const reason = `node unreachable: ${lastError?.message ?? 'no attempt'} (${endpoints.map((e) => e.redacted).join(', ')})`;
    if (down === null) {
      down = { reason, since: new Date() };
      logger.error({ path, reason }, 'Tron node down: every RPC URL failed');
    } else {
      down = { reason, since: down.since };
    }
    throw lastError ?? new TronTransportError('connection', reason);
  }

  return {
    post,
    health: () => ({ down, url: endpoints[current]?.redacted ?? '' }),
    async close() {
      await Promise.all(endpoints.map((endpoint) => endpoint.pool?.close()));
    },
  };
}
