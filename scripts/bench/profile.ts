/*
 * A CPU profile of one benchmarked server under load:
 *   node --import tsx scripts/bench/profile.ts [--node <binary>] [--app paywire|floor|floor-guaranteed] [--seconds 20] [--concurrency 32]
 * Starts a Redis of its own, runs the server with --cpu-prof, drives complete flows, stops it
 * and prints the functions by self time and a few of Paywire's entry points by inclusive time
 * (shares of all non-idle samples). The .cpuprofile stays in bench-profiles/ for DevTools.
 * V8's sampler charges time the process was preempted to the function it was in (socket writes
 * look expensive on a busy machine); perf-gap.ts samples on-CPU time only, with Linux perf.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdir, readdir, readFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { areaOfUrl } from './code-areas.ts'
import { runRound } from './load.ts'
import { redisCounters } from './redis-stats.ts'

const { values } = parseArgs({
  options: {
    node: { type: 'string', default: process.execPath },
    app: { type: 'string', default: 'paywire' },
    seconds: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '32' }
  }
})

interface ProfileNode { id: number, callFrame: { functionName: string, url: string, lineNumber: number }, children?: number[] }
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

async function freePort (): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

const port = await freePort()
const redisProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
const redisUrl = `redis://127.0.0.1:${port}`
await sleep(300)
const redis = new Redis(redisUrl)
const dir = join('bench-profiles', `${values.app}-${Date.now()}`)
await mkdir(dir, { recursive: true })
const server = spawn(values.node, ['--cpu-prof', '--cpu-prof-dir', dir, '--conditions=paywire-source', '--import', 'tsx', 'scripts/bench/server.ts',
  '--app', values.app, '--redis', redisUrl, '--prefix', `prof:${randomUUID()}:`], { stdio: ['ignore', 'pipe', 'inherit'] })
const [line] = await once(server.stdout, 'data') as [Buffer]
const origin = `http://127.0.0.1:${(JSON.parse(line.toString()) as { port: number }).port}`
const target = values.app.startsWith('floor')
  ? { name: values.app, origin, prepare: { path: '/prepare', body: 'amount=12.34&currency=EUR&gateway=offline' } }
  : { name: values.app, origin, prepare: { path: '/checkout', body: 'amount=12.34&currency=EUR&gateway=offline' } }
const concurrency = Number(values.concurrency)
await runRound(target, concurrency, 3000)
const before = await redisCounters(redis)
const round = await runRound(target, concurrency, Number(values.seconds) * 1000)
const after = await redisCounters(redis)
server.kill('SIGTERM')
await once(server, 'exit')
await redis.quit()
redisProcess.kill('SIGTERM')

const file = (await readdir(dir)).find((name) => name.endsWith('.cpuprofile')) as string
const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as Profile
const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
// Only the measured round: the samples of its last `seconds` before the server was stopped
// (start-up, module loading and the warm-up are not the flows' cost).
const times: number[] = []
let clock = 0
for (const delta of profile.timeDeltas) times.push(clock += delta)
const windowStart = clock - round.durationMs * 1000
const counts = new Map<number, number>()
let windowSamples = 0
profile.samples.forEach((id, index) => {
  if ((times[index] as number) < windowStart) return
  windowSamples++
  counts.set(id, (counts.get(id) ?? 0) + 1)
})
const msPerSample = round.durationMs / windowSamples
const label = (node: ProfileNode) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|wt-[^/]+|main)\//, '')}:${node.callFrame.lineNumber + 1}`
let busy = 0
const self = new Map<string, number>()
const inclusive = new Map<string, number>()
for (const [id, count] of counts) {
  const node = byId.get(id) as ProfileNode
  if (node.callFrame.functionName === '(idle)') continue
  busy += count
  self.set(label(node), (self.get(label(node)) ?? 0) + count)
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = label(byId.get(at) as ProfileNode)
    if (seen.has(name)) continue
    seen.add(name)
    inclusive.set(name, (inclusive.get(name) ?? 0) + count)
  }
}
const share = (count: number) => `${(100 * count / busy).toFixed(1)}% ${(count * msPerSample * 1000 / round.flows).toFixed(0).padStart(4)} µs`

/** Where each self-time sample's code lives. */
function area (node: ProfileNode): string {
  const { url, functionName } = node.callFrame
  return areaOfUrl(url) ?? (functionName.startsWith('(') ? functionName : `native ${functionName}`)
}
const areas = new Map<string, number>()
for (const [id, count] of counts) {
  const node = byId.get(id) as ProfileNode
  if (node.callFrame.functionName === '(idle)') continue
  areas.set(area(node), (areas.get(area(node)) ?? 0) + count)
}
console.log(`${values.app} on ${values.node}: ${(round.flows / (round.durationMs / 1000)).toFixed(0)} flows/s at ${concurrency}, ` +
  `${((after.commands - before.commands) / round.flows).toFixed(2)} Redis commands and ${((after.reads - before.reads) / round.flows).toFixed(2)} round trips per flow; profile ${join(dir, file)}`)
console.log(`busy CPU per flow: ${(busy * msPerSample * 1000 / round.flows).toFixed(0)} µs (${(100 * busy / windowSamples).toFixed(0)}% of the samples not idle)`)
console.log('\nself time by where the code lives:')
for (const [name, count] of [...areas].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${share(count).padStart(14)}  ${name}`)
console.log('\nself time:')
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${share(count).padStart(14)}  ${name}`)
console.log('\ninclusive time:')
for (const [name, count] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 90)) console.log(`${share(count).padStart(14)}  ${name}`)
