/**
 * Import rules (DESIGN §1: arrows only point down), checked by `npm run lint`.
 *
 * Inside the server, top to bottom:
 *   main.ts, server.ts, cli.ts, cli/     wiring and the command line: may import anything
 *   http/                                routes and middleware
 *   services/                            orchestration: the only place combining store, engines and side effects
 *   sealing/ delivery/ identity/ webhooks/ jobs/   engines and adapters: never each other, never services or http
 *   presenters/ events/                  stored rows → API objects; event emission (webhooks consume it)
 *   context.ts retry.ts leases.ts transport.ts   ports shared by the layers above: the app context type, retry plan, leases, message transport
 *   store/                               persistence
 *   sealing/pki/                         the PKI adapter (its keys behind a storage port): imports only the core
 *   clock.ts ids.ts config.ts errors.ts log.ts metrics.ts secrets.ts masterKey.ts, domain/   the core: pure, imports nothing above it
 */
const SRC = '^server/src/';
const CORE = `${SRC}(clock|ids|config|errors|log|metrics|secrets|masterKey)[.]ts$|${SRC}domain/`;
const PKI = `${SRC}sealing/pki/`;
const STORE = `${SRC}store/`;
const PORTS = `${SRC}(context|retry|leases|transport)[.]ts$`;
const LOW = `${SRC}(presenters|events)/`;
const ENGINES = `${SRC}(sealing|delivery|identity|webhooks|jobs)/`;
const SERVICES = `${SRC}services/`;
const HTTP = `${SRC}http/`;
const TOP = `${SRC}(main|server|cli)[.]ts$|${SRC}cli/`;
const any = (...res) => res.join('|');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment:
        'clock, ids, config, errors, log, metrics, secrets, masterKey and domain/ are the bottom: pure, importing nothing above them.',
      from: { path: CORE },
      to: { path: SRC, pathNot: CORE },
    },
    {
      name: 'pki-imports-only-core',
      severity: 'error',
      comment: 'The PKI adapter (sealing/pki) sits just above the core: the app context names it.',
      from: { path: PKI },
      to: { path: SRC, pathNot: any(CORE, PKI) },
    },
    {
      name: 'store-imports-only-core',
      severity: 'error',
      comment: 'The store knows rows, not engines, services or HTTP.',
      from: { path: STORE },
      to: { path: SRC, pathNot: any(CORE, STORE) },
    },
    {
      name: 'ports-import-only-store-and-core',
      severity: 'error',
      comment: 'context.ts, retry.ts, leases.ts and transport.ts sit below every engine.',
      from: { path: PORTS },
      to: { path: SRC, pathNot: any(CORE, PKI, STORE, PORTS) },
    },
    {
      name: 'presenters-and-events-below-engines',
      severity: 'error',
      comment: 'Presenters and event emission are used by webhooks, services and HTTP, so they import none of them.',
      from: { path: LOW },
      to: { path: SRC, pathNot: any(CORE, PKI, STORE, PORTS, LOW) },
    },
    {
      name: 'engine-imports-no-other-engine',
      severity: 'error',
      comment: 'An engine never imports another engine; what they share sits below them.',
      from: { path: ENGINES },
      to: { path: ENGINES, pathNot: [`${SRC}$1/`, PKI] },
    },
    {
      name: 'engine-imports-no-services-http-or-wiring',
      severity: 'error',
      comment: 'Engines are called by services; they never call up.',
      from: { path: ENGINES },
      to: { path: any(SERVICES, HTTP, TOP) },
    },
    {
      name: 'sealing-is-pure',
      severity: 'error',
      comment: 'sealing/ takes structured input and bytes and returns bytes: no store, no events, no context.',
      from: { path: `${SRC}sealing/` },
      to: { path: any(STORE, PORTS, LOW) },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment: 'Services know no HTTP and no wiring.',
      from: { path: SERVICES },
      to: { path: any(HTTP, TOP) },
    },
    {
      name: 'http-below-wiring',
      severity: 'error',
      from: { path: HTTP },
      to: { path: TOP },
    },
    {
      name: 'shared-stands-alone',
      severity: 'error',
      comment: 'shared/ is browser-safe and used by everyone; it imports no other workspace.',
      from: { path: '^shared/' },
      to: { path: '^(server|agent|signing-page|console)/' },
    },
    {
      name: 'workspaces-import-only-shared',
      severity: 'error',
      comment: 'The server, the signing page, the console and the agent meet only in shared/.',
      from: { path: '^(server|agent|signing-page)/' },
      to: { path: '^(server|agent|signing-page|console)/', pathNot: '^$1/' },
    },
    {
      name: 'console-imports-only-shared-and-the-page-kit',
      severity: 'error',
      comment:
        "The console builds on shared/ and the signing page's safe DOM builder and kit (its package exports them), nothing else of another workspace.",
      from: { path: '^console/' },
      to: { path: '^(server|agent|signing-page)/', pathNot: '^signing-page/src/(dom|kit)[.]ts$' },
    },
    {
      name: 'agent-core-no-electron',
      severity: 'error',
      comment: 'The agent core runs in the CLI too: it never imports electron or the electron shell.',
      from: { path: '^agent/src/core/' },
      to: { path: ['^agent/src/electron/', '(^|/)node_modules/electron/', '^electron$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)dist/', '(^|/)dist-types/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      conditionNames: ['tawqi-source', 'import', 'types', 'default'],
      exportsFields: ['exports'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
