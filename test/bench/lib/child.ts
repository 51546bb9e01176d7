import { type ChildProcess, fork } from 'node:child_process';

/**
 * A TypeScript module run in its own Node process (through tsx), talking over IPC. Servers under load run this way:
 * the load generator (autocannon) then has its own event loop, heap and garbage collector, so the figures measure
 * the server and not the two fighting over one thread; on a machine with two cores each process gets one.
 */
export interface Child<Ready> {
  ready: Ready;
  process: ChildProcess;
  /** CPU time (user + system, µs) the child has used so far; the child must call serveCpuUsage(). */
  cpuMicros(): Promise<number>;
  /** Sends SIGTERM and waits for the exit (SIGKILL after a grace period). */
  stop(): Promise<void>;
  /**
   * Waits for a child that ends by itself (stop() after `timeoutMs`). A child killed by a signal writes no
   * --cpu-prof profile: one that finishes its work and exits is profiled.
   */
  finished(timeoutMs?: number): Promise<void>;
}

export async function startChild<Ready>(
  modulePath: string,
  options: { env?: Record<string, string | undefined>; args?: string[]; timeoutMs?: number } = {},
): Promise<Child<Ready>> {
  const child = fork(modulePath, options.args ?? [], {
    // BENCH_PROFILE=<dir> writes a V8 CPU profile of each child into <dir> (open it in Chrome DevTools).
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
    ],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${modulePath} not ready within ${options.timeoutMs ?? 120_000} ms`)),
      options.timeoutMs ?? 120_000,
    );
    child.on('message', (message: unknown) => {
      const typed = message as { type?: string; ready?: Ready; error?: string };
      if (typed.type === 'ready' && typed.ready !== undefined) {
        clearTimeout(timer);
        resolve(typed.ready);
      } else if (typed.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`${modulePath}: ${typed.error}`));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${modulePath} exited with ${code} before it was ready`));
    });
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    throw error;
  });
  return {
    ready,
    process: child,
    cpuMicros: () =>
      new Promise<number>((resolve, reject) => {
        const onMessage = (message: unknown) => {
          const typed = message as { type?: string; micros?: number };
          if (typed.type !== 'cpu' || typed.micros === undefined) return;
          child.off('message', onMessage);
          resolve(typed.micros);
        };
        child.on('message', onMessage);
        if (!child.send({ type: 'cpu' })) reject(new Error('child is gone'));
      }),
    stop,
    async finished(timeoutMs = 60_000) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), timeoutMs);
      });
      if ((await Promise.race([exited, late])) === 'late') await stop();
      clearTimeout(timer);
    },
  };

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** For the child side: answer the parent's CPU-usage questions (see Child.cpuMicros). */
export function serveCpuUsage(): void {
  process.on('message', (message: unknown) => {
    if ((message as { type?: string }).type !== 'cpu') return;
    const usage = process.cpuUsage();
    process.send?.({ type: 'cpu', micros: usage.user + usage.system });
  });
}

/** For the child side: report readiness (or a failure) to the parent. */
export function reportReady<Ready>(ready: Ready): void {
  process.send?.({ type: 'ready', ready });
}

export function reportError(error: unknown): void {
  process.send?.({
    type: 'error',
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}

/**
 * Asks a child over IPC: sends `command` and waits for its first message of type `answer` (or fails after
 * `timeoutMs`), for children that answer commands (the webhook receiver, the event stream server).
 */
export function ipcAsker<Command extends { type: string }, Message extends { type: string }>(
  child: Child<unknown>,
  name: string,
) {
  return <T extends Message['type']>(
    command: Command,
    answer: T,
    timeoutMs: number,
  ): Promise<Extract<Message, { type: T }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.process.off('message', listener);
        reject(new Error(`the ${name} did not answer ${command.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      const listener = (message: Message) => {
        if (message.type !== answer) return;
        clearTimeout(timer);
        child.process.off('message', listener);
        resolve(message as Extract<Message, { type: T }>);
      };
      child.process.on('message', listener);
      child.process.send(command);
    });
}
