import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix } from 'node:path'
import { buildSync } from 'esbuild'
import t from 'tap'
import ts from 'typescript'

/*
 * What each subpath of the package loads at run time, walked by esbuild from the entry the
 * exports map names (type-only imports are erased, as at run time). A runtime subpath reaches
 * its own directory and the core plugin's modules only (the engine: the engine's only), never
 * the PayPal simulator or another plugin or gateway; optional peers are reached only by the
 * subpath that needs them.
 */
const root = join(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  peerDependenciesMeta: Record<string, { optional?: boolean }>
}

/** Subpaths for development and CI, never loaded by the runtime ones. */
const TOOLING_SUBPATHS = ['./paypal-simulator', './stripe-simulator', './package.json']
const SIMULATOR_DIR = 'simulators/paypal/'
/** The simulator's shared machinery, and the two APIs beside each other on it. */
const SIMULATOR_RUNTIME_DIR = `${SIMULATOR_DIR}runtime/`
const SIMULATOR_APIS = [`${SIMULATOR_DIR}payments-v1/`, `${SIMULATOR_DIR}orders-v2/`, `${SIMULATOR_DIR}disputes/`]
/** The layer the PayPal gateways share (REST client, options, webhook verification): below them, never a subpath of its own. */
const PAYPAL_SHARED_DIR = 'gateways/paypal-shared/'
const PAYPAL_GATEWAYS = ['./gateways/paypal-rest', './gateways/paypal-checkout']
/** Which subpath may load each optional peer. */
const OPTIONAL_PEER_OWNERS: Record<string, string> = {
  ioredis: './redis',
  mercurius: './graphql',
  graphql: './graphql',
  '@escape.tech/graphql-armor-cost-limit': './graphql',
  '@escape.tech/graphql-armor-max-aliases': './graphql',
  '@escape.tech/graphql-armor-max-directives': './graphql',
  pg: './postgres',
  stripe: './gateways/stripe'
}
/** What makes a module a Fastify plugin (@fastify/error is a standalone error helper). */
const FASTIFY_PACKAGES = ['fastify', 'fastify-plugin', '@fastify/awilix']

function sourceEntries (): Array<[string, string]> {
  return Object.entries(pkg.exports)
    .filter(([subpath]) => !TOOLING_SUBPATHS.includes(subpath))
    .map(([subpath, target]) => [subpath, (target as Record<string, string>)['paywire-source'] as string])
}

/** The local modules and the packages an entry loads. */
function graph (entry: string): { modules: string[], packages: string[] } {
  const { metafile } = buildSync({
    entryPoints: [join(root, entry)],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    packages: 'external'
  })
  const modules = Object.keys(metafile.inputs)
  const packages = new Set(Object.values(metafile.inputs).flatMap((input) => input.imports)
    .filter((imported) => imported.external && !imported.path.startsWith('node:'))
    .map((imported) => imported.path.startsWith('@') ? imported.path.split('/').slice(0, 2).join('/') : imported.path.split('/')[0] as string))
  return { modules, packages: [...packages] }
}

t.test('the exports map names every runtime subpath with its source entry', async (t) => {
  t.same(sourceEntries().map(([subpath]) => subpath).filter((subpath) => subpath !== './postgres'),
    ['.', './engine', './redis', './graphql', './gateways/offline', './gateways/paypal-rest', './gateways/paypal-checkout', './gateways/stripe'])
})

for (const [subpath, entry] of sourceEntries()) {
  t.test(`${subpath} (${entry}) loads its own modules and the core's, nothing sideways`, async (t) => {
    const { modules, packages } = graph(entry)
    const own = `${dirname(entry).replace(/^\.\//, '')}/`
    const allowed = subpath === './engine' ? [own] : PAYPAL_GATEWAYS.includes(subpath) ? [own, 'plugins/core/', PAYPAL_SHARED_DIR] : [own, 'plugins/core/']
    const strays = modules.filter((module) => module.startsWith(SIMULATOR_DIR) || !allowed.some((prefix) => module.startsWith(prefix)))
    t.same(strays, [], `modules outside ${allowed.join(' and ')}`)
    t.ok(modules.length > 1, 'the walk followed the imports')

    const declared = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)])
    t.same(packages.filter((name) => !declared.has(name)), [], 'every package it loads is a dependency or a peer')
    const foreignPeers = packages.filter((name) => pkg.peerDependenciesMeta[name]?.optional === true && OPTIONAL_PEER_OWNERS[name] !== subpath)
    t.same(foreignPeers, [], 'optional peers only where they are needed')
    if (subpath === './engine') t.same(packages.filter((name) => FASTIFY_PACKAGES.includes(name) || name in pkg.peerDependencies), [], 'the engine runs without Fastify or any peer')
  })
}

t.test('the shared PayPal layer reaches only itself and the core: no gateway above it', async (t) => {
  const { modules } = graph(`./${PAYPAL_SHARED_DIR}index.ts`)
  t.same(modules.filter((module) => !module.startsWith(PAYPAL_SHARED_DIR) && !module.startsWith('plugins/core/')), [])
})

t.test('the simulator is its own subpath, and it does reach its modules', async (t) => {
  const target = pkg.exports['./paypal-simulator'] as Record<string, string>
  t.equal(target['paywire-source'], `./${SIMULATOR_DIR}index.ts`)
  t.ok(graph(target['paywire-source'] as string).modules.some((module) => module.startsWith(SIMULATOR_DIR)))
})

/*
 * The simulator is written from PayPal's documentation, not from the code it tests: walked in the
 * sources (type-only imports included, which esbuild would erase), nothing under simulators/
 * imports gateways/ or plugins/, and neither of those imports the simulator (tests, scripts, bin/
 * and the demo may). Inside it the two APIs use the runtime and never each other, and no import
 * loop remains but type-only ones.
 */
interface ImportEdge {
  from: string
  /** A repository path for the package's own modules (relative or `paywire/...`), else the specifier. */
  to: string
  /** One of the repository's own modules, not a package or a Node built-in. */
  local: boolean
  /** Erased at run time: `import type`, `export type`, `import('...').T`, `declare module '...'`. */
  typeOnly: boolean
}

function sourceFiles (dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => posix.join(dir, file.split('\\').join('/')))
}

/** `paywire/x` as the package resolves it from the sources (the paywire-source condition). */
function selfReference (specifier: string): string | undefined {
  if (specifier !== 'paywire' && !specifier.startsWith('paywire/')) return undefined
  const target = pkg.exports[`.${specifier.slice('paywire'.length)}`]
  const source = typeof target === 'object' ? target['paywire-source'] : target
  return source === undefined ? specifier : posix.normalize(source)
}

function importsOf (file: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, false)
  const edges: ImportEdge[] = []
  const add = (specifier: ts.Node | undefined, typeOnly: boolean): void => {
    if (specifier === undefined || !ts.isStringLiteral(specifier)) return
    const text = specifier.text
    const own = text.startsWith('.') ? posix.join(posix.dirname(file), text) : selfReference(text)
    edges.push({ from: file, to: own ?? text, local: own !== undefined, typeOnly })
  }
  const visit = (node: ts.Node): void => {
    // With verbatimModuleSyntax, `import { type A }` still loads the module: only `import type` is erased.
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, node.importClause?.isTypeOnly === true)
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, node.isTypeOnly)
    else if (ts.isModuleDeclaration(node)) add(node.name, true)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, true)
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], false)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

/** Every loop of run-time imports (strongly connected components of more than one module, or a self-import). */
function importLoops (edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const { from, to, typeOnly } of edges) if (!typeOnly) next.set(from, [...next.get(from) ?? [], to])
  // Tarjan's algorithm.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const loops: string[][] = []
  const connect = (module: string): void => {
    index.set(module, index.size)
    low.set(module, index.get(module) as number)
    stack.push(module)
    for (const target of next.get(module) ?? []) {
      if (!index.has(target)) {
        connect(target)
        low.set(module, Math.min(low.get(module) as number, low.get(target) as number))
      } else if (stack.includes(target)) {
        low.set(module, Math.min(low.get(module) as number, index.get(target) as number))
      }
    }
    if (low.get(module) !== index.get(module)) return
    const component = stack.splice(stack.indexOf(module))
    if (component.length > 1 || (next.get(module) ?? []).includes(module)) loops.push(component.sort())
  }
  for (const module of next.keys()) if (!index.has(module)) connect(module)
  return loops
}

const describe = (edges: ImportEdge[]): string[] => edges.map(({ from, to, typeOnly }) => `${from} -> ${to}${typeOnly ? ' (type)' : ''}`)

t.test('the simulator imports nothing from the gateways or plugins, and they import nothing from it', async (t) => {
  const simulatorImports = sourceFiles('simulators').flatMap(importsOf)
  t.ok(simulatorImports.filter((edge) => edge.to.startsWith(SIMULATOR_DIR)).length > 100, 'the walk found the simulator\'s own imports')
  t.same(describe(simulatorImports.filter(({ to, local }) => local && !to.startsWith('simulators/'))), [],
    'of the repository, only simulators/: no gateways/ or plugins/ module, by path or as paywire/...')

  const towardSimulator = ['gateways', 'plugins'].flatMap(sourceFiles).flatMap(importsOf)
  t.ok(towardSimulator.some(({ to }) => to.startsWith('plugins/core/')), 'the walk found the gateways\' and plugins\' imports')
  t.same(describe(towardSimulator.filter(({ to }) => to.startsWith('simulators/'))), [])
})

t.test('inside the simulator, the APIs use the runtime and never each other; no run-time import loop', async (t) => {
  const edges = sourceFiles('simulators').flatMap(importsOf).filter(({ to }) => to.startsWith(SIMULATOR_DIR))
  t.same(describe(edges.filter(({ from, to }) => from.startsWith(SIMULATOR_RUNTIME_DIR) && !to.startsWith(SIMULATOR_RUNTIME_DIR))), [],
    'the runtime imports only itself')
  for (const api of SIMULATOR_APIS) {
    t.same(describe(edges.filter(({ from, to }) => from.startsWith(api) && !to.startsWith(api) && !to.startsWith(SIMULATOR_RUNTIME_DIR))), [],
      `${api} imports only itself and the runtime`)
  }
  t.same(importLoops(edges), [], 'no loop of run-time imports')
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, local: true, typeOnly })
  t.same(importLoops([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd'), edge('d', 'd'), edge('e', 'a', true), edge('a', 'e')]),
    [['d'], ['a', 'b', 'c']], 'the loop finder finds loops, and only run-time ones')
})

/*
 * The engine in sub-areas, one way down (docs: CONTRIBUTING.md): each area imports only areas
 * below it and the ground floor (the files at the engine's root), type-only imports included.
 * legacy/ is a leaf that plugs into the registry and the gateway: only the engine's index
 * imports it, so deleting it (as 3.0 will) removes 1.x and touches nothing else.
 */
const ENGINE_DIR = 'plugins/core/engine/'
const ENGINE_FLOORS = ['', 'model', 'requests', 'reconcile', 'observability', 'di', 'storage', 'security', 'events', 'commit', 'kernel', 'setup', 'legacy']

function engineArea (file: string): string {
  const rest = file.slice(ENGINE_DIR.length)
  return rest.includes('/') ? rest.slice(0, rest.indexOf('/')) : rest === 'index.ts' ? 'index' : ''
}

t.test('the engine\'s areas import only downwards, and legacy/ is a leaf', async (t) => {
  const edges = sourceFiles('plugins/core/engine').flatMap(importsOf).filter(({ to }) => to.startsWith(ENGINE_DIR))
  t.ok(edges.length > 200, 'the walk found the engine\'s imports')
  t.same([...new Set(sourceFiles('plugins/core/engine').map(engineArea))].filter((area) => area !== 'index' && !ENGINE_FLOORS.includes(area)), [],
    'every area has its floor')
  const upward = edges.filter(({ from, to }) => {
    const [a, b] = [engineArea(from), engineArea(to)]
    return a !== 'index' && a !== b && ENGINE_FLOORS.indexOf(b) > ENGINE_FLOORS.indexOf(a)
  })
  t.same(describe(upward.filter(({ to }) => engineArea(to) !== 'legacy')), [], 'no import goes up a floor')
  const intoLegacy = ['plugins', 'gateways', 'simulators', 'bin', 'scripts', 'demo'].flatMap(sourceFiles).flatMap(importsOf)
    .filter(({ from, to }) => to.startsWith(`${ENGINE_DIR}legacy/`) && !from.startsWith(`${ENGINE_DIR}legacy/`))
  t.same(describe(intoLegacy), [`${ENGINE_DIR}index.ts -> ${ENGINE_DIR}legacy/index.ts`], 'only the engine\'s index loads legacy/')
})

t.test('no loop of run-time imports anywhere in the sources', async (t) => {
  const edges = ['plugins', 'gateways', 'simulators', 'bin', 'scripts', 'demo'].flatMap(sourceFiles).concat('app.ts').flatMap(importsOf)
    .filter(({ local }) => local)
  t.ok(edges.length > 800, 'the walk found the imports')
  t.same(importLoops(edges), [])
})
