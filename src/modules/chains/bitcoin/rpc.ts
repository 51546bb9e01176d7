import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { NodeEndpoint, NodeHealth } from '../node-failover.ts';
import { closeEndpoints, createNodeFailover, nodeEndpoint, postToNode } from '../node-failover.ts';
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

export interface BitcoinRpc {
  /** A call whose answer is read with JSON.parse: for answers without amounts (heights, hashes, txids). */
  call<T>(method: string, params?: readonly unknown[]): Promise<T>;
  /**
   * A call whose answer keeps every decimal number as its exact text (see json.ts): for blocks, transactions and
   * anything with amounts, read with coinsToBaseUnits.
   */
  callExact<T>(method: string, params?: readonly unknown[]): Promise<T>;
  /**
   * A call whose answer is handed back as its whole text (`{"result":…,"error":null,"id":…}`), for a big answer the
   * caller reads itself (a block: scan.ts). An answer that starts `{"result":{` (the node writes `result` first and
   * null when there is an error) is handed back unparsed: the caller checks the rest (its `error` is null, it is JSON).
   * Any other answer goes through `call`'s checks first (the node's error thrown, warm-up retried, non-JSON refused).
   */
  callText(method: string, params?: readonly unknown[]): Promise<string>;
  health(): NodeHealth;
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

interface Endpoint extends NodeEndpoint {
  path: string;
  /** Basic authorization from the URL; undefined: the cookie file's. */
  authorization: string | undefined;
}

type Answer = { result?: unknown; error?: { code?: unknown; message?: unknown } | null };

/** A JSON-RPC answer's error, or null when it has none. */
function errorOf(answer: Answer): { code: number; message: string } | null {
  if (answer.error === undefined || answer.error === null) return null;
  return {
    code: typeof answer.error.code === 'number' ? answer.error.code : 0,
    message: typeof answer.error.message === 'string' ? answer.error.message : 'unknown error',
  };
}

/** How an answer is read: JSON.parse, with exact decimals (json.ts), or not at all (its text, for callText). */
type Read = 'plain' | 'exact' | 'text';

/** Bitcoin Core's RPC_IN_WARMUP: the node is up but still loading; ask again later, or another node. */
const RPC_IN_WARMUP = -28;

export function createBitcoinRpc(options: BitcoinRpcOptions): BitcoinRpc {
  const { urls } = options;
  if (urls.length === 0) throw new Error('A bitcoin-family chain needs at least one RPC URL');
  const endpoints: Endpoint[] = urls.map((url) => {
    const endpoint = nodeEndpoint(url);
    const parsed = endpoint.url;
    const user = decodeURIComponent(parsed.username);
    const password = decodeURIComponent(parsed.password);
    if (user === '' && options.cookieFile === undefined) {
      throw new Error(`RPC URL "${redactUrl(url)}" has no user:password and no cookie file is configured`);
    }
    return {
      ...endpoint,
      path: `${parsed.pathname}${parsed.search}`,
      authorization:
        user === '' ? undefined : `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    };
  });
  // Rounds, backoff and logger as configured.
  const failover = createNodeFailover({
    ...options,
    endpoints,
    name: 'Bitcoin',
    isTransportError: (error) => error instanceof BitcoinRpcTransportError,
    unreachable: (reason) => new BitcoinRpcTransportError('connection', reason),
  });
  let cookieAuthorization: string | undefined;
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
    const { status, text } = await postToNode(
      endpoint,
      {
        path: endpoint.path,
        headers: { 'content-type': 'application/json', authorization },
        body,
        timeoutMs: options.timeoutMs,
      },
      (kind, message) => new BitcoinRpcTransportError(kind, message),
    );
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

  /** One endpoint's answer: the node's result or its JSON-RPC error; warm-up and malformed answers are transport failures. */
  async function ask(
    endpoint: Endpoint,
    body: string,
    read: Read,
  ): Promise<{ answer: Answer; text: string }> {
    const { status, text } = await post(endpoint, body);
    // A result object, so no error (see callText): the caller reads the text.
    if (read === 'text' && text.startsWith('{"result":{')) return { answer: {}, text };
    let answer: Answer;
    try {
      answer = (read === 'exact' ? parseJsonKeepingDecimals(text) : JSON.parse(text)) as Answer;
    } catch {
      throw new BitcoinRpcTransportError('malformed', `HTTP ${status}: an answer that is not JSON`, status);
    }
    const error = errorOf(answer);
    if (error !== null) {
      if (error.code === RPC_IN_WARMUP)
        throw new BitcoinRpcTransportError('warmup', `node warming up: ${error.message}`);
      return { answer, text };
    }
    if (!('result' in answer)) {
      throw new BitcoinRpcTransportError(
        'malformed',
        `HTTP ${status}: a JSON-RPC answer without result`,
        status,
      );
    }
    return { answer, text };
  }

  async function request<T>(
    method: string,
    params: readonly unknown[],
    read: Read,
  ): Promise<{ result: T; text: string }> {
    nextId += 1;
    const body = JSON.stringify({ jsonrpc: '1.0', id: nextId, method, params });
    const { answer, text } = await failover.run({ method }, (endpoint) => ask(endpoint, body, read));
    const error = errorOf(answer);
    // The node's own answer to this call (unknown block, bad parameter): thrown at once, never retried elsewhere.
    if (error !== null) throw new BitcoinRpcError(method, error.code, error.message);
    return { result: answer.result as T, text };
  }

  return {
    async call<T>(method: string, params: readonly unknown[] = []) {
      return (await request<T>(method, params, 'plain')).result;
    },
    async callExact<T>(method: string, params: readonly unknown[] = []) {
      return (await request<T>(method, params, 'exact')).result;
    },
    async callText(method: string, params: readonly unknown[] = []) {
      return (await request(method, params, 'text')).text;
    },
    health: failover.health,
    close: () => closeEndpoints(endpoints),
  };
}
