import type { Logger } from 'pino';
import type { Pool } from 'undici';
import { loadUndici } from '../../lib/undici.ts';
import { redactUrl } from './rpc-url.ts';

/**
 * How the HTTP-based node clients (Bitcoin-family JSON-RPC, Tron's HTTP API) reach one of several configured nodes:
 * the same request tried on each URL in order, rounds of that with exponential backoff between them, and a record of
 * the outage for /readyz. Each family keeps what is its own: how a request is made and which failures are transport
 * failures (worth another URL) rather than the node's real answer (thrown at once).
 */

export interface NodeHealth {
  /** null while the last request got an answer; else why every URL failed and since when. */
  down: { reason: string; since: Date } | null;
  /** The URL (redacted) answering now. */
  url: string;
}

/** One configured node URL: checked once, its connection pool made at the first request (undici loads then). */
export interface NodeEndpoint {
  url: URL;
  redacted: string;
  pool: Pool | undefined;
}

export function nodeEndpoint(url: string): NodeEndpoint {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`RPC URL "${redactUrl(url)}" is not an http:// or https:// URL`);
  }
  return { url: parsed, redacted: redactUrl(url), pool: undefined };
}

/**
 * One POST to one node, its whole answer read as text. A request that gets no answer in `timeoutMs` or cannot connect
 * is thrown as the family's transport error (`transportError`), which never holds the URL.
 */
export async function postToNode(
  endpoint: NodeEndpoint,
  request: { path: string; headers: Record<string, string>; body: string; timeoutMs: number },
  transportError: (kind: 'timeout' | 'connection', message: string) => Error,
): Promise<{ status: number; text: string }> {
  const undici = await loadUndici();
  endpoint.pool ??= new undici.Pool(endpoint.url.origin, { connections: 4, pipelining: 1 });
  try {
    const response = await endpoint.pool.request({
      path: request.path,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    return { status: response.statusCode, text: await response.body.text() };
  } catch (error) {
    if (
      (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) ||
      error instanceof undici.errors.HeadersTimeoutError ||
      error instanceof undici.errors.BodyTimeoutError
    ) {
      throw transportError('timeout', `timed out after ${request.timeoutMs} ms`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    throw transportError('connection', `connection failed (${code ?? (error as Error).message})`);
  }
}

export interface NodeFailoverOptions<E extends NodeEndpoint> {
  endpoints: E[];
  /** Rounds over every URL before giving up. */
  retries: number;
  /** Base backoff between rounds (doubles each round). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
  logger: Logger;
  /** The node's kind in log lines: "Tron", "Bitcoin". */
  name: string;
  /** A failure worth trying the next URL for (connection, timeout, an answer that is not the node's); else thrown at once. */
  isTransportError(error: unknown): error is Error;
  /** The error thrown when there was no attempt at all to report (no endpoint). */
  unreachable(reason: string): Error;
}

export interface NodeFailover<E extends NodeEndpoint> {
  /**
   * `attempt` on the current URL, then the next ones on transport failures, for `retries` rounds. A value returned by
   * `attempt` is the node's answer (the node is up again); any other error than a transport failure is thrown as is.
   * `context` goes into the log lines (the path or method asked).
   */
  run<T>(context: Record<string, unknown>, attempt: (endpoint: E) => Promise<T>): Promise<T>;
  /** The node answered (with an error of its own, say), outside `attempt`'s return: it is up. */
  markUp(): void;
  health(): NodeHealth;
}

export function createNodeFailover<E extends NodeEndpoint>(options: NodeFailoverOptions<E>): NodeFailover<E> {
  const { endpoints, logger, name } = options;
  if (endpoints.length === 0) throw new Error(`${name} needs at least one RPC URL`);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const backoffMs = options.backoffMs ?? 250;
  let current = 0;
  let down: NodeHealth['down'] = null;

  function markUp(): void {
    if (down !== null) {
      logger.info(
        { url: endpoints[current]?.redacted, downForMs: Date.now() - down.since.getTime() },
        `${name} node reachable again`,
      );
      down = null;
    }
  }

  async function run<T>(context: Record<string, unknown>, attempt: (endpoint: E) => Promise<T>): Promise<T> {
    let lastError: Error | undefined;
    for (let round = 0; round < options.retries; round++) {
      for (let tried = 0; tried < endpoints.length; tried++) {
        const index = current;
        const endpoint = endpoints[index];
        if (endpoint === undefined) break;
        try {
          const answer = await attempt(endpoint);
          markUp();
          return answer;
        } catch (error) {
          if (!options.isTransportError(error)) throw error;
          lastError = error;
          const next = (index + 1) % endpoints.length;
          // While the node is known to be down, one error line was enough: the recovery gets its own line.
          if (down === null)
            logger.warn(
              {
                ...context,
                url: endpoint.redacted,
                error: error.message,
                ...(endpoints.length > 1 ? { next: endpoints[next]?.redacted } : {}),
              },
              endpoints.length > 1
                ? `${name} node request failed; failing over`
                : `${name} node request failed`,
            );
          // Another concurrent request may already have moved on.
          if (current === index) current = next;
        }
      }
      if (round + 1 < options.retries) await sleep(backoffMs * 2 ** round);
    }
    const reason = `node unreachable: ${lastError?.message ?? 'no attempt'} (${endpoints.map((e) => e.redacted).join(', ')})`;
    if (down === null) {
      down = { reason, since: new Date() };
      logger.error({ ...context, reason }, `${name} node down: every RPC URL failed`);
    } else {
      down = { reason, since: down.since };
    }
    throw lastError ?? options.unreachable(reason);
  }

  return {
    run,
    markUp,
    health: () => ({ down, url: endpoints[current]?.redacted ?? '' }),
  };
}

/** Closes the connection pools of `endpoints` (those that were used). */
export async function closeEndpoints(endpoints: readonly NodeEndpoint[]): Promise<void> {
  await Promise.all(endpoints.map((endpoint) => endpoint.pool?.close()));
}
