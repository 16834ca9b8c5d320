// The architecture, as a check `npm run lint` runs: no cycles, and every arrow points inward, to the task model.
// Inner to outer: contract (names both sides agree on) and core (the pure task model and its ports); then tools,
// store, executor and the workflow steps' logic (input, progress); then service (the use cases); then the protocol
// adapters (protocol, oauth, prompts) and finally the Lambda entry points (handlers). lib/ (the CDK construct) may
// reach into lambda/ only for contract/; within lib/, the construct (lib/mcp-task-endpoint.ts) composes its rooms, and
// the rooms point inward too, to the props and the parts every function is built from.
/** A folder of lambda/ may import only itself and the folders listed. */
const LAYERS = {
  contract: [],
  core: ['contract'],
  tools: ['core', 'contract'],
  store: ['core', 'contract'],
  executor: ['core', 'contract'],
  outbound: ['core', 'contract'],
  discovery: ['store', 'core', 'contract'],
  service: ['input', 'store', 'executor', 'tools', 'core', 'contract'],
  events: ['outbound', 'store', 'core', 'contract'],
  prompts: ['tools', 'core', 'contract'],
  progress: ['store', 'tools', 'core', 'contract'],
  input: ['store', 'core', 'contract'],
  oauth: ['outbound', 'core', 'contract'],
  protocol: ['service', 'events', 'input', 'prompts', 'tools', 'core', 'contract'],
  'example-tools': ['input', 'progress', 'tools', 'core', 'contract'],
  'conformance-tools': ['example-tools', 'progress', 'prompts', 'tools', 'core', 'contract'],
};

/**
 * A room of lib/ may import only itself and the rooms listed. None may import a file at the top of lib/ (the
 * construct and the package's entry point): the construct composes the rooms, never the reverse.
 */
const LIB_ROOMS = {
  props: [],
  operations: [],
  tables: [],
  handlers: ['operations'],
  steps: ['handlers', 'props'],
  events: ['handlers', 'tables', 'props'],
  schedules: ['handlers', 'operations', 'props'],
  auth: ['handlers', 'tables', 'operations', 'props'],
  api: ['auth', 'handlers', 'props'],
  tools: ['events', 'schedules', 'handlers', 'operations', 'props'],
};

const libRoomRules = Object.entries(LIB_ROOMS).map(([room, allowed]) => ({
  name: `lib-${room}-points-inward`,
  comment: `lib/${room} may import only ${['itself', ...allowed].join(', ')} of lib/.`,
  severity: 'error',
  from: { path: `^lib/${room}/` },
  to: { path: '^lib/', pathNot: [`^lib/${room}/`, ...allowed.map((each) => `^lib/${each}/`)] },
}));

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `lambda-${layer}-points-inward`,
  comment: `lambda/${layer} may import only ${['itself', ...allowed].join(', ')}.`,
  severity: 'error',
  from: { path: `^lambda/${layer}/` },
  to: { path: '^lambda/', pathNot: [`^lambda/${layer}/`, ...allowed.map((each) => `^lambda/${each}/`)] },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle makes two modules one; split out what both need.',
      severity: 'error',
      from: { path: '^(lambda|lib|local|cli|bin|bench|scripts|view)/' },
      to: { circular: true },
    },
    ...layerRules,
    ...libRoomRules,
    {
      name: 'lib-has-only-rooms',
      comment:
        'Of lib/, only the entry point (index.ts) and the construct that composes the rooms (mcp-task-endpoint.ts) ' +
        'sit at the top; every other file is in the room its rule above names.',
      severity: 'error',
      from: { path: '^lib/' },
      to: {
        path: '^lib/',
        pathNot: [`^lib/(${Object.keys(LIB_ROOMS).join('|')})/`, '^lib/(index|mcp-task-endpoint)\\.ts$'],
      },
    },
    {
      name: 'lambda-never-imports-outward',
      comment: 'Runtime code never imports the construct, the local stack, the CLI or the tests.',
      severity: 'error',
      from: { path: '^lambda/' },
      to: { path: '^(lib|local|cli|bin|bench|scripts|test|view)/' },
    },
    {
      name: 'view-imports-only-the-contract',
      comment:
        'The task view runs in a browser: of lambda/ it may import only contract/, and the wire types of protocol/ ' +
        '(type-only, erased from its bundle).',
      severity: 'error',
      from: { path: '^view/' },
      to: { path: '^lambda/', pathNot: '^lambda/contract/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lib-imports-only-the-contract',
      comment: 'The CDK construct ships in the package: of lambda/ it may import only contract/ (see docs/deploy.md).',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^lambda/', pathNot: '^lambda/contract/' },
    },
    {
      name: 'inner-layers-import-no-packages',
      comment: 'contract/ and core/ are pure: no npm package, no AWS, no MCP SDK.',
      severity: 'error',
      from: { path: '^lambda/(contract|core)/' },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg', 'npm-unknown'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|cdk\\.out)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
