/** Durations written with a unit, as in `250ms`, `1s`, `10m`, `2h`, `1d`. */

const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const durationPattern = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

export class DurationFormatError extends Error {}

/** Parses one duration with its unit into whole milliseconds. */
export function parseDuration(text: string): number {
  const match = durationPattern.exec(text.trim());
  if (match === null) {
    throw new DurationFormatError(`"${text.trim()}" is not a duration such as 250ms, 1s, 1m, 2h or 1d`);
  }
  const [, count = '0', unit = 'ms'] = match;
  const ms = Math.round(Number(count) * unitMs[unit as keyof typeof unitMs]);
  if (!Number.isSafeInteger(ms)) throw new DurationFormatError(`"${text.trim()}" is too long`);
  return ms;
}

/** Parses a comma-separated list of durations (`250ms,1s,1m,2h`). */
export function parseDurationList(text: string): number[] {
  return text.split(',').map(parseDuration);
}

/** Formats milliseconds with the largest unit that divides them (`60000` → `1m`). */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= unitMs[unit] && ms % unitMs[unit] === 0) return `${ms / unitMs[unit]}${unit}`;
  }
  return `${ms}ms`;
}
