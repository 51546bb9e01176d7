import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layout rules of `npm run lint` (.dependency-cruiser.cjs) fail on a violation: each case below is a small tree
 * that breaks one rule, cruised with the project's own configuration. The real tree passing is `npm run lint` itself.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const depcruise = join(root, 'node_modules', '.bin', 'depcruise');
let dir: string;

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(files: Record<string, string>): Violation[] {
  const tree = mkdtempSync(join(dir, 'case-'));
  writeFileSync(
    join(tree, 'package.json'),
    JSON.stringify({ name: 'case', type: 'module', devDependencies: { 'dev-only': '1.0.0' } }),
  );
  writeFileSync(
    join(tree, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        noEmit: true,
      },
    }),
  );
  mkdirSync(join(tree, 'node_modules', 'dev-only'), { recursive: true });
  writeFileSync(
    join(tree, 'node_modules', 'dev-only', 'package.json'),
    JSON.stringify({ name: 'dev-only', version: '1.0.0', main: 'index.js' }),
  );
  writeFileSync(join(tree, 'node_modules', 'dev-only', 'index.js'), 'export default 1;\n');
  // Every case has the program's entry point importing each file, so that nothing is an orphan by accident.
  const all = Object.keys(files);
  files['src/main.ts'] ??= all.map((file) => `import '${file.replace(/^src\//, './')}';`).join('\n');
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    writeFileSync(join(tree, file), `${text}\n`);
  }
  const run = spawnSync(
    depcruise,
    ['src', '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: tree, encoding: 'utf8' },
  );
  const output = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
  return output.summary.violations;
}

function rulesBroken(files: Record<string, string>): string[] {
  return [...new Set(cruise(files).map((violation) => violation.rule.name))].sort();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-lint-rules-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('layout rules (npm run lint)', () => {
  it('pass a tree that keeps them', () => {
    expect(
      rulesBroken({
        'src/lib/money.ts': 'export const cents = 100;',
        'src/db/client.ts': "import { cents } from '../lib/money.ts';\nexport const db = cents;",
        'src/modules/payments/repo.ts': "import { db } from '../../db/client.ts';\nexport const repo = db;",
        'src/modules/payments/service.ts': "import { repo } from './repo.ts';\nexport const service = repo;",
        'src/modules/payments/routes.ts':
          "import { auth } from '../../http/auth.ts';\nimport { service } from './service.ts';\nexport const routes = [auth, service];",
        'src/http/auth.ts': 'export const auth = 1;',
      }),
    ).toEqual([]);
  });

  it('fail on an import cycle', () => {
    expect(
      rulesBroken({
        'src/modules/a/service.ts': "import { b } from '../b/service.ts';\nexport const a = () => b;",
        'src/modules/b/service.ts': "import { a } from '../a/service.ts';\nexport const b = () => a;",
      }),
    ).toContain('no-circular');
  });

  it('fail when a service imports src/http, and when lib or db reach up', () => {
    expect(
      rulesBroken({
        'src/http/auth.ts': 'export const auth = 1;',
        'src/modules/payments/service.ts':
          "import { auth } from '../../http/auth.ts';\nexport const s = auth;",
        'src/lib/ids.ts': "import { s } from '../modules/payments/service.ts';\nexport const id = s;",
        'src/db/client.ts': "import { auth } from '../http/auth.ts';\nexport const db = auth;",
      }),
    ).toEqual(expect.arrayContaining(['services-know-no-http', 'lib-is-a-leaf', 'db-below-modules']));
  });

  it('fail when a chain family is imported other than through the family registry', () => {
    const family = {
      'src/modules/chains/evm/index.ts': 'export const evm = 1;',
      'src/modules/chains/families.ts':
        "import { evm } from './evm/index.ts';\nexport const families = [evm];",
      'src/main.ts': "import './modules/chains/families.ts';",
    };
    expect(rulesBroken(family)).toEqual([]);
    expect(
      rulesBroken({
        ...family,
        'src/program.ts': "import { evm } from './modules/chains/evm/index.ts';\nexport const p = evm;",
        'src/main.ts': "import './modules/chains/families.ts';\nimport './program.ts';",
      }),
    ).toEqual(['chain-family-through-registry']);
    expect(
      rulesBroken({
        ...family,
        'src/modules/chains/tron/index.ts':
          "import { evm } from '../evm/index.ts';\nexport const tron = evm;",
        'src/modules/chains/families.ts':
          "import { evm } from './evm/index.ts';\nimport { tron } from './tron/index.ts';\nexport const families = [evm, tron];",
      }),
    ).toEqual(['families-do-not-share-folders']);
  });

  it("fail when a module reads another module's repo, or code outside a repo touches the schema", () => {
    expect(
      rulesBroken({
        'src/db/schema/index.ts': 'export const payments = 1;',
        'src/modules/payments/repo.ts':
          "import { payments } from '../../db/schema/index.ts';\nexport const repo = payments;",
        'src/modules/chains/watcher.ts':
          "import { repo } from '../payments/repo.ts';\nimport { payments } from '../../db/schema/index.ts';\nexport const w = [repo, payments];",
      }),
    ).toEqual(['modules-keep-their-tables', 'only-repos-touch-the-schema']);
  });

  it('fail when web reaches into a repo or the database, or a file is an orphan', () => {
    expect(
      rulesBroken({
        'src/db/client.ts': 'export const db = 1;',
        'src/web/checkout/routes.ts': "import { db } from '../../db/client.ts';\nexport const r = db;",
        'src/main.ts': "import './web/checkout/routes.ts';",
        'src/lib/unused.ts': 'export const nobody = 1;',
      }),
    ).toEqual(['no-orphans', 'web-reaches-no-repo-or-db']);
  });

  it('fail when a developer command reaches past the public API into the program', () => {
    expect(
      rulesBroken({
        'src/db/client.ts': 'export const db = 1;',
        'src/cli/listen.ts': "import { db } from '../db/client.ts';\nexport const l = db;",
      }),
    ).toEqual(['cli-is-a-client']);
  });

  it('fail when the program needs a devDependency', () => {
    expect(
      rulesBroken({ 'src/lib/x.ts': "import devOnly from 'dev-only';\nexport const x = devOnly;" }),
    ).toEqual(['not-to-dev-dep']);
  });
});
