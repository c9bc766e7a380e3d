// Import directions (docs/architecture.md, Layers): start → http → operations → redirect →
// clicks / webhooks / jobs → db → domain. A module may import its own folder and the folders
// below it, never one above it or beside it; there are no import cycles; only src/db/ imports a
// database driver or Knex; the command line (src/start/cli.ts, src/start/commands/) reaches the
// use cases through src/operations/, never src/http/. `npm run lint:deps` checks it, and CI runs it.
// src/platform/ (the Node runtime's odds and ends: thread entries and priority, the project's
// folder) imports nothing of the project, and every layer but domain may use it.
const below = {
  domain: [],
  platform: [],
  db: ['domain', 'platform'],
  clicks: ['db', 'domain', 'platform'],
  webhooks: ['db', 'domain', 'platform'],
  jobs: ['db', 'domain', 'platform'],
  redirect: ['clicks', 'webhooks', 'jobs', 'db', 'domain', 'platform', 'config'],
  operations: ['redirect', 'clicks', 'webhooks', 'jobs', 'db', 'domain', 'platform', 'config'],
  http: ['operations', 'redirect', 'clicks', 'webhooks', 'jobs', 'db', 'domain', 'platform', 'config'],
  start: ['http', 'operations', 'redirect', 'clicks', 'webhooks', 'jobs', 'db', 'domain', 'platform', 'config'],
};

const layerRules = Object.entries(below).map(([layer, allowed]) => ({
  name: `${layer}-imports-only-below`,
  comment: `src/${layer}/ may import ${allowed.length ? allowed.map((a) => `src/${a}`).join(', ') : 'nothing else of the project'} besides itself`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: {
    path: '^src/',
    pathNot: [`^src/${layer}/`, ...allowed.map((a) => (a === 'config' ? '^src/config\\.ts$' : `^src/${a}/`))],
  },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No module reaches itself through its imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'cli-not-through-http',
      comment: 'The command line calls the operations (src/operations/), not the HTTP layer: only serve loads it.',
      severity: 'error',
      from: { path: '^src/start/(cli\\.ts$|commands/)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'config-imports-nothing',
      comment: 'src/config.ts reads the environment and imports nothing of the project.',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'drivers-only-in-db',
      comment: 'Only src/db/ imports Knex or a database driver.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/db/' },
      to: { path: 'node_modules/(knex|better-sqlite3|pg|pg-[a-z-]+)/' },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration imports nothing of the project: what it did must not change when the code does.',
      severity: 'error',
      from: { path: '^src/db/migrations/[0-9]' },
      to: { path: '^src/' },
    },
    {
      name: 'nothing-imports-a-migration',
      comment: 'No code takes a constant from a migration (only the migration list loads them).',
      severity: 'error',
      from: { pathNot: '^src/db/migrations/index\\.ts$' },
      to: { path: '^src/db/migrations/[0-9]' },
    },
    // The dashboard (src/web/) is browser code talking to the service only through the dashboard
    // API: it imports src/web/, the contract's generated types and packages, and the service never
    // imports it. Its build files (vite.config.ts, report-size.mjs) run in Node at build time. One
    // exception: src/web/lib/csv.ts passes on the one CSV writer (src/domain/csv.ts, plain
    // functions), so that the files made in the browser neutralise formulas as the export does.
    {
      name: 'web-imports-only-web-and-generated',
      comment: 'src/web/ imports only src/web/, generated/ and packages (node_modules).',
      severity: 'error',
      from: { path: '^src/web/', pathNot: '^src/web/(vite\\.config\\.ts|report-size\\.mjs|lib/csv\\.ts)$' },
      to: { pathNot: ['^src/web/', '^generated/', '(^|/)node_modules/'] },
    },
    {
      name: 'web-csv-imports-only-the-writer',
      comment: 'src/web/lib/csv.ts imports the CSV writer (src/domain/csv.ts) and nothing else of the service.',
      severity: 'error',
      from: { path: '^src/web/lib/csv\\.ts$' },
      to: { pathNot: ['^src/web/', '^generated/', '(^|/)node_modules/', '^src/domain/csv\\.ts$'] },
    },
    {
      name: 'web-screens-not-client',
      comment: 'Screens read and change data through the per-resource modules in src/web/api/, never the fetch client.',
      severity: 'error',
      from: { path: '^src/web/screens/' },
      to: { path: '^src/web/api/client\\.ts$' },
    },
    {
      name: 'nothing-imports-web',
      comment: "Nothing outside src/web/ imports the dashboard's browser code.",
      severity: 'error',
      from: { pathNot: '^src/web/' },
      to: { path: '^src/web/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.mjs', '.js', '.json', '.d.mts', '.d.ts'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default'],
    },
  },
};
