import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goals } from '../lib/goals.ts';
import { freePort, probe } from '../lib/net.ts';
import { defineScenario, type Measurement, measurement } from '../lib/scenario.ts';
import { median, round } from '../lib/stats.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bareScript = fileURLToPath(new URL('../servers/bare-pglite.mjs', import.meta.url));
const TIMEOUT_MS = 120_000;

/**
 * What `npm start` runs (package.json's start script, `node …`), spawned directly: npm's own start-up is not ours.
 * Reading the script keeps the bench measuring exactly what a newcomer starts, whatever that becomes.
 */
function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const words = pkg.scripts?.start?.trim().split(/\s+/) ?? [];
  if (words[0] !== 'node' || words.length < 2) {
    throw new Error(
      `the startup bench spawns "node …" start scripts; package.json has "${pkg.scripts?.start}"`,
    );
  }
  return words.slice(1);
}

interface BundleModule {
  buildBundle(): Promise<{ dir: string; inputs: number }>;
  currentBundle(): { entry: string | null; reason: string | null };
}
const bundleModule = fileURLToPath(new URL('../../../bin/bundle.mjs', import.meta.url));

/** The environment of a newcomer's `npm start`: no database URL, no secrets, nothing of ours set. */
function embeddedDefaultEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(DATABASE_|SVC_|PORT$|HOST$|LOG_LEVEL$|NODE_OPTIONS$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, SVC_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
}

/** Milliseconds from spawning what `npm start` runs to GET /readyz answering 200. */
async function startOurs(dataDir: string): Promise<number> {
  const port = await freePort();
  const began = performance.now();
  // With --profile (BENCH_PROFILE), each start of ours writes a CPU profile of its main thread and its threads.
  const profile = process.env.BENCH_PROFILE
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
    : [];
  const child = spawn(process.execPath, [...profile, ...startCommand()], {
    cwd: root,
    env: embeddedDefaultEnv(dataDir, port),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    while (performance.now() - began < TIMEOUT_MS) {
      if (child.exitCode !== null) throw new Error(`svc exited with ${child.exitCode}:\n${output}`);
      if ((await probe(port, '/readyz', 2000)) === 200) return performance.now() - began;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`svc not ready within ${TIMEOUT_MS} ms:\n${output}`);
  } finally {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(killer);
  }
}

/** Milliseconds from spawning plain Node on bare-pglite.mjs to its `select 1` answering. */
async function startBare(dataDir: string): Promise<number> {
  const began = performance.now();
  const child = spawn(process.execPath, [bareScript, join(dataDir, 'pg')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bare PGlite not ready in time')), TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('ready')) {
        clearTimeout(timer);
        resolve(performance.now() - began);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    void exited.then((code) => {
      clearTimeout(timer);
      if (!output.includes('ready')) reject(new Error(`bare PGlite exited with ${code}:\n${output}`));
    });
  });
  const ms = await ready;
  await exited;
  return ms;
}

/**
 * Start-up to /readyz 200 of the real program on the embedded default (fresh data directory, then a restart on the
 * same one) beside plain Node opening PGlite in a fresh / existing directory and answering `select 1`. Runs
 * alternate which goes first; the figure is the median of each.
 */
export default defineScenario({
  name: 'startup',
  description:
    'Start-up to /readyz 200 on the embedded default vs a bare PGlite start, first start and restart',
  async run({ log, scale }) {
    // As after `npm install`: the production bundle is built and current (each run says if it went stale meanwhile).
    const bundle = (await import(bundleModule)) as BundleModule;
    const built = await bundle.buildBundle();
    log(`startup: \`npm start\` = node ${startCommand().join(' ')}; bundle built (${built.inputs} files)`);
    const mode = () => {
      const { entry, reason } = bundle.currentBundle();
      return entry === null ? `sources via tsx (${reason})` : 'bundle';
    };
    const runs = Math.max(3, Math.round(Number(process.env.BENCH_STARTUP_RUNS ?? 5) * scale));
    const samples = {
      oursFirst: [] as number[],
      bareFirst: [] as number[],
      oursRestart: [] as number[],
      bareRestart: [] as number[],
    };
    for (let run = 1; run <= runs; run++) {
      const oursDir = mkdtempSync(join(tmpdir(), 'svc-bench-start-'));
      const bareDir = mkdtempSync(join(tmpdir(), 'svc-bench-bare-'));
      try {
        const pairs: Array<[() => Promise<number>, number[]]> = [
          [() => startOurs(oursDir), samples.oursFirst],
          [() => startBare(bareDir), samples.bareFirst],
        ];
        const restarts: Array<[() => Promise<number>, number[]]> = [
          [() => startOurs(oursDir), samples.oursRestart],
          [() => startBare(bareDir), samples.bareRestart],
        ];
        if (run % 2 === 0) {
          pairs.reverse();
          restarts.reverse();
        }
        for (const [start, into] of [...pairs, ...restarts]) into.push(await start());
        log(
          `startup run ${run}/${runs} (${mode()}): first ${round(samples.oursFirst.at(-1)!, 0)} vs ${round(samples.bareFirst.at(-1)!, 0)} ms, ` +
            `restart ${round(samples.oursRestart.at(-1)!, 0)} vs ${round(samples.bareRestart.at(-1)!, 0)} ms (ours vs bare)`,
        );
      } finally {
        rmSync(oursDir, { recursive: true, force: true });
        rmSync(bareDir, { recursive: true, force: true });
      }
    }
    const rounded = (values: number[]) => values.map((value) => round(value, 0));
    const results: Measurement[] = [
      measurement({
        name: 'start to /readyz 200, first start (fresh data dir)',
        unit: 'ms',
        ours: round(median(samples.oursFirst), 0),
        baseline: round(median(samples.bareFirst), 0),
        better: 'lower',
        goal: { atMost: goals.firstStart },
        details: {
          runs,
          command: startCommand().join(' '),
          ours_ms: rounded(samples.oursFirst),
          bare_ms: rounded(samples.bareFirst),
        },
      }),
      measurement({
        name: 'start to /readyz 200, restart (existing data dir)',
        unit: 'ms',
        ours: round(median(samples.oursRestart), 0),
        baseline: round(median(samples.bareRestart), 0),
        better: 'lower',
        goal: { atMost: goals.restart },
        details: {
          runs,
          command: startCommand().join(' '),
          ours_ms: rounded(samples.oursRestart),
          bare_ms: rounded(samples.bareRestart),
        },
      }),
    ];
    return results;
  },
});
