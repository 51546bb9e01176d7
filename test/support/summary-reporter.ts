import { appendFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/** Where the failures' whole messages go (50 lines of each at most), when set: CI prints them at the end of its log. */
const FAILURE_DETAILS_FILE = 'CI_FAILURE_DETAILS';

/**
 * Ends the run with one plain line `Tests: N passed, N failed[, N skipped]` that CI reads, after a `Failed: …` line
 * for each failed test and each error outside a test: CI's log keeps only its tail, and that tail must say what failed.
 * A failure's first line rarely says why (a timed-out wait's message goes on with what it last saw and the program's
 * log): with CI_FAILURE_DETAILS set, each failure's message and the start of its stack are appended there too.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    const details: string[] = [];
    const fail = (where: string, error: SerializedError | undefined) => {
      failures.push(`${where}: ${firstLine(error)}`);
      details.push(`--- ${where}\n${wholeMessage(error)}\n`);
    };
    for (const module of testModules) {
      const failedBefore = failures.length;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') {
          failed += 1;
          fail(`${module.moduleId} > ${test.fullName}`, result.errors?.[0]);
        } else skipped += 1;
      }
      // A hook that failed (a beforeAll, say) fails its suite while its tests are only skipped: it counts as a failure.
      for (const suite of module.children.allSuites()) {
        const error = suite.errors()[0];
        if (suite.state() !== 'failed' || error === undefined) continue;
        failed += 1;
        fail(`${module.moduleId} > ${suite.fullName}`, error);
      }
      if (module.state() === 'failed' && failures.length === failedBefore) {
        failed += 1;
        fail(module.moduleId, module.errors()[0]);
      }
    }
    for (const error of unhandledErrors) fail('unhandled error', error);
    const relative = (line: string) => line.replaceAll(`${process.cwd()}/`, '');
    const detailsFile = process.env[FAILURE_DETAILS_FILE];
    if (detailsFile && details.length > 0) appendFileSync(detailsFile, relative(details.join('')));
    const failedLines = failures.map((line) => `Failed: ${relative(line)}\n`).join('');
    process.stdout.write(
      `\n${failedLines}Tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}

/** The error's message as its lines, `Name: message` first. */
function messageLines(error: SerializedError | undefined): string[] {
  if (error === undefined) return ['no error recorded'];
  return `${error.name ?? 'Error'}: ${error.message ?? ''}`.split('\n');
}

function firstLine(error: SerializedError | undefined): string {
  return (messageLines(error)[0] ?? '').slice(0, 300);
}

function wholeMessage(error: SerializedError | undefined): string {
  // The test's own frames; vitest's runner below them says nothing about the failure.
  const frames = (error?.stack ?? '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at ') && !/node_modules|<anonymous>/.test(line));
  return [...messageLines(error).slice(0, 50), ...frames.slice(0, 8)].join('\n').slice(0, 8000);
}
