import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages (svc-sdk) resolve to their TypeScript sources, as in tsconfig.json's customConditions.
  resolve: { conditions: ['svc-source'] },
  ssr: { resolve: { conditions: ['svc-source'], externalConditions: ['svc-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
    // Most of the suite's time is end-to-end files waiting on something other than this CPU (a node's blocks, a
    // payment window running out, a browser): vitest's default of one worker per CPU but one left a 2-CPU machine
    // running them one after another (~17 min a run). Three files at a time there overlap those waits.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
