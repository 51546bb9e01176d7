import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger({ logLevel: 'info' }, destination), lines };
}

describe('logger', () => {
  it('never writes the SQL text, parameters or quoted values of a failed query', () => {
    const { logger, lines } = capture();
    const cause = Object.assign(new Error('invalid input syntax for type uuid: "whsec_SECRET"'), {
      code: '22P02',
      severity: 'ERROR',
      routine: 'string_to_uuid',
      detail: 'Key (secret)=(whsec_SECRET) already exists.',
    });
    const error = new DrizzleQueryError('select * from t where id = $1', ['whsec_SECRET'], cause);
    logger.error({ err: error }, 'request failed');
    const line = lines.join('');
    expect(line).not.toContain('SECRET');
    expect(line).not.toContain('select * from');
    const logged = JSON.parse(line).err;
    expect(logged).toMatchObject({
      type: 'DrizzleQueryError',
      cause: { code: '22P02', routine: 'string_to_uuid' },
    });
    expect(logged.stack).toContain('logger.test.ts');
  });

  it('keeps the message and stack of an ordinary error', () => {
    const { logger, lines } = capture();
    logger.error({ err: new TypeError('x is not a function') }, 'boom');
    expect(JSON.parse(lines.join('')).err).toMatchObject({
      type: 'TypeError',
      message: 'x is not a function',
      stack: expect.stringContaining('TypeError: x is not a function'),
    });
  });
});
