#!/usr/bin/env node
// `svc <role>` (`npm start` is `svc serve`): runs the production bundle when it was built from the sources as they
// are now, else the sources themselves through tsx, so an edit to src/ takes effect at the next start, bundle or no
// bundle (`npm run build` makes the bundle current again).
import { currentBundle } from './bundle.mjs';

const bundle = currentBundle();
if (bundle.entry !== null) {
  await import(bundle.entry);
} else {
  if (bundle.reason !== 'no bundle built') {
    process.stderr.write(
      `svc: running the sources through tsx (${bundle.reason}); npm run build makes start faster\n`,
    );
  }
  await import('tsx');
  await import('../src/main.ts');
}
