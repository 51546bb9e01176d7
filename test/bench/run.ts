/**
 * `npm run bench [-- <scenario> ...] [--strict]`: runs every scenario in test/bench/scenarios (or the named ones),
 * prints a table to stdout and writes test-results/bench.json. Every figure is a ratio against a bare baseline
 * measured in the same run; see lib/scenario.ts. Progress goes to stderr. With --strict a missed goal exits 1.
 * BENCH_SCALE (default 1) scales durations and repetitions, e.g. 0.3 for a quick look.
 * With --profile, the processes a scenario spawns write V8 CPU profiles into test-results/profiles/<scenario>/ (or
 * BENCH_PROFILE/<scenario>), each directory with a summary.txt of the top self times (open a .cpuprofile in Chrome
 * DevTools for the rest). Profiling slows what it profiles: quote the figures of a run without it.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { summarizeProfiles } from './lib/profile-summary.ts';
import type { Measurement, Scenario } from './lib/scenario.ts';

interface ScenarioReport {
  name: string;
  description: string;
  seconds: number;
  measurements: Measurement[];
  error?: string;
}

const scenariosDir = fileURLToPath(new URL('./scenarios', import.meta.url));
const resultsFile = fileURLToPath(new URL('../../test-results/bench.json', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

async function loadScenarios(): Promise<Scenario[]> {
  const files = readdirSync(scenariosDir)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort();
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(scenariosDir, file)).href)) as { default?: Scenario };
    if (module.default === undefined)
      throw new Error(`${file} has no default export (defineScenario({...}))`);
    if (module.default.name !== basename(file, '.ts'))
      throw new Error(`${file} exports scenario "${module.default.name}"; name it after its file`);
    scenarios.push(module.default);
  }
  return scenarios;
}

function formatNumber(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  if (unit === 'req/s') return `${Math.round(value).toLocaleString('en-US')} req/s`;
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${unit}`;
}

function formatGoal(m: Measurement): string {
  if (m.goal === undefined) return '';
  const parts = [];
  if (m.goal.atLeast !== undefined) parts.push(`>= ${m.goal.atLeast}`);
  if (m.goal.atMost !== undefined) parts.push(`<= ${m.goal.atMost}`);
  return parts.join(' and ');
}

function table(reports: ScenarioReport[]): string {
  const header = ['scenario', 'measurement', 'ours', 'bare baseline', 'ratio ours/bare', 'goal', 'verdict'];
  const rows: string[][] = [];
  for (const report of reports) {
    if (report.error !== undefined) {
      rows.push([report.name, `FAILED: ${report.error.split('\n')[0]}`, '', '', '', '', 'ERROR']);
      continue;
    }
    for (const m of report.measurements) {
      rows.push([
        report.name,
        m.name,
        formatNumber(m.ours, m.unit),
        formatNumber(m.baseline, m.unit),
        Number.isFinite(m.ratio) ? m.ratio.toFixed(2) : 'n/a',
        formatGoal(m),
        m.met === undefined ? '' : m.met ? 'met' : 'MISSED',
      ]);
    }
  }
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const strict = argv.includes('--strict');
  const profileRoot = argv.includes('--profile')
    ? (process.env.BENCH_PROFILE ?? join(root, 'test-results', 'profiles'))
    : undefined;
  const names = argv.filter((arg) => !arg.startsWith('--'));
  const all = await loadScenarios();
  if (argv.includes('--list')) {
    for (const scenario of all) process.stdout.write(`${scenario.name.padEnd(20)} ${scenario.description}\n`);
    return 0;
  }
  const unknown = names.filter((name) => !all.some((scenario) => scenario.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `Unknown scenario ${unknown.join(', ')}; known: ${all.map((scenario) => scenario.name).join(', ')}\n`,
    );
    return 2;
  }
  const selected = names.length === 0 ? all : all.filter((scenario) => names.includes(scenario.name));
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  if (!(scale > 0)) throw new Error('BENCH_SCALE must be a positive number');
  const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
  const startedAt = new Date();
  const loadBefore = loadavg();
  const reports: ScenarioReport[] = [];
  for (const scenario of selected) {
    log(`${scenario.name}: ${scenario.description}`);
    if (profileRoot !== undefined) {
      // Scenarios pass BENCH_PROFILE to the processes they spawn as --cpu-prof-dir (lib/child.ts).
      const dir = join(profileRoot, scenario.name);
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      process.env.BENCH_PROFILE = dir;
    }
    const began = performance.now();
    try {
      const measurements = await scenario.run({ log, scale });
      reports.push({
        name: scenario.name,
        description: scenario.description,
        seconds: Math.round((performance.now() - began) / 100) / 10,
        measurements,
      });
    } catch (error) {
      log(
        `${scenario.name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
      reports.push({
        name: scenario.name,
        description: scenario.description,
        seconds: Math.round((performance.now() - began) / 100) / 10,
        measurements: [],
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  if (profileRoot !== undefined) {
    for (const report of reports) {
      const summary = summarizeProfiles(join(profileRoot, report.name), root);
      log(
        summary === undefined
          ? `${report.name}: no process of this scenario was profiled`
          : `${report.name}: CPU profiles summarized in ${summary}`,
      );
    }
  }

  process.stdout.write(`\n${table(reports)}\n`);
  process.stdout.write(
    `\nratio = ours / bare baseline, measured side by side in this run. Machine: ${cpus().length} CPUs, ` +
      `load average ${loadBefore[0]!.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end.\n`,
  );
  mkdirSync(join(resultsFile, '..'), { recursive: true });
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        started_at: startedAt.toISOString(),
        finished_at: new Date().toISOString(),
        command: ['npm run bench --', ...argv].join(' '),
        node: process.version,
        machine: {
          cpus: cpus().length,
          model: cpus()[0]?.model,
          loadavg_start: loadBefore,
          loadavg_end: loadavg(),
        },
        scale,
        scenarios: reports,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`Written to ${resultsFile}\n`);
  const errored = reports.some((report) => report.error !== undefined);
  const missed = reports.some((report) => report.measurements.some((m) => m.met === false));
  return errored ? 1 : strict && missed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
