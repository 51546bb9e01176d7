import type { Reporter, SerializedError, TestModule } from 'vitest/node';

/**
 * Ends the run with one plain line `Tests: N passed, N failed[, N skipped]` that CI reads, after a `Failed: …` line
 * for each failed test and each error outside a test: CI's log keeps only its tail, and that tail must say what failed.
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
    for (const module of testModules) {
      const failedBefore = failures.length;
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed += 1;
        else if (result.state === 'failed') {
          failed += 1;
          failures.push(`${module.moduleId} > ${test.fullName}: ${firstLine(result.errors?.[0])}`);
        } else skipped += 1;
      }
      // A hook that failed (a beforeAll, say) fails its suite while its tests are only skipped: it counts as a failure.
      for (const suite of module.children.allSuites()) {
        const error = suite.errors()[0];
        if (suite.state() !== 'failed' || error === undefined) continue;
        failed += 1;
        failures.push(`${module.moduleId} > ${suite.fullName}: ${firstLine(error)}`);
      }
      if (module.state() === 'failed' && failures.length === failedBefore) {
        failed += 1;
        failures.push(`${module.moduleId}: ${firstLine(module.errors()[0])}`);
      }
    }
    for (const error of unhandledErrors) failures.push(`unhandled error: ${firstLine(error)}`);
    const relative = (line: string) => line.replaceAll(`${process.cwd()}/`, '');
    const failedLines = failures.map((line) => `Failed: ${relative(line)}\n`).join('');
    process.stdout.write(
      `\n${failedLines}Tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}

function firstLine(error: SerializedError | undefined): string {
  if (error === undefined) return 'no error recorded';
  const text = `${error.name ?? 'Error'}: ${error.message ?? ''}`;
  return (text.split('\n')[0] ?? text).slice(0, 300);
}
