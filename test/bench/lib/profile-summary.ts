import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 CPU profile (`node --cpu-prof`) that a self-time table needs. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  samples: number[];
  timeDeltas: number[];
}

interface SelfTime {
  /** `function file:line`, with node_modules and the working directory cut off the path. */
  frame: string;
  ms: number;
  share: number;
}

function shortUrl(url: string, root: string): string {
  return url
    .replace(/^file:\/\//, '')
    .replace(root, '')
    .replace(/^.*node_modules\//, '~/');
}

/**
 * Where a profile's samples landed, by function (self time, the time a function was on top of the stack), largest
 * first; `(idle)` is time the thread waited, kept so that a reader sees how busy the thread was at all.
 */
function selfTimes(profile: CpuProfile, root: string, top = 25): SelfTime[] {
  const frames = new Map<number, string>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    frames.set(
      node.id,
      url === '' ? functionName : `${functionName || '(anonymous)'} ${shortUrl(url, root)}:${lineNumber + 1}`,
    );
  }
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    all += micros;
    const frame = frames.get(id) ?? '(unknown)';
    totals.set(frame, (totals.get(frame) ?? 0) + micros);
  });
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, micros]) => ({ frame, ms: micros / 1000, share: all === 0 ? 0 : micros / all }));
}

/**
 * Writes `summary.txt` beside the `.cpuprofile` files of `dir` (one process or thread each): their top self times,
 * so a bench run with --profile says where the time went without opening DevTools. Returns the summary's path, or
 * undefined when the directory holds no profile.
 */
export function summarizeProfiles(dir: string, root: string): string | undefined {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  } catch {
    return undefined;
  }
  if (files.length === 0) return undefined;
  const sections = files.sort().map((file) => {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const total = profile.timeDeltas.reduce((sum, micros) => sum + micros, 0) / 1000;
    const rows = selfTimes(profile, root).map(
      (row) =>
        `${row.ms.toFixed(1).padStart(9)} ms ${(row.share * 100).toFixed(1).padStart(5)} %  ${row.frame}`,
    );
    return [`${file}: ${total.toFixed(0)} ms sampled`, ...rows].join('\n');
  });
  const summary = join(dir, 'summary.txt');
  writeFileSync(summary, `${sections.join('\n\n')}\n`);
  return summary;
}
