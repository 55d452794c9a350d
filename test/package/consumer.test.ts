import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { Redis } from 'ioredis'
import pg from 'pg'
import t from 'tap'
import { spawnUncovered } from '../helpers/child-process.ts'
import { ownRedis } from '../helpers/redis-server.ts'
import { docBlocks, writeDocProject, type DocBlock } from './doc-blocks.ts'

/*
 * Paywire as a user gets it: `npm pack` (prepack builds dist/), the tarball installed into an
 * application outside the repository, then a plain JavaScript shop run with plain node, the
 * same shop in strict TypeScript compiled against the shipped .d.ts, a type test of misuse,
 * and publint and arethetypeswrong on the tarball. One pack and one install serve them all.
 * The shops and the bin run on the node that runs tap, and on every node binary
 * PAYWIRE_CONSUMER_NODES lists (colon-separated paths: .ci/run gives Node 24), from the same
 * tarball and install. The code blocks of the README and the guides are type-checked from the
 * same install, and the shops among them run (test/package/doc-blocks.ts says which).
 */
t.setTimeout(600_000)
const NODES = [process.execPath, ...(process.env.PAYWIRE_CONSUMER_NODES ?? '').split(':').filter((path) => path !== '')]

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

const root = join(import.meta.dirname, '../..')
const fixtures = join(import.meta.dirname, 'fixtures/consumer')
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const work = mkdtempSync(join(tmpdir(), 'paywire-consumer-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

/** This environment without npm's per-run variables (npm_config_local_prefix would point the child npm at the repository). */
function cleanEnv (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name)) env[name] = value
  return { ...env, ...extra }
}

/** Runs a command to completion (without tap's coverage hooks); rejects with its output when it fails. */
async function run (command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = spawnUncovered(command, args, { cwd, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const [code] = await once(child, 'close') as [number | null]
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`)
  return output
}

function installedVersion (name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version
}

// Pack: the files list is what npm publishes.
const packed = JSON.parse((await run('npm', ['pack', '--json', '--pack-destination', work], root)).replace(/^[^[]*/, '')) as Array<{ filename: string, files: Array<{ path: string }> }>
const tarball = join(work, packed[0]?.filename as string)
const app = join(work, 'app')
cpSync(fixtures, app, { recursive: true })
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
// The repository's own versions, so npm finds them in its cache: no registry round trip in CI.
// The docs' blocks also import pg, @fastify/postgres, @fastify/rate-limit, @fastify/swagger and mercurius.
await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball,
  ...['fastify', 'ioredis', 'stripe', 'typescript', '@types/node', 'pg', '@types/pg', '@fastify/postgres', '@fastify/rate-limit',
    '@fastify/swagger', 'mercurius', 'graphql'].map((name) => `${name}@${installedVersion(name)}`)], app)

t.test('the tarball holds the build and the documentation, nothing the repository only develops with', async (t) => {
  const files = packed[0]?.files.map((file) => file.path) ?? []
  const allowed = /^(dist\/.+\.(js|d\.ts|d\.ts\.map|html)|docs\/.+\.md|(plugins|gateways|simulators)\/.+\/README\.md|(README|MIGRATION|CHANGELOG|SECURITY|BENCHMARKS|CONTRIBUTING)\.md|LICENSE|package\.json)$/
  t.same(files.filter((file) => !allowed.test(file)), [])
  for (const file of ['dist/plugins/core/index.js', 'dist/plugins/core/index.d.ts', 'dist/plugins/core/index.d.ts.map', 'dist/bin/paywire.js',
    'dist/plugins/core/templates/done.html', 'dist/plugins/core/engine/kernel/templates/layout.html', 'LICENSE', 'CHANGELOG.md', 'SECURITY.md',
    'dist/simulators/paypal/index.js', 'dist/simulators/paypal/index.d.ts', 'simulators/paypal/README.md',
    'dist/gateways/stripe/index.js', 'dist/gateways/stripe/index.d.ts', 'gateways/stripe/README.md', 'simulators/stripe/README.md']) {
    t.ok(files.includes(file), file)
  }
  t.notOk(files.some((file) => /(^|\/)(test|examples|\.ci)\//.test(file) || (file.endsWith('.ts') && !file.endsWith('.d.ts'))), 'no tests, examples, CI or sources')
})

/** Starts a shop (`node <file>` in the app), takes one payment prepare → capture → done over HTTP, stops it. */
async function takeOnePayment (t: Test, node: string, file: string): Promise<void> {
  const keyPrefix = `test:consumer:${randomUUID()}:`
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    const keys = await redis.keys(`${keyPrefix}*`)
    if (keys.length > 0) await redis.unlink(keys)
    await redis.quit()
  })
  const child = spawnUncovered(node, [file], {
    cwd: app, env: cleanEnv({ REDIS_URL, KEY_PREFIX: keyPrefix }), stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let origin = ''
  for await (const line of createInterface({ input: child.stdout })) {
    origin = /^listening (\S+)/.exec(line)?.[1] ?? ''
    if (origin !== '') break
  }
  t.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/, 'the shop listens')
  await payThrough(t, origin)
  t.ok((await redis.keys(`${keyPrefix}*`)).length > 0, 'the payment lives in Redis')

  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0, 'the shop closes cleanly')
}

/** One payment through a shop's POST /checkout: prepare → capture → done, ORDER-42 for 19.99 EUR captured. */
async function payThrough (t: Test, origin: string): Promise<void> {
  const checkout = await fetch(`${origin}/checkout`, { method: 'POST', redirect: 'manual' })
  t.equal(checkout.status, 302, 'prepare: the payment is stored, the buyer sent to its capture URL')
  const captureUrl = checkout.headers.get('location') as string
  t.match(captureUrl, `${origin}/payment/capture/`)
  const capture = await fetch(captureUrl, { redirect: 'manual' })
  t.equal(capture.status, 302, 'capture: the gateway ran, the buyer is sent to the done URL')
  const doneUrl = capture.headers.get('location') as string
  t.match(doneUrl, `${origin}/payment/done/`)
  const done = await fetch(doneUrl, { headers: { accept: 'application/json' } })
  t.equal(done.status, 200)
  t.match(await done.json(), { status: 'captured', payment: { number: 'ORDER-42', totalAmount: 1999, currencyCode: 'EUR' } }, 'done: the payment is captured')
}

t.test('a strict TypeScript app type-checks against the shipped .d.ts (misuse refused)', async (t) => {
  // tsc fails on a type error in the shop, in Paywire's declarations (skipLibCheck: false), and on
  // any @ts-expect-error line of misuse.ts that compiles. The shops below run its output.
  await t.resolves(run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], app))
})

/** Starts a child in the app and waits for the stdout line matching `pattern`; killed at teardown. */
async function startChild (t: Test, node: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp): Promise<string> {
  const child = spawnUncovered(node, args, { cwd: app, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { child.kill('SIGKILL') })
  for await (const line of createInterface({ input: child.stdout })) {
    const found = pattern.exec(line)?.[1]
    if (found !== undefined) return found
  }
  throw new Error(`${args.join(' ')} never printed ${String(pattern)}`)
}

/** With the stripe peer installed, a plain JavaScript shop takes a Stripe payment against npx paywire stripe-simulator. */
async function takeOneStripePayment (t: Test, node: string): Promise<void> {
  const key = `sk_test_${randomUUID().replaceAll('-', '')}`
  const simulator = await startChild(t, node, ['node_modules/.bin/paywire', 'stripe-simulator'],
    { STRIPE_SIMULATOR_PORT: '0', STRIPE_SIMULATOR_SECRET_KEY: key, STRIPE_SIMULATOR_LOG_LEVEL: 'silent' }, /^Stripe simulator listening on (\S+)/)
  const origin = await startChild(t, node, ['stripe-shop.mjs'], { STRIPE_SECRET_KEY: key, STRIPE_PORT: new URL(simulator).port }, /^listening (\S+)/)
  const checkout = await fetch(`${origin}/checkout`, { method: 'POST', redirect: 'manual' })
  const captureUrl = checkout.headers.get('location') as string
  const toStripe = await fetch(captureUrl, { redirect: 'manual' })
  t.equal(toStripe.status, 302, 'the gateway made a Checkout Session')
  const sessionUrl = toStripe.headers.get('location') as string
  t.match(sessionUrl, `${simulator}/c/pay/cs_test_`)
  t.equal((await fetch(sessionUrl)).status, 200, 'Stripe\'s page')
  const paid = await fetch(sessionUrl, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ payment_method: 'pm_card_visa', action: 'pay' }) })
  t.equal(paid.status, 303)
  t.equal(paid.headers.get('location'), captureUrl, 'back to the capture URL')
  const back = await fetch(captureUrl, { redirect: 'manual' })
  t.equal(back.status, 302)
  const done = await fetch(back.headers.get('location') as string, { headers: { accept: 'application/json' } })
  t.match(await done.json(), { status: 'captured', payment: { number: 'ORDER-43', totalAmount: 2500, currencyCode: 'EUR' } })
}

t.test('publint and arethetypeswrong find nothing wrong with the tarball', async (t) => {
  await t.resolves(run(join(root, 'node_modules/.bin/publint'), ['run', '--strict', tarball], work), 'publint, warnings included')
  // ESM only: the node10 and require() resolutions are expected to fail.
  await t.resolves(run(join(root, 'node_modules/.bin/attw'), ['--profile', 'esm-only', '--no-definitely-typed', '--format', 'table', tarball], work), 'arethetypeswrong')
})

/** The bin runs from the installed package: its usage, and the doctor on an application's setup. */
async function runTheBin (t: Test, node: string): Promise<void> {
  const usage = await run(node, ['node_modules/.bin/paywire', '--help'], app)
  t.match(usage, /^Usage: paywire <command>/)
  t.match(usage, /doctor/)
  t.match(usage, /paypal-simulator/)
  const report = await run(node, ['node_modules/.bin/paywire', 'doctor', 'setup.mjs', '--strict'], app)
  t.match(report, /^GATEWAY +FACTORY +STYLE +FINDING +FIX OR ERROR\ncash +offline +2\.0 +ok\n/)
}

for (const node of NODES) {
  const version = (await run(node, ['--version'], app)).trim()
  t.test(`on Node ${version} (${node})`, async (t) => {
    t.test('a plain JavaScript ESM app, run with plain node, takes a payment', (t) => takeOnePayment(t, node, 'shop.mjs'))
    t.test('the strict TypeScript app, compiled, takes a payment', (t) => takeOnePayment(t, node, 'dist/shop.js'))
    t.test('with the stripe peer installed, a plain JavaScript shop takes a Stripe payment against npx paywire stripe-simulator', (t) => takeOneStripePayment(t, node))
    t.test('the bin runs from the installed package: its usage, and the doctor on an application\'s setup', (t) => runTheBin(t, node))
  })
}

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const docs = docBlocks(root)
writeDocProject(join(app, 'docs-check'), docs.checked)
// Compiled beside the tests above (most of their time is spent waiting on children), checked below.
const docsCompiled = run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'docs-check'], app)
docsCompiled.catch(() => {})

/** Starts a docs shop (`node out/<block>.js`, PORT=0) and answers the origin Fastify's logger says it listens on. */
async function startDocShop (t: Test, block: DocBlock, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawnUncovered(process.execPath, [`docs-check/out/${block.name}.js`], { cwd: app, env: cleanEnv({ ...env, PORT: '0' }), stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => { child.kill('SIGKILL') })
  for await (const line of createInterface({ input: child.stdout })) {
    const origin = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/.exec(line)?.[1]
    if (origin !== undefined) return origin
  }
  throw new Error(`${block.where} exited before it listened`)
}

t.test('the README\'s and the guides\' code blocks compile as written (strict, nodenext) against the installed package', async (t) => {
  t.ok(docs.checked.length > 30, `${docs.checked.length} blocks checked, ${docs.skipped.length} marked not-checked with a reason`)
  await t.resolves(docsCompiled)

  // The shops among them, side by side: each on a port of its own (PORT=0), its storage of its own.
  const shops = docs.checked.filter((block) => block.listens)
  t.jobs = 3
  t.same(shops.map((block) => block.where.replace(/:\d+$/, '')), ['README.md', 'plugins/postgres/README.md', 'plugins/redis/README.md'])
  const programs = docs.checked.filter((block) => block.runsToEnd)
  // What each program prints as written: the README's builder captures; the search guide finds nothing in an empty memory store.
  const printed: Record<string, RegExp> = {
    'README.md': /^captured\n$/,
    'docs/storages.md': /^\[\] \[\]\n(0 payments indexed\n)?$/,
    'gateways/offline/README.md': /^$/
  }
  t.same(programs.map((block) => block.where.replace(/:\d+$/, '')),
    ['README.md', 'docs/storages.md', 'docs/storages.md', 'gateways/offline/README.md', 'gateways/offline/README.md'])
  await Promise.all(programs.map((block) => t.test(`${block.where} runs to its end`, async (t) => {
    const output = await run(process.execPath, [`docs-check/out/${block.name}.js`], app)
    t.match(output, printed[block.where.replace(/:\d+$/, '')] as RegExp, 'exit code 0, and what the doc says it prints')
  })))
  await Promise.all(shops.map((block) => t.test(`${block.where} starts and answers`, async (t) => {
    const redis = await ownRedis(t)
    const schema = `docs_${randomUUID().replaceAll('-', '')}`
    if (block.code.includes('paywirePostgres')) {
      // As the guide says: `npx paywire migrate` first, into a schema of this test's own.
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 })
      t.teardown(async () => { await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`); await pool.end() })
      await run(process.execPath, ['node_modules/.bin/paywire', 'migrate', '--schema', schema], app, { DATABASE_URL })
    }
    const origin = await startDocShop(t, block, { REDIS_URL: redis.url, DATABASE_URL, PAYWIRE_SCHEMA: schema })
    if (block.code.includes("app.post('/checkout'")) {
      // The page the payment pages' "Back to the shop" leads to, then a payment.
      const home = await fetch(`${origin}/`)
      t.equal(home.status, 200)
      t.match(await home.text(), '<form method="post" action="/checkout"')
      await payThrough(t, origin)
      t.ok((await redis.admin.keys('shop:*')).length > 0, 'the payment lives in Redis, under the README\'s prefix')
    } else {
      // No route of its own: the plugin's capture route asks the storage for a token it does not have.
      const answer = await fetch(`${origin}/payment/capture/${randomUUID().replaceAll('-', '')}`, { headers: { accept: 'application/json' } })
      t.equal(answer.status, 404)
      t.match(await answer.json(), { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' })
    }
  })))
})
