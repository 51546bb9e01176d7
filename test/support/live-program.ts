import { testMnemonic } from './harness.ts';
import { freePort } from './net.ts';
import { type ServedProgram, startServe, stopProgram } from './program.ts';
import { createIsolatedDatabase } from './webhooks.ts';

/** The live mnemonic of the end-to-end tests (a BIP-39 test vector: no real funds). */
export const LIVE_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow';

/** A program started by startIsolatedServe: its base URL, and `stop()` to stop it and drop its database. */
export interface IsolatedProgram {
  program: ServedProgram;
  base: string;
  stop(): Promise<void>;
}

/**
 * The setup every live end-to-end test repeats: a database of its own (when the suite runs on Postgres, with open
 * sign-up), a free port, and `svc serve` with the test mnemonic and LIVE_MNEMONIC, `env` on top. When the program
 * never gets ready its database is dropped before the error is thrown.
 */
export async function startIsolatedServe(options: {
  dataDirPrefix: string;
  env: Record<string, string | undefined>;
  readyTimeoutMs?: number;
}): Promise<IsolatedProgram> {
  const isolated = await createIsolatedDatabase();
  const port = await freePort();
  let program: ServedProgram;
  try {
    program = await startServe({
      port,
      dataDirPrefix: options.dataDirPrefix,
      ...(options.readyTimeoutMs === undefined ? {} : { readyTimeoutMs: options.readyTimeoutMs }),
      env: {
        ...(isolated.url === undefined ? {} : { DATABASE_URL: isolated.url, SVC_SIGNUP: 'open' }),
        SVC_TEST_MNEMONIC: testMnemonic,
        SVC_MNEMONIC: LIVE_MNEMONIC,
        ...options.env,
      },
    });
  } catch (error) {
    await isolated.drop();
    throw error;
  }
  return {
    program,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      await stopProgram(program.process);
      await isolated.drop();
    },
  };
}
