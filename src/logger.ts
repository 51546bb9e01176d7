import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';

/** Fields of database and HTTP errors that name what went wrong without quoting any value. */
const safeFields = [
  'code',
  'severity',
  'routine',
  'constraint',
  'table',
  'column',
  'schema',
  'statusCode',
] as const;

/** The stack's frames only: its first line repeats the message, which may carry SQL parameters. */
function framesOf(stack: string | undefined): string | undefined {
  return stack
    ?.split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
}

/**
 * An error as it may be logged. Database errors never reach a log with their query text, parameters, message or
 * detail: drizzle's DrizzleQueryError quotes the parameters in its message and keeps them in `params`, and a
 * Postgres error's message and detail quote values (`invalid input syntax for type uuid: "…"`, `Key (email)=(…)`),
 * any of which can be a secret. Their SQLSTATE, constraint, table and the stack frames still say where to look.
 */
function loggableError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error) && (error === null || typeof error !== 'object'))
    return { message: String(error) };
  const fields = error as Record<string, unknown>;
  const type = error instanceof Error ? error.constructor.name : 'Object';
  const isQueryError = 'params' in fields || 'parameters' in fields || 'query' in fields;
  const isDatabaseError = typeof fields.severity === 'string' || typeof fields.routine === 'string';
  const hidden = isQueryError || isDatabaseError;
  const out: Record<string, unknown> = {
    type,
    message: hidden
      ? `${isQueryError ? 'Failed query' : 'Database error'} (query, parameters and values not logged)`
      : typeof fields.message === 'string'
        ? fields.message
        : '',
  };
  for (const key of safeFields) {
    const value = fields[key];
    if (typeof value === 'string' || typeof value === 'number') out[key] = value;
  }
  const stack = typeof fields.stack === 'string' ? fields.stack : undefined;
  const frames = hidden ? framesOf(stack) : stack;
  if (frames) out.stack = frames;
  if (fields.cause !== undefined && depth < 4) out.cause = loggableError(fields.cause, depth + 1);
  return out;
}

/** The program's logger: JSON lines, with credentials and secrets redacted wherever they appear in a log object. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.password', '*.signing_secret'],
      censor: '[redacted]',
    },
    serializers: { err: (error: unknown) => loggableError(error) },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
