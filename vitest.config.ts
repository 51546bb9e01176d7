import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages (svc-sdk) resolve to their TypeScript sources, as in tsconfig.json's customConditions.
  resolve: { conditions: ['svc-source'] },
  ssr: { resolve: { conditions: ['svc-source'], externalConditions: ['svc-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    globalSetup: ['./test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
