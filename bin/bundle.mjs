// The production bundle of the server: src/main.ts and the dependencies it loads, built with esbuild into
// dist/server (by `npm install` and `npm run build`). Node then loads a few files instead of tsx resolving and
// transpiling some 1,500 modules at every start (`npm run bench -- startup` measures the difference).
//
// A bundle must never run code older than the sources. The manifest lists every file of ours the build read (src/,
// migrations, bin/) with the size and modification time it had just before it was read, and for the dependencies
// each package's package.json and npm's node_modules/.package-lock.json, which every install that changes a package
// rewrites; the launcher (bin/svc.mjs) runs the bundle only while every one of them still matches, and otherwise
// runs the sources through tsx. One stat per package instead of one per dependency file (1,400 of them) saves some
// 20 ms of every start; a file under node_modules edited by hand needs `npm run build` to be seen.
//
// The bundle runs alone: it needs neither tsx nor src/ at run time. The derivation thread's worker is a second entry
// point, and the files our modules find beside themselves (migrations, the embedded engine's worker, the checkout's
// assets, the built dashboard) are copied into the bundle at the same paths, which is where each bundled module's
// import.meta.url now points. A copy of the program without src/ (bin/, dist/, package.json, node_modules) runs the
// bundle as it is.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const defaultBundleDir = join(root, 'dist', 'server');
const MANIFEST = 'manifest.json';
const ENTRY = 'main.js';
const FORMAT = 1;

/** Files and folders (from the root) that bundled modules read at run time, copied into the bundle as they are. */
const assets = ['drizzle', 'src/db/engine-worker.mjs', 'src/web/checkout/client', 'src/web/dashboard/dist'];

/**
 * Left to Node: packages that read files beside their own code (PGlite's WebAssembly, the API reference page's
 * assets, pino's worker threads), native addons, and what the server never loads at run time.
 */
const external = [
  '@electric-sql/pglite',
  '@node-rs/argon2',
  '@fastify/swagger-ui',
  'pino',
  'pg-native',
  'zeromq',
  'vite',
  'solc',
  'playwright-core',
];

const loaders = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.json': 'json',
};

/**
 * The bundle's entry file when the bundle in `dir` was built from exactly the files now on disk, else null and why.
 * Costs one stat per input (a few milliseconds).
 */
export function currentBundle(dir = defaultBundleDir, from = root) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return { entry: null, reason: 'no bundle built' };
  }
  // Installed without its sources: the bundle is the program, whatever the directory it was built in.
  if (!existsSync(join(from, 'src')) && manifest.format === FORMAT) {
    return { entry: pathToFileURL(join(dir, ENTRY)).href, reason: null };
  }
  if (manifest.format !== FORMAT || manifest.root !== root || !Array.isArray(manifest.inputs)) {
    return { entry: null, reason: 'the bundle was built elsewhere or by another version of the build' };
  }
  for (const [path, size, mtimeMs] of manifest.inputs) {
    let stat;
    try {
      stat = statSync(join(root, path));
    } catch {
      return { entry: null, reason: `${path} is gone since the bundle was built` };
    }
    if (stat.size !== size || stat.mtimeMs !== mtimeMs)
      return { entry: null, reason: `${path} changed since the bundle was built` };
  }
  return { entry: pathToFileURL(join(dir, ENTRY)).href, reason: null };
}

/**
 * The folder of the npm package a file under node_modules belongs to (node_modules/a, node_modules/@s/a, or nested
 * node_modules/a/node_modules/b), or null for a file of ours.
 */
function packageRoot(path) {
  const parts = relative(root, path).split(sep);
  let end = -1;
  for (let i = 0; i < parts.length - 1; i++) {
    if (parts[i] !== 'node_modules') continue;
    end = (parts[i + 1] ?? '').startsWith('@') ? i + 3 : i + 2;
    i = end - 1;
  }
  return end === -1 ? null : join(root, ...parts.slice(0, end));
}

/** Builds the bundle into `dir`, replaced whole: a start meanwhile runs the old bundle, the new one or the sources. */
export async function buildBundle(dir = defaultBundleDir) {
  const { build } = await import('esbuild');
  const inputs = new Map();
  const recordFile = (path) => {
    const key = relative(root, path).split(sep).join('/');
    if (inputs.has(key)) return;
    const stat = statSync(path);
    inputs.set(key, [stat.size, stat.mtimeMs]);
  };
  const record = (path) => {
    const pkg = packageRoot(path);
    if (pkg === null) recordFile(path);
    else recordFile(join(pkg, 'package.json'));
  };
  const staging = `${dir}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  const sourceFiles = {
    name: 'svc-sources',
    setup(esbuild) {
      esbuild.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const loader = loaders[extname(args.path)];
        if (loader === undefined) return undefined;
        // Stat before reading: an edit after this point changes what the manifest says, so the bundle is not used.
        record(args.path);
        let contents = readFileSync(args.path, 'utf8');
        // Our modules find files beside themselves (migrations, checkout assets, the dashboard): in the bundle,
        // import.meta.url is the bundle's, so each module's own is rebuilt from where the bundle sits.
        if (!args.path.includes(`${sep}node_modules${sep}`) && contents.includes('import.meta.url')) {
          const fromBundle = relative(root, args.path).split(sep).join('/');
          contents = contents.replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
          );
        }
        return { contents, loader };
      });
    },
  };
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: {
        main: join(root, 'src', 'main.ts'),
        // Where derivation-thread.ts looks for it (beside itself, as the bundle's import.meta.url makes it).
        'src/modules/chains/derivation-worker': join(
          root,
          'src',
          'modules',
          'chains',
          'derivation-worker.ts',
        ),
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // main.ts starts the database before it imports program.ts: program.ts and what it alone needs go to a chunk
      // of their own, loaded while the database boots.
      splitting: true,
      outdir: staging,
      chunkNames: '[name]-[hash]',
      external,
      sourcemap: 'linked',
      metafile: true,
      plugins: [sourceFiles],
      // Bundled CommonJS packages call require() for Node's own modules.
      banner: {
        js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
    for (const path of Object.keys(result.metafile.inputs)) {
      const key = path.split(sep).join('/');
      if (!inputs.has(key) && !path.includes(':')) record(join(root, path));
    }
    for (const asset of assets) copyAsset(join(root, asset), join(staging, asset), record);
    // The build itself is an input too: other options make another bundle.
    record(fileURLToPath(import.meta.url));
    const npmLock = join(root, 'node_modules', '.package-lock.json');
    if (existsSync(npmLock)) recordFile(npmLock);
    const manifest = {
      format: FORMAT,
      root,
      builtAt: new Date().toISOString(),
      inputs: [...inputs].map(([path, [size, mtimeMs]]) => [path, size, mtimeMs]),
    };
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
    return { dir, inputs: inputs.size };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Copies a file or folder into the bundle, recording each file as an input (a changed asset makes it stale). */
function copyAsset(from, to, record) {
  if (!existsSync(from)) return;
  if (statSync(from).isDirectory()) {
    for (const name of readdirSync(from)) copyAsset(join(from, name), join(to, name), record);
    return;
  }
  record(from);
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
}
