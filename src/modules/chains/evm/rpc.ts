import type { Logger } from 'pino';
import { HttpRequestError, http, LimitExceededRpcError, TimeoutError } from 'viem';
import { redactUrl } from '../rpc-url.ts';

/**
 * JSON-RPC to one chain's nodes with viem's HTTP transport (JSON-RPC batching of concurrent calls): failover over the
 * configured URLs in order, rounds of retries with exponential backoff, and a health record that /readyz reports.
 *
 * Only transport failures (connection refused or reset, timeouts, HTTP 5xx/429, "limit exceeded") move to the next
 * URL and retry; an answer that is a JSON-RPC error (method not found, bad params, execution reverted) is the node's
 * real answer and is thrown at once.
 *
 * Why not viem's `fallback` transport: it starts every request at the first URL again (a primary that times out
 * costs its timeout on every call, where this stays on the URL that answers) unless `rank` is on, which pings every
 * URL in the background; and it builds a transport per request. Its retry and shouldThrow rules match ours; if rank
 * is ever wanted, this file is the one to change (adapter tests pin failover and readiness).
 */

interface EvmRpcHealth {
  /** null while the last request succeeded; else why the node is unusable and since when. */
  down: { reason: string; since: Date } | null;
  /** The URL (redacted) answering now. */
  url: string;
}

export interface EvmRpc {
  request<T>(method: string, params?: readonly unknown[]): Promise<T>;
  health(): EvmRpcHealth;
}

type RequestFn = (args: { method: string; params?: readonly unknown[] }) => Promise<unknown>;

export interface EvmRpcOptions {
  urls: string[];
  timeoutMs: number;
  /** Rounds over every URL before giving up. */
  retries: number;
  logger: Logger;
  /** Base backoff between rounds (doubles each round). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

function isTransportFailure(error: unknown): boolean {
  if (error instanceof HttpRequestError || error instanceof TimeoutError) return true;
  if (error instanceof LimitExceededRpcError) return true;
  // viem wraps transport errors; look one level down.
  if (error instanceof Error && error.cause !== undefined && error.cause !== error) {
    const cause = error.cause;
    if (cause instanceof HttpRequestError || cause instanceof TimeoutError) return true;
  }
  return false;
}

function describe(error: unknown): string {
  if (error instanceof HttpRequestError) {
    return error.status === undefined ? `connection failed (${error.details})` : `HTTP ${error.status}`;
  }
  if (error instanceof TimeoutError) return 'timed out';
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name;
  return String(error);
}

export function createEvmRpc(options: EvmRpcOptions): EvmRpc {
  const { urls, logger } = options;
  if (urls.length === 0) throw new Error('An EVM chain needs at least one RPC URL');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const backoffMs = options.backoffMs ?? 250;
  const transports: RequestFn[] = urls.map((url) => {
    const transport = http(url, {
      batch: { batchSize: 500, wait: 0 },
      retryCount: 0,
      timeout: options.timeoutMs,
    })({ retryCount: 0, timeout: options.timeoutMs });
    return transport.request as unknown as RequestFn;
  });
  let current = 0;
  let down: EvmRpcHealth['down'] = null;

  function markUp(): void {
    if (down !== null) {
      logger.info(
        { url: redactUrl(urls[current] ?? ''), downForMs: Date.now() - down.since.getTime() },
        'EVM node reachable again',
      );
      down = null;
    }
  }

  return {
    async request<T>(method: string, params: readonly unknown[] = []): Promise<T> {
      let lastError: unknown;
      for (let round = 0; round < options.retries; round++) {
        for (let tried = 0; tried < transports.length; tried++) {
          const index = current;
          const transport = transports[index];
          if (transport === undefined) break;
          try {
            const result = (await transport({ method, params })) as T;
            markUp();
            return result;
          } catch (error) {
            if (!isTransportFailure(error)) {
              markUp();
              throw error;
            }
            lastError = error;
            const next = (index + 1) % transports.length;
            // While the node is known to be down, one error line was enough: the recovery gets its own line.
            if (down === null)
              logger.warn(
                {
                  method,
                  url: redactUrl(urls[index] ?? ''),
                  error: describe(error),
                  ...(transports.length > 1 ? { next: redactUrl(urls[next] ?? '') } : {}),
                },
                transports.length > 1 ? 'EVM node request failed; failing over' : 'EVM node request failed',
              );
            // Another concurrent request may already have moved on.
            if (current === index) current = next;
          }
        }
        if (round + 1 < options.retries) await sleep(backoffMs * 2 ** round);
      }
      const reason = `node unreachable: ${describe(lastError)} (${urls.map(redactUrl).join(', ')})`;
      if (down === null) {
        down = { reason, since: new Date() };
        logger.error({ method, reason }, 'EVM node down: every RPC URL failed');
      } else {
        down = { reason, since: down.since };
      }
      throw lastError instanceof Error ? lastError : new Error(reason);
    },
    health: () => ({ down, url: redactUrl(urls[current] ?? '') }),
  };
}
