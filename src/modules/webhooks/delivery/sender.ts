import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { loadUndici } from '../../../lib/undici.ts';
import { hostOf, type SsrfGuard } from '../ssrf.ts';

/** One signed POST to a merchant's endpoint. */
interface WebhookRequest {
  url: string;
  isTest: boolean;
  /** The endpoint's merchant is one of the instance's operators (whose test endpoints may reach loopback). */
  operator?: boolean;
  headers: Record<string, string>;
  body: string;
}

/** What came of it: success only for a 2xx that arrived within the acknowledgement window. */
export interface WebhookResult {
  ok: boolean;
  statusCode: number | null;
  /** The first 2 KB of the response body (UTF-8), when there was a response from a public address. */
  responseBody: string | null;
  /** Why it failed, when it did without a status to show for it (timeout, reset, refused, blocked, …). */
  error: string | null;
  durationMs: number;
}

/** The outside world the delivery worker talks to; tests may swap it. */
export interface WebhookSender {
  send(input: WebhookRequest): Promise<WebhookResult>;
  close(): Promise<void>;
}

const RESPONSE_CAPTURE_BYTES = 2048;

export interface WebhookSenderOptions {
  guard: SsrfGuard;
  /** The acknowledgement window: a 2xx must arrive within it. */
  timeoutMs: number;
  /** Most connections open to one origin. */
  connectionsPerOrigin: number;
}

/** Postgres text cannot hold NUL; the rest of a body is kept as received. */
function printable(text: string): string {
  return text.replaceAll('\u0000', '\uFFFD');
}

function describe(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no response within ${timeoutMs} ms`;
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  const causeText = cause instanceof Error && cause.message !== error.message ? ` (${cause.message})` : '';
  return `${typeof code === 'string' ? `${code}: ` : ''}${error.message}${causeText}`.slice(
    0,
    RESPONSE_CAPTURE_BYTES,
  );
}

function failure(ok: boolean, statusCode: number): string | null {
  if (ok) return null;
  return statusCode >= 300 && statusCode < 400
    ? `redirect (${statusCode}) not followed`
    : `status ${statusCode}`;
}

/**
 * Sends with undici's `request` on three pooled agents (live, test, operators' test), whose sockets resolve names through the SSRF
 * guard: every address is checked and the socket connects to exactly those addresses. Address literals skip DNS,
 * so they are checked here before the request. Redirects are never followed (undici's `request` does not).
 */
export function createWebhookSender({
  guard,
  timeoutMs,
  connectionsPerOrigin,
}: WebhookSenderOptions): WebhookSender {
  const agentFor = (undici: typeof import('undici'), isTest: boolean, operator: boolean) =>
    new undici.Agent({
      connections: connectionsPerOrigin,
      pipelining: 1,
      keepAliveTimeout: 4000,
      keepAliveMaxTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, lookup: guard.lookupFor(isTest, operator) },
    });
  // Made at the first send (undici loads then, not at start-up).
  let agents: { live: Agent; test: Agent; operator: Agent } | undefined;
  async function dispatch(): Promise<{
    request: typeof import('undici')['request'];
    agents: NonNullable<typeof agents>;
  }> {
    const undici = await loadUndici();
    agents ??= {
      live: agentFor(undici, false, false),
      test: agentFor(undici, true, false),
      operator: agentFor(undici, true, true),
    };
    return { request: undici.request, agents };
  }

  return {
    async send({ url, isTest, operator = false, headers, body }) {
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      try {
        const target = new URL(url);
        const host = hostOf(target);
        if (isIP(host) !== 0) await guard.resolveAllowed(host, isTest, operator);
        const { request, agents: pool } = await dispatch();
        const response = await request(target, {
          method: 'POST',
          headers,
          body,
          dispatcher: !isTest ? pool.live : operator ? pool.operator : pool.test,
          signal: controller.signal,
        });
        const statusCode = response.statusCode;
        const ok = statusCode >= 200 && statusCode < 300;
        const durationMs = elapsed();
        // The verdict is in; the body is kept only as a record, so a slow or endless one is cut off.
        const chunks: Buffer[] = [];
        let size = 0;
        try {
          for await (const chunk of response.body) {
            const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
            chunks.push(buffer);
            size += buffer.length;
            if (size >= RESPONSE_CAPTURE_BYTES) break;
          }
        } catch {
          // A body cut short still leaves what arrived.
        } finally {
          if (!response.body.destroyed) response.body.destroy();
        }
        // A private target (loopback, a trusted network) may be a local service: what it says is not kept or shown.
        // Read all the same, as for any target, so its connection is reused the same way.
        const responseBody = guard.isPrivateHost(host)
          ? null
          : printable(Buffer.concat(chunks).subarray(0, RESPONSE_CAPTURE_BYTES).toString('utf8'));
        return {
          ok,
          statusCode,
          responseBody,
          error: failure(ok, statusCode),
          durationMs,
        };
      } catch (error) {
        return {
          ok: false,
          statusCode: null,
          responseBody: null,
          error: describe(error, timedOut, timeoutMs),
          durationMs: elapsed(),
        };
      } finally {
        clearTimeout(timer);
      }
    },

    async close() {
      if (agents === undefined) return;
      await Promise.all([agents.live.close(), agents.test.close(), agents.operator.close()]);
    },
  };
}
