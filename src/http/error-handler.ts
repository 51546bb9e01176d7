import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode, errorStatus } from '../lib/errors.ts';
import { randomToken } from '../lib/ids.ts';
import { apiCsp } from './security-headers.ts';

interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string; request_id: string };
}

function sendError(reply: FastifyReply, request: FastifyRequest, error: AppError): FastifyReply {
  const body: ErrorBody = {
    error: {
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: request.id,
    },
  };
  if (error.headers) reply.headers(error.headers);
  return reply.status(error.status).type('application/json; charset=utf-8').send(body);
}

/** The value at a dotted path of the request part that failed, to tell a missing parameter from a wrong one. */
function valueAt(input: unknown, path: string): unknown {
  let value = input;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Turns the first failed check of a request into one API error that names the parameter. */
function validationToAppError(error: FastifyError, input: unknown): AppError {
  const first = error.validation?.[0];
  const context = error.validationContext ?? 'body';
  const params = (first?.params ?? {}) as { keys?: unknown };
  const path = (first?.instancePath ?? '').split('/').filter(Boolean).join('.');
  const message = first?.message ?? error.message;
  if (
    first?.keyword === 'unrecognized_keys' &&
    Array.isArray(params.keys) &&
    typeof params.keys[0] === 'string'
  ) {
    const param = [path, params.keys[0]].filter(Boolean).join('.');
    return new AppError('parameter_unknown', `Unknown parameter: ${param}.`, { param });
  }
  const param = path || (context === 'body' ? undefined : context);
  if (param === undefined) {
    return new AppError('invalid_request', `The request ${context} is invalid: ${message}.`);
  }
  if (valueAt(input, path) === undefined) {
    return new AppError('parameter_missing', `Missing required parameter: ${param}.`, { param });
  }
  return new AppError('parameter_invalid', `Invalid ${param}: ${message}.`, { param });
}

/** Maps Fastify's own errors to the closed list; anything unexpected becomes a 500 without details. */
function toAppError(error: FastifyError | Error, request?: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError) || fastifyError.validation) {
    const context = fastifyError.validationContext ?? 'body';
    const input =
      context === 'body'
        ? request?.body
        : context === 'querystring'
          ? request?.query
          : context === 'params'
            ? request?.params
            : request?.headers;
    return validationToAppError(fastifyError, input);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than 64 KB.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('unsupported_media_type', 'Send the request body as application/json.');
    default:
      break;
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  const status = fastifyError.statusCode;
  if (status === 429) return new AppError('rate_limited', 'Too many requests.');
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (status === 415)
    return new AppError('unsupported_media_type', 'Send the request body as application/json.');
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('invalid_request', 'The request could not be understood.');
  }
  return new AppError(
    'internal_error',
    'Something went wrong on our side. The request id identifies it in our logs.',
  );
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the NUL character is the point
const unstorable = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The first string in a parsed request part (or a key of it) that holds a NUL character or an unpaired surrogate, as
 * the path of keys that names it (empty: the part itself). Postgres refuses both in text (a NUL is not storable, a
 * lone surrogate is no UTF-8), so they are refused here, once for every route, before any handler or query sees them.
 * It runs on every request: nothing is built unless something is found.
 */
function unstorablePath(value: unknown, depth = 0): string[] | null {
  if (typeof value === 'string') return unstorable.test(value) ? [] : null;
  if (value === null || typeof value !== 'object' || depth > 64) return null;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the name is echoed back without what made it bad
    if (unstorable.test(key)) return [key.replace(/[\u0000\ud800-\udfff]/g, '\ufffd')];
    const found = unstorablePath(record[key], depth + 1);
    if (found !== null) {
      found.unshift(key);
      return found;
    }
  }
  return null;
}

const contextNames = { body: 'body', query: 'querystring', params: 'params' } as const;

/** Answers a request that Fastify's router refuses before any route or hook runs: bad percent-encoding, long params. */
export function frameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (!requestIdPattern.test(request.id)) request.id = `req_${randomToken(20)}`;
  // No hook runs for these requests, so neither does the security-headers hook: the headers an error answer needs are set here.
  reply
    .header('x-request-id', request.id)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', apiCsp);
  const appError =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new AppError('uri_too_long', 'A path segment of the URL is longer than 200 characters.')
      : error.code === 'FST_ERR_BAD_URL'
        ? new AppError('invalid_request', 'The URL is not valid: it has a malformed percent-encoding.')
        : new AppError('invalid_request', 'The request could not be understood.');
  return sendError(reply, request, appError);
}

/**
 * Answers what node's HTTP parser refuses before Fastify sees a request (a malformed request line or header, headers
 * over node's maxHeaderSize, a timeout) in the one error shape, straight on the socket, then closes it.
 */
export function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['headers_too_large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request took too long to arrive.']
        : error.code === 'HPE_URI_TOO_LONG'
          ? ['uri_too_long', 'The URL is too long.']
          : ['invalid_request', 'The request is not valid HTTP.'];
  const status = errorStatus[code];
  const requestId = `req_${randomToken(20)}`;
  const body = JSON.stringify({ error: { code, message, request_id: requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Security-Policy: ${apiCsp}\r\n` +
      `x-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export const requestIdPattern = /^[A-Za-z0-9_.:-]{8,128}$/;

export function installErrorHandling(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    for (const part of ['params', 'query', 'body'] as const) {
      const path = unstorablePath(request[part]);
      if (path === null) continue;
      const name = path.length === 0 ? contextNames[part] : path.join('.');
      throw new AppError(
        'parameter_invalid',
        `Invalid ${name}: text must not contain NUL characters or unpaired UTF-16 surrogates.`,
        { param: name },
      );
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request);
    if (appError.status >= 500) {
      request.log.error({ err: error, code: appError.code }, 'request failed');
    } else if (!(error instanceof AppError)) {
      request.log.info({ code: appError.code, reason: error.message }, 'request rejected');
    }
    return sendError(reply, request, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      request,
      new AppError('route_not_found', `No route for ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );
}
