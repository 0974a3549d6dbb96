/** Layer rules from shared/DESIGN.md: domains never reach up into transport; the lower layers stay domain-free. */

/**
 * The campaigns area's sub-folders, lowest first. A sub-folder imports only those on a lower
 * line (and the area's top-level files), so no two of them import each other and a change to
 * one can be read without the ones above it. core/ holds what every step of a campaign names:
 * the ledger append, the member lookup, a task's row and conditions, a member's access to a task.
 */
const CAMPAIGN_LAYERS = [
  ['core'],
  ['ledger', 'messages', 'insights', 'rewards'],
  ['tasks'],
  ['membership'],
  ['verification'],
  ['findings'],
  ['boards'],
  ['http'],
  ['console'],
];

const campaignLayerRules = CAMPAIGN_LAYERS.map((level, i) => ({
  name: `campaigns-${level.join('-')}-below`,
  comment: `campaigns/${level.join(', ')} import only the sub-folders on lower lines of CAMPAIGN_LAYERS.`,
  severity: 'error',
  from: { path: `^src/domains/campaigns/(${level.join('|')})/` },
  to: {
    path: `^src/domains/campaigns/(${CAMPAIGN_LAYERS.slice(i).flat().join('|')})/`,
    pathNot: '^src/domains/campaigns/$1/',
  },
}));

module.exports = {
  forbidden: [
    ...campaignLayerRules,
    {
      name: 'domains-not-transport',
      comment:
        'Domain services have no HTTP or MCP in them: they are called by transports, never the reverse.',
      severity: 'error',
      from: { path: '^src/domains/' },
      to: { path: '^src/transport/' },
    },
    {
      name: 'lower-layers-not-domains',
      comment:
        'kernel, storage, net and parsing are domain-free primitives; the framework (area contract, runner, catalogue mechanics) knows no area either: the caller type and the extension keys are its own, filled in by the areas.',
      severity: 'error',
      from: { path: '^src/(kernel|storage|net|parsing|config|framework)/' },
      to: { path: '^src/(domains|transport)/' },
    },
    {
      name: 'web-knows-no-area',
      comment:
        "web/ is the doors' shell (console layout, fields, CSRF, guards; the HTTP error envelope, rate limits, large bodies): every area's pages and routes build on it, so it names no area and no transport.",
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^src/(domains|transport)/' },
    },
    {
      name: 'sandbox-not-domains',
      comment:
        'The sandbox engine is a domain-free layer like parsing: it runs programs and knows no area, so it imports kernel/ only.',
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: '^src/(?!(kernel|sandbox)/)' },
    },
    {
      name: 'kernel-is-leaf',
      comment: 'kernel is the bottom layer: it imports no other part of Cairn.',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: '^src/(?!kernel/)' },
    },
    {
      name: 'areas-through-index',
      comment: 'Areas talk to each other only through index.ts (their public surface), or share plain types.',
      severity: 'error',
      from: { path: '^src/domains/([^/]+)/', pathNot: '/tables\\.ts$' },
      to: {
        path: '^src/domains/[^/]+/',
        pathNot: ['^src/domains/$1/', '^src/domains/[^/]+/(index|types)\\.ts$'],
      },
    },
    {
      name: 'tables-reach-only-tables',
      comment:
        "An area's tables.ts may name another area's tables (foreign keys) and nothing else of it; no other file may import another area's tables.ts at all.",
      severity: 'error',
      from: { path: '^src/domains/([^/]+)/.*tables\\.ts$' },
      to: { path: '^src/domains/', pathNot: ['^src/domains/$1/', '^src/domains/.*/tables\\.ts$'] },
    },
    {
      name: 'sql-stays-in-domains',
      comment:
        'Queries live in the areas (and storage); transports, the CLI and the composition root call operations and services.',
      severity: 'error',
      from: { path: '^src/(transport/|cli/|app\\.ts|main\\.ts|logging\\.ts)' },
      to: { path: 'node_modules/drizzle-orm' },
    },
    {
      name: 'mcp-not-http',
      comment:
        'The MCP transport shares helpers with the HTTP routes through transport/shared, never by importing them.',
      severity: 'error',
      from: { path: '^src/transport/mcp/' },
      to: { path: '^src/transport/(http|console)/' },
    },
    {
      name: 'outside-through-index',
      comment: 'Transports and the composition root reach an area only through its index.ts.',
      severity: 'error',
      from: { path: '^src/(transport/|cli/|app\\.ts|main\\.ts)' },
      to: { path: '^src/domains/[^/]+/', pathNot: '^src/domains/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.test\\.ts$' },
  },
};
