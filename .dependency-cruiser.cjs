/** Layer rules from shared/DESIGN.md: domains never reach up into transport; the lower layers stay domain-free. */
module.exports = {
  forbidden: [
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
      comment: 'kernel, storage, net and parsing are domain-free primitives.',
      severity: 'error',
      from: { path: '^src/(kernel|storage|net|parsing|config)/' },
      to: { path: '^src/(domains|transport)/' },
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
      from: { path: '^src/domains/([^/]+)/' },
      to: {
        path: '^src/domains/[^/]+/',
        pathNot: ['^src/domains/$1/', '^src/domains/[^/]+/(index|types)\\.ts$'],
      },
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
