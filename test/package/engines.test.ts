import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import t from 'tap'

/*
 * The Node range in package.json (and the README) must be one every dependency supports:
 * each package Paywire's own dependencies pull in, as the lockfile resolves them, and each
 * peer, declares an engines range containing Paywire's.
 */
const root = join(import.meta.dirname, '../..')
interface LockEntry { version: string, engines?: { node?: string } | string[], dependencies?: Record<string, string>, optionalDependencies?: Record<string, string> }
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string }, dependencies: Record<string, string>, peerDependencies: Record<string, string>
}
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }

/** Where Node finds `name` from the package installed at `from`: its own node_modules, then its parents'. */
function locate (name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`
    if (lock.packages[candidate] !== undefined) return candidate
    if (dir === '') return undefined
  }
}

/** Every installed package reachable from `names`, by lockfile path. */
function closure (names: string[]): Map<string, LockEntry> {
  const seen = new Map<string, LockEntry>()
  const queue = names.map((name) => locate(name, '')).filter((path) => path !== undefined)
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const entry = lock.packages[path]
    if (seen.has(path) || entry === undefined) continue
    seen.set(path, entry)
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      const found = locate(name, path)
      if (found !== undefined) queue.push(found)
    }
  }
  return seen
}

function nodeRange (entry: LockEntry): string | undefined {
  return Array.isArray(entry.engines) ? undefined : entry.engines?.node
}

t.test('the range is a valid semver range starting at Node 20.19', async (t) => {
  t.ok(semver.validRange(pkg.engines.node))
  t.equal(semver.minVersion(pkg.engines.node)?.version, '20.19.0')
  for (const version of ['20.19.0', '22.12.0', '24.0.0']) t.ok(semver.satisfies(version, pkg.engines.node), version)
})

t.test('the README states the same range', async (t) => {
  t.match(readFileSync(join(root, 'README.md'), 'utf8'), `Node.js \`${pkg.engines.node}\``)
})

t.test('every package the dependencies pull in supports the whole range', async (t) => {
  const packages = closure(Object.keys(pkg.dependencies))
  t.ok(packages.size > Object.keys(pkg.dependencies).length, 'the walk followed the dependencies')
  for (const [path, entry] of packages) {
    const range = nodeRange(entry)
    if (range === undefined) continue
    t.ok(semver.subset(pkg.engines.node, range), `${path.replace(/^.*node_modules\//, '')}@${entry.version} (engines ${range})`)
  }
})

t.test('every peer supports the whole range', async (t) => {
  for (const name of Object.keys(pkg.peerDependencies)) {
    const path = locate(name, '')
    // pg is a peer of paywire/postgres; the repository installs it once that plugin exists.
    if (path === undefined) continue
    const range = nodeRange(lock.packages[path] as LockEntry)
    t.ok(range === undefined || semver.subset(pkg.engines.node, range), `${name} (engines ${range ?? 'any'})`)
  }
})
