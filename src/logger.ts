import { type DestinationStream, type Logger, pino } from 'pino';
import type { Config } from './config.ts';

/** The program's logger: JSON lines, with credentials and secrets redacted wherever they appear in a log object. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options = {
    level: config.logLevel,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', '*.password', '*.signing_secret'],
      censor: '[redacted]',
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
