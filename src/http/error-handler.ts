import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, type ErrorCode } from '../lib/errors.ts';

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

export function installErrorHandling(app: FastifyInstance): void {
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
