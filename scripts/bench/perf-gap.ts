/*
 * Where Paywire's CPU goes against the guaranteed floor's, component by component, sampled by
 * Linux perf (on-CPU time only: a process preempted by another is not charged, as V8's own
 * sampler charges it to whatever function it was in):
 *   node --conditions=paywire-source --import tsx scripts/bench/perf-gap.ts [--node <binary>]
 *        [--apps paywire,floor-guaranteed] [--seconds 15] [--warmup 10] [--concurrency 32] [--frequency 499]
 * Each server runs in turn with --perf-prof (V8 writes a jitdump, jit-<pid>.dump, so perf can name
 * JIT code: unlike --perf-basic-prof's map, it says when each piece of code lived, so code that
 * reuses the address of code collected earlier is not charged to the earlier one), gets a
 * warm-up, then `perf record -k 1 -e cpu-clock -g -p <pid>` samples every thread of the process
 * (GC and compiler threads included) during a measured round; `perf inject --jit` names the code. A sample is charged to
 * the first package or Paywire directory on its stack, from the leaf up (Node's socket writes to
 * the ioredis or Fastify code that asked for them); else to garbage collection or compilation when
 * V8's native frames say so; else to the part of Node it ran in. The table gives µs of CPU per
 * flow per area for each server and each area's share of the gap to the last server named.
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { areaOfUrl, isOwnedArea } from './code-areas.ts'
import { runRound } from './load.ts'
import { startRedis, startServer } from './processes.ts'

const { values } = parseArgs({
  options: {
    node: { type: 'string', default: process.execPath },
    apps: { type: 'string', default: 'paywire,floor-guaranteed' },
    seconds: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '32' },
    frequency: { type: 'string', default: '499' },
    /** Prints the leaf frames most often charged to this area (e.g. '(compilation)'). */
    explain: { type: 'string' },
    /** 'leaf' (default): the leaf frame and who called into the area; 'function': the area's own function. */
    'explain-by': { type: 'string', default: 'leaf' }
  }
})
const body = 'amount=12.34&currency=EUR&gateway=offline'

const GC = /Heap::|Scavenge|MarkCompact|Sweeper|GCTracer|ConcurrentMarking|MinorMS|MemoryAllocator|IncrementalMarking/
const COMPILER = /v8::internal::compiler::|v8::internal::maglev::|v8::internal::compiler::turboshaft::|v8::internal::Compiler::|OptimizingCompileDispatcher|v8::internal::Parser::|v8::internal::interpreter::Bytecode(Generator|ArrayBuilder)/

/** The area one sample is charged to; `frames` are perf's `sym (dso)` lines, leaf first. */
function chargeOf (frames: string[]): string {
  let fallback: string | undefined
  for (const frame of frames) {
    if (GC.test(frame)) return '(garbage collection)'
    if (COMPILER.test(frame)) return '(compilation)'
    const js = /(?:JS|Eval):.*?\s((?:file:|node:|\/)\S*?):\d+(?::\d+)?\s\(/.exec(frame)
    if (js?.[1] === undefined) continue
    const area = areaOfUrl(js[1])
    if (area === undefined) continue
    if (isOwnedArea(area)) return area
    fallback ??= area
  }
  if (fallback !== undefined) return fallback
  const leaf = frames[0] ?? ''
  if (leaf.includes('[kernel.kallsyms]')) return '(kernel: syscalls, network)'
  if (/Builtin|JS:/.test(leaf)) return '(V8 builtins, no script on the stack)'
  return '(native: libuv, OpenSSL, V8 runtime, other)'
}

/** Runs a command to its end; its stdout. */
async function run (command: string, args: string[]): Promise<string> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'] })
  const chunks: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
  await once(child, 'close')
  return Buffer.concat(chunks).toString()
}

interface Profile { flows: number, flowsPerSecond: number, usPerFlow: Map<string, number>, totalUsPerFlow: number }

async function profile (app: string, redisUrl: string): Promise<Profile> {
  const dir = await mkdtemp(join(tmpdir(), 'paywire-perf-'))
  // In a directory of its own: V8 writes the jitdump there and perf inject its pieces of code beside it.
  const server = await startServer(values.node, app, ['--redis', redisUrl, '--prefix', `perf:${randomUUID()}:`], [], ['--perf-prof', '--interpreted-frames-native-stack'], dir)
  try {
    const target = { name: app, origin: server.origin, prepare: { path: app.startsWith('paywire') ? '/checkout' : '/prepare', body } }
    const concurrency = Number(values.concurrency)
    // Long enough that V8 has tiered the hot code up: a shorter one charges the flows for compiling it.
    await runRound(target, concurrency, Number(values.warmup) * 1000)
    const data = join(dir, 'perf.data')
    // perf keeps a copy of every binary it sampled (each piece of JIT code too) in its build-id
    // cache, ~/.debug by default: hundreds of MB per run. Here it goes to the run's directory.
    const perf = ['--buildid-dir', join(dir, 'buildid')]
    const recorder = spawn('perf', [...perf, 'record', '-k', '1', '-e', 'cpu-clock', '-F', values.frequency, '-g', '-p', String(server.child.pid), '-o', data], { stdio: 'ignore' })
    await once(recorder, 'spawn')
    const round = await runRound(target, concurrency, Number(values.seconds) * 1000)
    recorder.kill('SIGINT')
    await once(recorder, 'exit')
    // The jitdump is complete only once the server has stopped writing it.
    server.child.kill('SIGTERM')
    if (server.child.exitCode === null) await once(server.child, 'exit')
    await run('perf', [...perf, 'inject', '--jit', '-i', data, '-o', `${data}.jit`])
    const script = await run('perf', [...perf, 'script', '-i', `${data}.jit`, '-F', 'comm,tid,ip,sym,dso'])
    const counts = new Map<string, number>()
    const leaves = new Map<string, number>()
    let samples = 0
    for (const block of script.split(/\n\s*\n/)) {
      const frames = block.split('\n').slice(1).map((line) => line.trim()).filter((line) => line !== '')
      if (frames.length === 0) continue
      samples++
      const area = chargeOf(frames)
      counts.set(area, (counts.get(area) ?? 0) + 1)
      if (area === values.explain) {
        // The leaf, and the first frame above the area's own: who called into it.
        const clean = (frame: string | undefined) => (frame ?? '').replace(/^[0-9a-f]+ /, '').replace(/\+0x[0-9a-f]+/, '').replace(/ \([^)]*jitted[^)]*\)/, '')
        const inside = frames.findIndex((frame) => frame.includes(area))
        const caller = inside < 0 ? undefined : frames.slice(inside).find((frame) => !frame.includes(area) && /JS:|Eval:/.test(frame))
        // With --explain-by function: the area's own function the sample was in (its runtime calls included).
        const key = values['explain-by'] === 'function'
          ? clean(frames[inside])
          : `${clean(frames.find((frame) => !frame.includes('[kernel.kallsyms]')))}  <-  ${clean(caller)}`
        leaves.set(key, (leaves.get(key) ?? 0) + 1)
      }
    }
    for (const [leaf, count] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.error(`  ${String(count).padStart(6)} ${leaf}`)
    // cpu-clock samples at `frequency` per second of CPU time (each thread on its own).
    const usPerSample = 1e6 / Number(values.frequency)
    const usPerFlow = new Map([...counts].map(([area, count]) => [area, count * usPerSample / round.flows]))
    return { flows: round.flows, flowsPerSecond: round.flows / (round.durationMs / 1000), usPerFlow, totalUsPerFlow: samples * usPerSample / round.flows }
  } finally {
    server.child.kill('SIGTERM')
    if (server.child.exitCode === null) await once(server.child, 'exit')
    await rm(dir, { recursive: true, force: true })
  }
}

const redis = await startRedis()
try {
  const apps = values.apps.split(',')
  const profiles: Profile[] = []
  for (const app of apps) {
    const result = await profile(app, redis.url)
    console.error(`${app}: ${result.flows} flows, ${result.flowsPerSecond.toFixed(0)} flows/s, ${result.totalUsPerFlow.toFixed(0)} µs CPU per flow`)
    profiles.push(result)
  }
  const base = profiles.at(-1) as Profile
  const gap = (profiles[0] as Profile).totalUsPerFlow - base.totalUsPerFlow
  const areas = [...new Set(profiles.flatMap((result) => [...result.usPerFlow.keys()]))]
    .sort((a, b) => ((profiles[0] as Profile).usPerFlow.get(b) ?? 0) - ((profiles[0] as Profile).usPerFlow.get(a) ?? 0))
  console.log(`Node ${values.node === process.execPath ? process.version : values.node}, concurrency ${values.concurrency}, perf cpu-clock at ${values.frequency} Hz; µs of CPU per flow\n`)
  console.log(`| where | ${apps.join(' | ')} | share of the gap |\n|---|${apps.map(() => '---:|').join('')}---:|`)
  for (const area of areas) {
    const cells = profiles.map((result) => (result.usPerFlow.get(area) ?? 0).toFixed(0))
    const diff = ((profiles[0] as Profile).usPerFlow.get(area) ?? 0) - (base.usPerFlow.get(area) ?? 0)
    if (profiles.every((result) => (result.usPerFlow.get(area) ?? 0) < 3)) continue
    console.log(`| ${area} | ${cells.join(' | ')} | ${gap > 0 ? `${(100 * diff / gap).toFixed(0)}%` : ''} |`)
  }
  console.log(`| **all** | ${profiles.map((result) => result.totalUsPerFlow.toFixed(0)).join(' | ')} | ${gap.toFixed(0)} µs |`)
} finally {
  redis.stop()
}
