/**
 * The layout's rules (README "How the code is laid out"), checked by `npm run lint`. Layers point down:
 * web → http → modules → db / lib. A chain family is one folder, reached only through the family registry.
 * test/lint-rules.test.ts shows that each rule fails on a violation.
 */

/** Test files and test support may reach anywhere: they check the pieces one by one. */
const tests = '(\\.test\\.ts$|^test/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes load order matter and hides which layer owns what.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'src/lib holds small pure helpers: it depends on nothing of ours outside itself.',
      from: { path: '^src/lib/', pathNot: tests },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'src/db (engine, schema, migrations, notify, leader) knows no module, HTTP or web code.',
      from: { path: '^src/db/', pathNot: tests },
      to: { path: '^src/', pathNot: '^src/(db|lib)/' },
    },
    {
      name: 'services-know-no-http',
      severity: 'error',
      comment:
        "Only a module's routes.ts speaks HTTP; the rules (services, repos, jobs) never import src/http, src/web or the program.",
      from: { path: '^src/modules/', pathNot: `(/routes\\.ts$|${tests})` },
      to: { path: '^src/(http|web)/|^src/(app|program|main|services|workers)\\.ts$' },
    },
    {
      name: 'routes-reach-http-context-only',
      severity: 'error',
      comment: 'Routes use the auth hook and the route context of src/http, never web/ or the program.',
      from: { path: '^src/modules/.+/routes\\.ts$' },
      to: { path: '^src/web/|^src/(app|program|main|workers)\\.ts$' },
    },
    {
      name: 'http-below-web',
      severity: 'error',
      comment: 'The HTTP edge does not depend on the pages built on it.',
      from: { path: '^src/http/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'chain-family-through-registry',
      severity: 'error',
      comment:
        'A chain family (src/modules/chains/<family>/) is reached only through the family registry ' +
        '(chains/families.ts builds the adapters and collects their settings) or from inside itself: adding a family ' +
        'touches its folder and the registry, nothing else.',
      from: {
        path: '^src/',
        pathNot: ['^src/modules/chains/families\\.ts$', '^src/modules/chains/([^/]+)/', tests],
      },
      to: { path: '^src/modules/chains/([^/]+)/' },
    },
    {
      name: 'families-do-not-share-folders',
      severity: 'error',
      comment:
        "One family never imports another family's folder; what they share lives in src/modules/chains/.",
      from: { path: '^src/modules/chains/([^/]+)/' },
      to: { path: '^src/modules/chains/([^/]+)/', pathNot: '^src/modules/chains/$1/' },
    },
    {
      name: 'modules-keep-their-tables',
      severity: 'error',
      comment:
        "A module's repos (repo.ts, *-repo.ts) hold its SQL and are used only inside the module; other modules go " +
        'through its service. src/services.ts wires repos into services.',
      from: { path: '^src/modules/([^/]+)/', pathNot: tests },
      to: {
        path: '^src/modules/([^/]+)/.*repo[.]ts$',
        pathNot: '^src/modules/$1/',
      },
    },
    {
      name: 'only-repos-touch-the-schema',
      severity: 'error',
      comment: 'Tables are read and written in repo files only (and by the db layer itself).',
      from: { path: '^src/', pathNot: ['^src/db/', '(^|/)[^/]*repo\\.ts$', tests] },
      to: { path: '^src/db/schema/' },
    },
    {
      name: 'web-reaches-no-repo-or-db',
      severity: 'error',
      comment: 'Pages use services through the HTTP layer; never a repo or the database.',
      from: { path: '^src/web/', pathNot: tests },
      to: { path: '(^src/db/|repo\\.ts$)' },
    },
    {
      name: 'cli-is-a-client',
      comment:
        'The developer commands (src/cli) are clients of a running svc: they use its public API through the SDK ' +
        '(packages/sdk), never its modules, database or HTTP edge, so they work against any svc, anywhere.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(modules|db|http|web)/|^src/(app|program|services|workers|config)\\.ts$' },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A source file nothing imports is dead (entry points and files loaded by URL are listed).',
      from: {
        orphan: true,
        pathNot: [
          '\\.d\\.ts$',
          tests,
          '^src/main\\.ts$',
          '^src/db/engine-worker\\.mjs$',
          '^src/modules/chains/derivation-worker\\.ts$',
          '^src/web/dashboard/',
          '^src/web/checkout/client/',
          '^src/modules/rates/fixtures/',
        ],
      },
      to: {},
    },
    {
      name: 'not-to-dev-dep',
      severity: 'error',
      comment: 'What the program runs must not need a devDependency.',
      from: { path: '^src/', pathNot: [tests, '^src/web/dashboard/'] },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/web/dashboard/(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.json'],
    },
  },
};
