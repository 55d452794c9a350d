/*
 * `npm run bench [-- --quick]`: the Paywire demo shop (offline gateway, Redis tokens and
 * payments) against the hand-written floor (scripts/bench/floor-app.ts), then the demo shop
 * with everything in PostgreSQL (DATABASE_URL) against a hand-written Fastify + pg floor
 * (scripts/bench/floor-pg-app.ts), driven through complete flows (prepare → capture → done)
 * at concurrency 1 and 32 in alternating rounds, plus library micro-benchmarks. Prints a table, writes bench-results.json and, in full
 * mode, the results section of BENCHMARKS.md. No thresholds are asserted: these are goals.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { cpus } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import pg from 'pg'
import { migrate } from '../plugins/postgres/index.ts'
import { percentile, runRound, type RoundResult, type Target } from './bench/load.ts'
import { redisCounters } from './bench/redis-stats.ts'

const quick = process.argv.includes('--quick')
const ROUND_MS = quick ? 1300 : 8000
const WARMUP_MS = quick ? 700 : 5000
const ROUNDS = quick ? 1 : 3
const CONCURRENCY = [1, 32]
const tsx = ['--conditions=paywire-source', '--import', 'tsx']

async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

/** A Redis of the benchmark's own, so its counters see only the benchmarked applications. */
async function startRedis (): Promise<{ url: string, stop: () => void }> {
  const port = await freePort()
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
  const spawned = await Promise.race([once(child, 'spawn').then(() => true), once(child, 'error').then(() => false)])
  if (!spawned) {
    const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
    console.log(`redis-server not found: using ${url} (its counters include any other client's work)`)
    return { url, stop: () => {} }
  }
  const url = `redis://127.0.0.1:${port}`
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null })
    probe.on('error', () => {})
    try {
      await probe.connect()
      await probe.quit()
      break
    } catch (error) {
      probe.disconnect()
      if (attempt === 50) throw error
      await sleep(100)
    }
  }
  return { url, stop: () => child.kill('SIGTERM') }
}

async function startServer (app: string, args: string[]): Promise<{ child: ChildProcess, origin: string }> {
  const child = spawn(process.execPath, [...tsx, 'scripts/bench/server.ts', '--app', app, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = await once(child.stdout as NodeJS.ReadableStream, 'data') as [Buffer]
  const { port } = JSON.parse(line.toString()) as { port: number }
  return { child, origin: `http://127.0.0.1:${port}` }
}

async function rss (origin: string): Promise<number> {
  const response = await fetch(`${origin}/__bench/memory`)
  return (await response.json() as { rss: number }).rss
}

interface Figures {
  flowsPerSecond: number
  p50Ms: number
  p99Ms: number
  redisCommandsPerFlow: number
  redisRoundTripsPerFlow: number
  rssMb: number
  errors: number
}

function summarize (rounds: RoundResult[], counters: { commands: number, reads: number }, rssBytes: number): Figures {
  const flows = rounds.reduce((sum, round) => sum + round.flows, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.durationMs, 0) / 1000
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b)
  return {
    flowsPerSecond: flows / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    redisCommandsPerFlow: counters.commands / flows,
    redisRoundTripsPerFlow: counters.reads / flows,
    rssMb: rssBytes / 2 ** 20,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0)
  }
}

async function measure (targets: Target[], redis: Redis | null): Promise<Record<string, Record<number, Figures>>> {
  const results: Record<string, Record<number, Figures>> = {}
  for (const concurrency of CONCURRENCY) {
    for (const target of targets) await runRound(target, concurrency, WARMUP_MS)
    const rounds = new Map<string, RoundResult[]>(targets.map((target) => [target.name, []]))
    const counters = new Map(targets.map((target) => [target.name, { commands: 0, reads: 0 }]))
    // A, B, A, B...: both see the same machine state over time.
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const none = { commands: 0, reads: 0 }
        const before = redis === null ? none : await redisCounters(redis)
        rounds.get(target.name)?.push(await runRound(target, concurrency, ROUND_MS))
        const after = redis === null ? none : await redisCounters(redis)
        const total = counters.get(target.name) as { commands: number, reads: number }
        total.commands += after.commands - before.commands
        total.reads += after.reads - before.reads
        await sleep(200)
      }
    }
    for (const target of targets) {
      results[target.name] ??= {}
      const figures = summarize(rounds.get(target.name) as RoundResult[], counters.get(target.name) as { commands: number, reads: number }, await rss(target.origin))
      ;(results[target.name] as Record<number, Figures>)[concurrency] = figures
    }
  }
  return results
}

async function micro (): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--expose-gc', ...tsx, 'scripts/bench/micro.ts', ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await once(child, 'close')
  return JSON.parse(output)
}

const fixed = (value: number, digits = 1): string => Number.isFinite(value) ? value.toFixed(digits) : 'n/a'

function table (results: Record<string, Record<number, Figures>>): string {
  const rows = ['| concurrency | figure | Paywire | floor | Paywire / floor |', '|---|---|---:|---:|---:|']
  const figures: Array<[keyof Figures, string, number]> = [
    ['flowsPerSecond', 'complete flows per second', 0],
    ['p50Ms', 'p50 latency per flow (ms)', 2],
    ['p99Ms', 'p99 latency per flow (ms)', 2],
    ['redisCommandsPerFlow', 'Redis commands per flow', 2],
    ['redisRoundTripsPerFlow', 'Redis round trips per flow', 2],
    ['rssMb', 'server RSS (MB)', 0],
    ['errors', 'failed flows', 0]
  ]
  for (const concurrency of CONCURRENCY) {
    for (const [key, label, digits] of figures) {
      const paywire = results.paywire?.[concurrency]?.[key] as number
      const floor = results.floor?.[concurrency]?.[key] as number
      rows.push(`| ${concurrency} | ${label} | ${fixed(paywire, digits)} | ${fixed(floor, digits)} | ${key === 'errors' ? '' : fixed(paywire / floor, 2)} |`)
    }
  }
  return rows.join('\n')
}

/** The PostgreSQL pair: flows per second and latencies (no Redis figures). */
function pgTable (results: Record<string, Record<number, Figures>>): string {
  const rows = ['| concurrency | figure | Paywire on PostgreSQL | pg floor | Paywire / floor |', '|---|---|---:|---:|---:|']
  const figures: Array<[keyof Figures, string, number]> = [
    ['flowsPerSecond', 'complete flows per second', 0],
    ['p50Ms', 'p50 latency per flow (ms)', 2],
    ['p99Ms', 'p99 latency per flow (ms)', 2],
    ['rssMb', 'server RSS (MB)', 0],
    ['errors', 'failed flows', 0]
  ]
  for (const concurrency of CONCURRENCY) {
    for (const [key, label, digits] of figures) {
      const paywire = results['paywire-pg']?.[concurrency]?.[key] as number
      const floor = results['floor-pg']?.[concurrency]?.[key] as number
      rows.push(`| ${concurrency} | ${label} | ${fixed(paywire, digits)} | ${fixed(floor, digits)} | ${key === 'errors' ? '' : fixed(paywire / floor, 2)} |`)
    }
  }
  return rows.join('\n')
}

const body = 'amount=12.34&currency=EUR&gateway=offline'

/** Paywire with every record, token and claim in PostgreSQL, against the pg floor; each in a schema of its own, dropped after. */
async function measurePostgres (): Promise<{ results: Record<string, Record<number, Figures>>, version: string }> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const run = randomUUID().slice(0, 8)
  const schemas = { paywire: `bench_paywire_${run}`, floor: `bench_floor_${run}` }
  try {
    await migrate(admin, schemas.paywire)
    const version = ((await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0] as { v: string }).v
    const pgServers = await Promise.all([
      startServer('paywire-pg', ['--database', databaseUrl, '--schema', schemas.paywire]),
      startServer('floor-pg', ['--database', databaseUrl, '--schema', schemas.floor])
    ])
    try {
      return {
        version,
        results: await measure([
          { name: 'paywire-pg', origin: pgServers[0].origin, prepare: { path: '/checkout', body } },
          { name: 'floor-pg', origin: pgServers[1].origin, prepare: { path: '/prepare', body } }
        ], null)
      }
    } finally {
      for (const { child } of pgServers) child.kill('SIGTERM')
      await Promise.all(pgServers.map(({ child }) => child.exitCode === null ? once(child, 'exit') : undefined))
    }
  } finally {
    for (const schema of Object.values(schemas)) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await admin.end()
  }
}

const redisServer = await startRedis()
const redis = new Redis(redisServer.url)
const servers = await Promise.all([
  startServer('paywire', ['--redis', redisServer.url, '--prefix', `bench:paywire:${randomUUID()}:`]),
  startServer('floor', ['--redis', redisServer.url, '--prefix', `bench:floor:${randomUUID()}:`])
])
try {
  const targets: Target[] = [
    { name: 'paywire', origin: servers[0].origin, prepare: { path: '/checkout', body } },
    { name: 'floor', origin: servers[1].origin, prepare: { path: '/prepare', body } }
  ]
  const results = await measure(targets, redis)
  for (const { child } of servers) child.kill('SIGTERM')
  const postgres = await measurePostgres()
  const library = await micro()
  const machine = {
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    node: process.version,
    redis: /redis_version:([\d.]+)/.exec(await redis.info('server'))?.[1] ?? 'unknown',
    postgres: postgres.version,
    mode: quick ? 'quick' : 'full',
    roundMs: ROUND_MS,
    rounds: ROUNDS
  }
  const report = `${table(results)}\n\n${pgTable(postgres.results)}\n\nLibrary: ${JSON.stringify(library)}`
  console.log(`Machine: ${JSON.stringify(machine)}\n\n${report}`)
  await writeFile('bench-results.json', `${JSON.stringify({ date: new Date().toISOString(), machine, results, postgres: postgres.results, library }, null, 2)}\n`)
  if (!quick) {
    const file = await readFile('BENCHMARKS.md', 'utf8')
    const section = `<!-- bench:start -->\nLast full run: ${new Date().toISOString().slice(0, 10)}, ${machine.cpus}, Node ${machine.node}, Redis ${machine.redis}, PostgreSQL ${machine.postgres}.\n\n${table(results)}\n\n` +
      `PostgreSQL (\`DATABASE_URL\`: records, tokens and claims in one schema):\n\n${pgTable(postgres.results)}\n\n` +
      `| library figure | value |\n|---|---:|\n| cold getGateway() build (median) | ${fixed(library.coldGatewayBuildMs as number, 3)} ms |\n` +
      `| cached getGateway() | ${fixed(library.cachedGetGatewayNs as number, 0)} ns |\n| memory per built gateway | ${fixed(library.bytesPerBuiltGateway as number / 1024, 1)} KiB |\n` +
      `| capture tokens created per second (memory) | ${fixed((library.tokens as { createPerSecond: number }).createPerSecond, 0)} |\n` +
      `| tokens verified per second (memory) | ${fixed((library.tokens as { verifyPerSecond: number }).verifyPerSecond, 0)} |\n<!-- bench:end -->`
    await writeFile('BENCHMARKS.md', file.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, section))
  }
} finally {
  for (const { child } of servers) child.kill('SIGTERM')
  await redis.quit()
  redisServer.stop()
}
