import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The real program (`svc serve` from the sources), spawned in its own process group, answering /readyz. */
export interface ServedProgram {
  process: ChildProcess;
  /** The last 16 KB of what it printed (stdout and stderr), for failure messages. */
  output(): string;
}

/**
 * Spawns `svc serve` on 127.0.0.1:`port` with a fresh embedded data directory and fresh secrets, `env` on top, and
 * waits until /readyz answers 200 (throws with the program's output otherwise). The caller stops it by its process
 * group (`process.kill(-pid, …)`), as the live tests and the benches do.
 */
export async function startServe(options: {
  port: number;
  env: Record<string, string | undefined>;
  /** Prefix of the temporary data directory's name. */
  dataDirPrefix: string;
  readyTimeoutMs?: number;
}): Promise<ServedProgram> {
  let output = '';
  const program = spawn('node_modules/.bin/tsx', ['src/main.ts', 'serve'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(options.port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: mkdtempSync(join(tmpdir(), options.dataDirPrefix)),
      SVC_MASTER_KEY: randomBytes(32).toString('base64'),
      SVC_JWT_SECRET: randomBytes(32).toString('hex'),
      ...options.env,
    },
  });
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-16_000);
  };
  program.stdout?.on('data', keep);
  program.stderr?.on('data', keep);
  const served: ServedProgram = { process: program, output: () => output };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${options.port}/readyz`)
      .then((response) => response.status === 200)
      .catch(() => false);
    if (ready) return served;
    if (Date.now() > deadline || program.exitCode !== null) {
      try {
        if (program.pid !== undefined) process.kill(-program.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      throw new Error(`the program never answered /readyz:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
