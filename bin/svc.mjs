#!/usr/bin/env node
// `svc <role>` (`npm start` is `svc serve`): runs the production bundle when it was built from the sources as they
// are now, else the sources themselves through tsx, so an edit to src/ takes effect at the next start, bundle or no
// bundle (`npm run build` makes the bundle current again).
import module from 'node:module';
import { currentBundle } from './bundle.mjs';

// Node 22.1 and later keep the code they compiled for each module on disk (in the OS's temp directory, checked
// against each file's contents) and reuse it at the next start: a restart then skips most of compiling the bundle,
// some 10-25 % of its time here. Node 20 has no such cache; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();

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
