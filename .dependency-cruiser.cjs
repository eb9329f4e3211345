/**
 * The house rules of DESIGN.md section 3, checked by `npm run lint:deps` and by
 * src/architecture.test.ts (so `npm test` fails on a break). docs/architecture.md,
 * "House rules", explains each rule for a reader.
 *
 * A rule's `pathNot` lists its exceptions: each one is named, says why, and points to
 * the issue item that removes it. Keep that list short; never add to it to silence a
 * new break.
 */

/** The chain libraries: only chains/, keys/ and devnet/ may import them. */
const CHAIN_LIBRARIES = '^(viem|tronweb|litesvm|@solana/|@solana-program/)';

module.exports = {
  forbidden: [
    {
      name: 'no-chain-family-outside-chains',
      comment:
        'Only chains/ (registry.ts builds the families) and devnet/ reach a chain family ' +
        '(chains/<family>/); everything else speaks through the seam, chains/types.ts and ' +
        'chains/registry.ts, so a family slots in without touching modules.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/chains/', '^src/devnet/', '\\.test\\.ts$'],
      },
      to: { path: '^src/chains/[^/]+/' },
    },
    {
      name: 'chain-libraries-only-in-chains-keys-devnet',
      comment:
        'viem, tronweb, litesvm and @solana/* are imported only under chains/, keys/ and ' +
        'devnet/; the rest of the code sees domain terms (strings, bigint base units).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(chains|keys|devnet)/', '\\.test\\.ts$'] },
      to: { path: `node_modules/${CHAIN_LIBRARIES.slice(1)}`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lib-imports-nothing-above',
      comment: 'lib/ is the bottom layer: it imports only lib/ (and packages).',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'config-imports-only-lib',
      comment: 'config/ is parsed once and passed down: it imports only config/ and lib/.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(config|lib)/' },
    },
    {
      name: 'http-not-dashboard',
      comment: 'http/ and dashboard/ are two edges over the same services; neither imports the other.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/dashboard/' },
    },
    {
      name: 'dashboard-not-http',
      comment: 'http/ and dashboard/ are two edges over the same services; neither imports the other.',
      severity: 'error',
      from: { path: '^src/dashboard/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'module-through-service',
      comment: 'A module reaches another module only through its service.ts (or its types.ts), ' + 'never its store, routes or internals.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/(service|types|schemas)\\.ts$'],
      },
    },
    {
      name: 'modules-not-edges',
      comment:
        'Imports point inward: modules never import the edges (http/, dashboard/, roles/, the ' +
        "worker's task list jobs/tasks.ts) or the composition root. They queue jobs through " +
        'jobs/store.ts, built from the catalogue (jobs/catalogue.ts), which import nothing above db/.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(http|dashboard|roles|cli)/|^src/(services|runtime|main|configuration)\\.ts$|^src/jobs/tasks\\.ts$' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles between files, type-only imports included: a circle of types is a ' +
        'circle of meaning (two files that can only be read together); shared types go in a ' +
        'file of their own below both (withdrawals/types.ts, src/outbound-row.ts).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'keys-not-chains',
      comment:
        "keys/ holds curves, the vault and the signer; a family's derivation and address " +
        "format are the family's (chains/<family>/), handed to the signer by the composition " +
        'root. keys/types.ts is the vocabulary both share, re-exported by the seam.',
      severity: 'error',
      from: { path: '^src/keys/' },
      to: { path: '^src/chains/' },
    },
    {
      name: 'events-not-modules',
      comment:
        'events.ts sits below the modules that emit and subscribe: the payloads it names are ' +
        'typed in files below it too (src/outbound-row.ts), never imported from a module.',
      severity: 'error',
      from: { path: '^src/events\\.ts$' },
      to: { path: '^src/modules/' },
    },
    {
      name: 'chains-not-devnet',
      comment:
        'Production code never knows a stand-in (DESIGN section 9): chains/ does not reach ' +
        "devnet/; the stand-ins are listed on devnet/'s side (devnet/stand-ins.ts).",
      severity: 'error',
      from: { path: '^src/chains/' },
      to: { path: '^src/devnet/' },
    },
    {
      name: 'cli-dispatch-stays-light',
      comment:
        'The command line answers `help`, `--help` and a usage error without loading the ' +
        'service: main.ts and the dispatcher (cli/command.ts, cli/commands.ts) import a ' +
        "command's file only when it runs (a dynamic import), never the runtime, the " +
        'configuration, the services, chains, modules, http or db.',
      severity: 'error',
      from: { path: '^src/(main|cli/commands?)\\.ts$' },
      to: {
        path: [
          '^src/(runtime|services|configuration|server)\\.ts$',
          '^src/(chains|modules|http|db|keys|devnet)/',
          '^src/cli/(?!commands?\\.ts$)',
        ],
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
    {
      name: 'no-module-cycles',
      comment:
        'No cycles between module folders either: if two modules need each other, one of ' +
        'them owns the shared rule and the other reaches it through its service.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { path: '^src/modules/[^/]+$', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
