import type { Dispatcher } from 'undici';
import { loadUndici } from '../../lib/undici.ts';

/** Why a price source gave no usable answer; the service logs it and asks the other sources. */
export class RateSourceError extends Error {
  constructor(
    readonly source: string,
    readonly kind: 'unsupported' | 'http' | 'timeout' | 'network' | 'invalid_response' | 'too_large',
    message: string,
  ) {
    super(`${source}: ${message}`);
    this.name = 'RateSourceError';
  }
}

export interface HttpGetOptions {
  /** Name of the source, for error messages. */
  source: string;
  /** Bound on the whole exchange: connecting, headers and body. */
  timeoutMs: number;
  /** Bound on the body; a bigger answer is cut off and refused. */
  maxBytes?: number;
  headers?: Record<string, string>;
  dispatcher?: Dispatcher;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;
const USER_AGENT = 'svc/0.1 (price feed)';

/** A short, printable excerpt of a body for error messages; HTML error pages are reduced to their text. */
function excerpt(text: string): string {
  const looksLikeHtml = /^\s*<(!doctype|html|head|body)/i.test(text);
  const plain = looksLikeHtml
    ? `HTML page: ${text
        .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
        .replace(/<!--[\s\S]*?-->/g, ' ')
        .replace(/<[^>]*>/g, ' ')}`
    : text;
  const flat = plain.replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? `${flat.slice(0, 240)}…` : flat;
}

/**
 * GETs `url` and returns the body as text when the status is 2xx. Every outcome is bounded: a deadline over the
 * whole exchange, a cap on the body, no redirects followed. Failures are RateSourceErrors.
 */
export async function httpGetText(url: string, options: HttpGetOptions): Promise<string> {
  const { source, timeoutMs, maxBytes = DEFAULT_MAX_BYTES } = options;
  // The client is loaded at the first request; the deadline is the exchange's, not the module's loading (which a
  // busy machine can make longer than a tight deadline).
  const { request } = await loadUndici();
  const signal = AbortSignal.timeout(timeoutMs);
  const fail = (error: unknown): never => {
    if (error instanceof RateSourceError) throw error;
    const code = (error as { code?: unknown } | null)?.code;
    if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      throw new RateSourceError(source, 'timeout', `no answer within ${timeoutMs} ms`);
    }
    const message = error instanceof Error ? error.message : String(error);
    throw new RateSourceError(source, 'network', message);
  };
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': USER_AGENT, ...options.headers },
      signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    });
  } catch (error) {
    return fail(error);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new RateSourceError(source, 'too_large', `answer larger than ${maxBytes} bytes`);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    return fail(error);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (response.statusCode < 200 || response.statusCode > 299) {
    const retryAfter = response.headers['retry-after'];
    throw new RateSourceError(
      source,
      'http',
      `HTTP ${response.statusCode}${typeof retryAfter === 'string' ? ` (retry-after ${retryAfter})` : ''}: ${excerpt(text)}`,
    );
  }
  return text;
}

/** JSON.parse, failing with a RateSourceError that shows what came instead (an HTML page, a truncated body). */
export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RateSourceError(source, 'invalid_response', `answer is not JSON: ${excerpt(text)}`);
  }
}

/**
 * Parses JSON keeping every number as the exact text it was sent as ("67012.35123456789" rather than the nearest
 * double), so prices never pass through a float. Numbers and strings both come out as strings.
 */
export function parseJsonKeepingNumbers(text: string, source: string): unknown {
  parseJson(text, source); // Validates the syntax first, so the rewrite below only ever sees well-formed JSON.
  const rewritten = text.replace(
    /"(?:[^"\\]|\\.)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g,
    (token, number: string | undefined) => (number === undefined ? token : `"${number}"`),
  );
  return parseJson(rewritten, source);
}
