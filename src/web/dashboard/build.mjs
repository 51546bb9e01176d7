// Builds the dashboard into src/web/dashboard/dist. `npm install` runs it (postinstall, with --if-possible: a failed
// build then warns instead of failing the install, and /dashboard explains how to build); `npm run build:dashboard`
// runs it strictly.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const lenient = process.argv.includes('--if-possible');

try {
  const started = Date.now();
  const { build } = await import('vite');
  await build({ configFile: join(here, 'vite.config.ts'), logLevel: 'warn' });
  process.stdout.write(`svc dashboard built into ${join(here, 'dist')} in ${Date.now() - started} ms\n`);
} catch (error) {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc dashboard build failed: ${reason}\n`);
  if (lenient) {
    process.stderr.write('The service still runs; /dashboard will say to run `npm run build:dashboard`.\n');
  } else {
    process.exitCode = 1;
  }
}
