// `npm run build`: the production bundle of the server (see bundle.mjs). `npm install` runs it with --if-possible:
// a failed build then warns instead of failing the install, and `npm start` runs the sources through tsx.
import { relative } from 'node:path';
import { buildBundle, root } from './bundle.mjs';

const lenient = process.argv.includes('--if-possible');
try {
  const started = Date.now();
  const { dir, inputs } = await buildBundle();
  process.stdout.write(
    `svc server bundled into ${relative(root, dir)} (${inputs} files) in ${Date.now() - started} ms\n`,
  );
} catch (error) {
  process.stderr.write(
    `svc server bundle failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  if (lenient)
    process.stderr.write('The service still runs: `npm start` then runs the sources through tsx.\n');
  else process.exitCode = 1;
}
