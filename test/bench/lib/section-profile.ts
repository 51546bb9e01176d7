import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * With BENCH_PROFILE set (`npm run bench -- --profile`), a CPU profile of `work` alone, written as
 * `<BENCH_PROFILE>/<name>.<pid>.cpuprofile` beside the whole-process ones: a scenario whose child spends most of its
 * life setting up (100,000 payments inserted before one measured block) gets a profile of what it measures.
 * Without BENCH_PROFILE it only runs `work`.
 */
export async function profileSection<T>(name: string, work: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return work();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `${name}.${process.pid}.cpuprofile`), JSON.stringify(profile));
    return result;
  } finally {
    session.disconnect();
  }
}
