import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface SvcProcess {
  process: ChildProcess;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Spawns the real program in a role (`svc worker`, `svc api`, …) from the sources, with `env` over this process's
 * environment, and resolves once its standard output has printed `readyLine` (it must log at info for that).
 * With BENCH_PROFILE set, it writes a CPU profile there.
 */
export async function startSvc(
  role: string,
  env: Record<string, string>,
  readyLine: string,
  timeoutMs = 60_000,
): Promise<SvcProcess> {
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, ['--import', 'tsx', ...profile, 'src/main.ts', role], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(
        () => reject(new Error(`svc ${role} did not log "${readyLine}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        if (buffer.includes(readyLine)) {
          clearTimeout(timer);
          buffer = '';
          resolve();
        }
        if (buffer.length > 100_000) buffer = buffer.slice(-1000);
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`svc ${role} exited with ${code}`));
      });
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { process: child, stop };
}
