/*
 * The figures a busy machine does not move, for a fixed number of flows per server:
 *   node --conditions=paywire-source --import tsx scripts/bench/counts.ts [--flows 300] [--concurrency 1,32]
 *        [--apps paywire,floor,floor-guaranteed,paywire-pg,floor-pg,floor-guaranteed-pg] [--instructions]
 * Per flow: Redis commands (INFO commandstats, those run inside scripts included) and round trips
 * (total_reads_processed) of a Redis of its own, PostgreSQL statements and transactions (counted
 * in the server process, scripts/bench/pg-stats.ts), events delivered, server CPU. With
 * --instructions each server runs under `valgrind --tool=callgrind` and the instructions it
 * executed for the measured flows are read with callgrind_control (zeroed after the warm-up,
 * dumped once the flows' events are delivered): slow (minutes per server), but the same on a
 * loaded machine as on a quiet one. Every server finishes delivering its flows' events before
 * the counters are read, so delivery is in the counts.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import pg from 'pg'
import { migrate } from '../../plugins/postgres/index.ts'
import { runRound } from './load.ts'
import { serverCounts, startRedis, startServer, type ServerCounts } from './processes.ts'
import { redisCounters, type RedisCounters } from './redis-stats.ts'

const { values } = parseArgs({
  options: {
    flows: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '1,32' },
    apps: { type: 'string', default: 'paywire,floor,floor-guaranteed,paywire-pg,floor-pg,floor-guaranteed-pg' },
    instructions: { type: 'boolean', default: false }
  }
})
const FLOWS = Number(values.flows)
const WARMUP = Math.min(200, FLOWS)
const body = 'amount=12.34&currency=EUR&gateway=offline'
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/** Runs a command to its end; its stdout. */
async function run (command: string, args: string[]): Promise<string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await once(child, 'close')
  return output
}

/** Waits until the server's handlers stop receiving events and Redis stops counting: delivery is over. */
async function settled (origin: string, redis: Redis): Promise<[ServerCounts, RedisCounters]> {
  let last = [await serverCounts(origin), await redisCounters(redis)] as [ServerCounts, RedisCounters]
  for (;;) {
    await sleep(700)
    const now = [await serverCounts(origin), await redisCounters(redis)] as [ServerCounts, RedisCounters]
    // The benchmark's own INFO calls are not counted; anything else moving is the server's work.
    if (now[0].delivered === last[0].delivered && now[0].pgStatements === last[0].pgStatements && now[1].commands === last[1].commands) return now
    last = now
  }
}

interface Row { app: string, concurrency: number, figures: Record<string, number> }

async function measureApp (app: string, concurrency: number, redisUrl: string, redis: Redis, admin: pg.Pool): Promise<Row> {
  const onPg = app.endsWith('-pg')
  const schema = `bench_counts_${randomUUID().slice(0, 8)}`
  if (app === 'paywire-pg') await migrate(admin, schema)
  const dir = await mkdtemp(join(tmpdir(), 'paywire-callgrind-'))
  const wrapper = values.instructions ? ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dir, 'callgrind.out')}`, '--dump-line=no', '--dump-instr=no'] : []
  const server = await startServer(process.execPath, app, onPg ? ['--database', databaseUrl, '--schema', schema] : ['--redis', redisUrl, '--prefix', `counts:${randomUUID()}:`], wrapper)
  try {
    const target = { name: app, origin: server.origin, prepare: { path: app.startsWith('paywire') ? '/checkout' : '/prepare', body } }
    await runRound(target, concurrency, Infinity, WARMUP)
    const [serverBefore, redisBefore] = await settled(server.origin, redis)
    if (values.instructions) await run('callgrind_control', ['--zero', String(server.child.pid)])
    const round = await runRound(target, concurrency, Infinity, FLOWS)
    const [serverAfter, redisAfter] = await settled(server.origin, redis)
    let instructions = NaN
    if (values.instructions) {
      await run('callgrind_control', ['--dump', String(server.child.pid)])
      // The dump holds the instructions since the zeroing; the figure includes the few /__bench reads.
      for (const file of (await readdir(dir)).filter((name) => /\.\d+$/.test(name))) {
        instructions = Number(/^(?:summary|totals): (\d+)/m.exec(await readFile(join(dir, file), 'utf8'))?.[1] ?? NaN)
      }
    }
    const flows = round.flows
    const figures: Record<string, number> = {
      flows,
      failed: round.errors,
      eventsPerFlow: (serverAfter.delivered - serverBefore.delivered) / flows,
      serverCpuMsPerFlow: (serverAfter.cpuUs - serverBefore.cpuUs) / 1000 / flows,
      instructionsPerFlow: instructions / flows
    }
    if (onPg) {
      figures.statementsPerFlow = (serverAfter.pgStatements - serverBefore.pgStatements) / flows
      figures.transactionsPerFlow = (serverAfter.pgTransactions - serverBefore.pgTransactions) / flows
    } else {
      figures.commandsPerFlow = (redisAfter.commands - redisBefore.commands) / flows
      figures.roundTripsPerFlow = (redisAfter.reads - redisBefore.reads) / flows
      figures.redisCpuMsPerFlow = (redisAfter.cpuSeconds - redisBefore.cpuSeconds) * 1000 / flows
      // The benchmark's own INFO calls count here too, a few hundred bytes per read of the counters, over hundreds of flows.
      figures.bytesToRedisPerFlow = (redisAfter.bytesIn - redisBefore.bytesIn) / flows
      figures.bytesFromRedisPerFlow = (redisAfter.bytesOut - redisBefore.bytesOut) / flows
    }
    return { app, concurrency, figures }
  } finally {
    server.child.kill('SIGTERM')
    if (server.child.exitCode === null) await once(server.child, 'exit')
    if (onPg) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
    await rm(dir, { recursive: true, force: true })
  }
}

const redisServer = await startRedis()
const redis = new Redis(redisServer.url)
const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 })
try {
  const rows: Row[] = []
  for (const concurrency of values.concurrency.split(',').map(Number)) {
    for (const app of values.apps.split(',')) {
      const row = await measureApp(app, concurrency, redisServer.url, redis, admin)
      console.error(`${app} at ${concurrency}: ${JSON.stringify(row.figures)}`)
      rows.push(row)
    }
  }
  const columns = ['flows', 'failed', 'commandsPerFlow', 'roundTripsPerFlow', 'statementsPerFlow', 'transactionsPerFlow', 'bytesToRedisPerFlow', 'bytesFromRedisPerFlow', 'eventsPerFlow', 'serverCpuMsPerFlow', 'redisCpuMsPerFlow', 'instructionsPerFlow']
  console.log(`| server | concurrency | ${columns.join(' | ')} |\n|---|---:|${columns.map(() => '---:|').join('')}`)
  for (const row of rows) {
    const cell = (name: string) => {
      const value = row.figures[name]
      if (value === undefined || !Number.isFinite(value)) return ''
      return name === 'instructionsPerFlow' ? `${(value / 1e6).toFixed(2)} M` : Number.isInteger(value) ? String(value) : value.toFixed(name.startsWith('server') || name.startsWith('redis') ? 3 : 2)
    }
    console.log(`| ${row.app} | ${row.concurrency} | ${columns.map(cell).join(' | ')} |`)
  }
} finally {
  await redis.quit()
  await admin.end()
  redisServer.stop()
}
