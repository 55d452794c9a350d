import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { buildSync } from 'esbuild'
import t from 'tap'

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
const TOOLING_SUBPATHS = ['./paypal-simulator', './package.json']
const SIMULATOR_DIR = 'simulators/paypal/'
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
  pg: './postgres'
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
    ['.', './engine', './redis', './graphql', './gateways/offline', './gateways/paypal-rest', './gateways/paypal-checkout'])
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
