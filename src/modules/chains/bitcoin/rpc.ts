import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Pool } from 'undici';
import { loadUndici } from '../../../lib/undici.ts';
import { redactUrl } from '../rpc-url.ts';
import { parseJsonKeepingDecimals } from './json.ts';

/**
 * JSON-RPC to the nodes of one Bitcoin-family chain (Bitcoin Core, Litecoin Core and other forks) over undici: failover
 * over the configured URLs in order, rounds of retries with exponential backoff, a timeout per request, and a health
 * record for /readyz. Credentials come from the URL (`http://user:password@host:port`) or from the node's cookie file
 * (`<datadir>/.cookie`, rewritten at each node start: read again after a 401).
 *
 * Only transport failures move to the next URL and retry: connection refused or reset, timeouts, HTTP statuses other
 * than the node's JSON-RPC answers (401/403/5xx without a JSON-RPC body, 503 "work queue depth exceeded"), and the
 * node's RPC_IN_WARMUP (-28, still loading its index). A JSON-RPC error (bad parameters, unknown block, method not
 * found) is the node's real answer and is thrown at once as a BitcoinRpcError.
 */

/** The node answered with a JSON-RPC error: `code` is Bitcoin Core's RPCErrorCode (e.g. -5 not found, -8 bad param). */
export class BitcoinRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly nodeMessage: string,
  ) {
    super(`${method}: ${nodeMessage} (code ${code})`);
    this.name = 'BitcoinRpcError';
  }
}

/** The node could not be asked or did not answer usably; `kind` says how. The message never holds credentials. */
export class BitcoinRpcTransportError extends Error {
  constructor(
    readonly kind: 'connection' | 'timeout' | 'http' | 'auth' | 'warmup' | 'malformed',
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'BitcoinRpcTransportError';
  }
}

interface BitcoinRpcHealth {
  /** null while the last request succeeded; else why the node is unusable and since when. */
  down: { reason: string; since: Date } | null;
  /** The URL (redacted) answering now. */
  url: string;
}

export interface BitcoinRpc {
  /** A call whose answer is read with JSON.parse: for answers without amounts (heights, hashes, txids). */
  call<T>(method: string, params?: readonly unknown[]): Promise<T>;
  /**
   * A call whose answer keeps every decimal number as its exact text (see json.ts): for blocks, transactions and
   * anything with amounts, read with coinsToBaseUnits.
   */
  callExact<T>(method: string, params?: readonly unknown[]): Promise<T>;
  /**
   * A call read with JSON.parse that also hands back the answer's text: for a big answer of which only a few amounts
   * matter (a block), which the caller reads exactly from the text (scan.ts). Its decimal numbers are floats: never
   * read them.
   */
  callWithText<T>(method: string, params?: readonly unknown[]): Promise<{ result: T; text: string }>;
  health(): BitcoinRpcHealth;
  close(): Promise<void>;
}

export interface BitcoinRpcOptions {
  urls: string[];
  /** The node's cookie file, for URLs without user:password. */
  cookieFile?: string;
  timeoutMs: number;
  /** Rounds over every URL before giving up. */
  retries: number;
  logger: Logger;
  /** Base backoff between rounds (doubles each round). */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface Endpoint {
  url: string;
  redacted: string;
  /** Made at the first request (undici loads then). */
  pool: Pool | undefined;
  origin: string;
  path: string;
  /** Basic authorization from the URL; undefined: the cookie file's. */
  authorization: string | undefined;
}

/** Bitcoin Core's RPC_IN_WARMUP: the node is up but still loading; ask again later, or another node. */
const RPC_IN_WARMUP = -28;

export function createBitcoinRpc(options: BitcoinRpcOptions): BitcoinRpc {
  const { urls, logger } = options;
  if (urls.length === 0) throw new Error('A bitcoin-family chain needs at least one RPC URL');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const backoffMs = options.backoffMs ?? 250;
  const endpoints: Endpoint[] = urls.map((url) => {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new Error(`RPC URL "${redactUrl(url)}" is not an http:// or https:// URL`);
    }
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    if (user === '' && options.cookieFile === undefined) {
      throw new Error(`RPC URL "${redactUrl(url)}" has no user:password and no cookie file is configured`);
    }
    return {
      url,
      redacted: redactUrl(url),
      pool: undefined,
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      authorization:
        user === '' ? undefined : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    };
  });
  let cookieAuthorization: string | undefined;
  let current = 0;
  let down: BitcoinRpcHealth['down'] = null;
  let nextId = 0;

  async function readCookie(): Promise<string> {
    if (options.cookieFile === undefined) throw new Error('no cookie file');
    try {
      const cookie = (await readFile(options.cookieFile, 'utf8')).trim();
      return `Basic ${Buffer.from(cookie).toString('base64')}`;
    } catch (error) {
      throw new BitcoinRpcTransportError(
        'auth',
        `cannot read the node's cookie file: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
      );
    }
  }

  /** One POST to one endpoint; returns the raw text of a JSON-RPC answer (result or error) or throws a transport error. */
  async function post(
    endpoint: Endpoint,
    body: string,
    freshCookie = false,
  ): Promise<{ status: number; text: string }> {
    let authorization = endpoint.authorization;
    if (authorization === undefined) {
      if (cookieAuthorization === undefined || freshCookie) cookieAuthorization = await readCookie();
      authorization = cookieAuthorization;
    }
    const undici = await loadUndici();
    endpoint.pool ??= new undici.Pool(endpoint.origin, { connections: 4, pipelining: 1 });
    let status: number;
    let text: string;
    try {
      const response = await endpoint.pool.request({
        path: endpoint.path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
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
        throw new BitcoinRpcTransportError('timeout', `timed out after ${options.timeoutMs} ms`);
      }
      const code = (error as NodeJS.ErrnoException).code;
      throw new BitcoinRpcTransportError(
        'connection',
        `connection failed (${code ?? (error as Error).message})`,
      );
    }
    if (status === 401 || status === 403) {
      // A node restarted since the cookie was read wrote a new one.
      if (endpoint.authorization === undefined && status === 401 && !freshCookie)
        return post(endpoint, body, true);
      throw new BitcoinRpcTransportError('auth', `HTTP ${status} (wrong credentials or rpcallowip)`, status);
    }
    // Bitcoin Core answers JSON-RPC errors with HTTP 500 or 404 and a JSON body; anything else is not an answer.
    if (!text.startsWith('{') && !text.startsWith('[')) {
      throw new BitcoinRpcTransportError(
        'http',
        `HTTP ${status}${text === '' ? '' : `: ${text.slice(0, 100).trim()}`}`,
        status,
      );
    }
    return { status, text };
  }

  function markUp(): void {
    if (down !== null) {
      logger.info(
        { url: endpoints[current]?.redacted, downForMs: Date.now() - down.since.getTime() },
        'Bitcoin node reachable again',
      );
      down = null;
    }
  }

  async function request<T>(
    method: string,
    params: readonly unknown[],
    exact: boolean,
  ): Promise<{ result: T; text: string }> {
    nextId += 1;
    const body = JSON.stringify({ jsonrpc: '1.0', id: nextId, method, params });
    let lastError: BitcoinRpcTransportError | undefined;
    for (let round = 0; round < options.retries; round++) {
      for (let tried = 0; tried < endpoints.length; tried++) {
        const index = current;
        const endpoint = endpoints[index];
        if (endpoint === undefined) break;
        try {
          const { status, text } = await post(endpoint, body);
          let answer: { result?: unknown; error?: { code?: unknown; message?: unknown } | null };
          try {
            answer = (exact ? parseJsonKeepingDecimals(text) : JSON.parse(text)) as typeof answer;
          } catch {
            throw new BitcoinRpcTransportError(
              'malformed',
              `HTTP ${status}: an answer that is not JSON`,
              status,
            );
          }
          if (answer.error !== undefined && answer.error !== null) {
            const code = typeof answer.error.code === 'number' ? answer.error.code : 0;
            const message = typeof answer.error.message === 'string' ? answer.error.message : 'unknown error';
            if (code === RPC_IN_WARMUP)
              throw new BitcoinRpcTransportError('warmup', `node warming up: ${message}`);
            markUp();
            throw new BitcoinRpcError(method, code, message);
          }
          if (!('result' in answer)) {
            throw new BitcoinRpcTransportError(
              'malformed',
              `HTTP ${status}: a JSON-RPC answer without result`,
              status,
            );
          }
          markUp();
          return { result: answer.result as T, text };
        } catch (error) {
          if (!(error instanceof BitcoinRpcTransportError)) throw error;
          lastError = error;
          const next = (index + 1) % endpoints.length;
          // While the node is known to be down, one error line was enough: the recovery gets its own line.
          if (down === null)
            logger.warn(
              {
                method,
                url: endpoint.redacted,
                error: error.message,
                ...(endpoints.length > 1 ? { next: endpoints[next]?.redacted } : {}),
              },
              endpoints.length > 1
                ? 'Bitcoin node request failed; failing over'
                : 'Bitcoin node request failed',
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
      logger.error({ method, reason }, 'Bitcoin node down: every RPC URL failed');
    } else {
      down = { reason, since: down.since };
    }
    throw lastError ?? new BitcoinRpcTransportError('connection', reason);
  }

  return {
    async call<T>(method: string, params: readonly unknown[] = []) {
      return (await request<T>(method, params, false)).result;
    },
    async callExact<T>(method: string, params: readonly unknown[] = []) {
      return (await request<T>(method, params, true)).result;
    },
    callWithText: (method, params = []) => request(method, params, false),
    health: () => ({ down, url: endpoints[current]?.redacted ?? '' }),
    async close() {
      await Promise.all(endpoints.map((endpoint) => endpoint.pool?.close()));
    },
  };
}
