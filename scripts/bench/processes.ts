/* The benchmark's processes: a Redis of its own, and each benchmarked server in a process of its own. */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'

// tsx by its own URL: a server started in another directory (a profiler's) would not find it by name.
const tsx = ['--conditions=paywire-source', '--import', import.meta.resolve('tsx')]

export async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  return port
}

/** A Redis of the benchmark's own, so its counters see only the benchmarked applications. */
export async function startRedis (): Promise<{ url: string, stop: () => void }> {
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

const serverScript = fileURLToPath(new URL('./server.ts', import.meta.url))

/**
 * One benchmarked server in a process of its own. `cwd`: where it runs, for profilers that write
 * files into the working directory (V8's jitdump and logs), so they never land in the project.
 */
export async function startServer (node: string, app: string, args: string[], wrapper: string[] = [], nodeArgs: string[] = [], cwd?: string): Promise<{ child: ChildProcess, origin: string }> {
  const child = spawn(wrapper[0] ?? node, [...wrapper.slice(1), ...(wrapper.length > 0 ? [node] : []), ...nodeArgs, ...tsx, serverScript, '--app', app, ...args], { stdio: ['ignore', 'pipe', 'inherit'], cwd })
  const [line] = await once(child.stdout as NodeJS.ReadableStream, 'data') as [Buffer]
  const { port } = JSON.parse(line.toString()) as { port: number }
  return { child, origin: `http://127.0.0.1:${port}` }
}

export interface ServerCounts { cpuUs: number, pgStatements: number, pgTransactions: number, delivered: number }

export async function serverCounts (origin: string): Promise<ServerCounts> {
  const get = async <T>(path: string) => await (await fetch(`${origin}/__bench/${path}`)).json() as T
  const [{ user, system }, pg, { delivered }] = await Promise.all([
    get<{ user: number, system: number }>('cpu'), get<{ statements: number, transactions: number }>('pg'), get<{ delivered: number }>('delivered')
  ])
  return { cpuUs: user + system, pgStatements: pg.statements, pgTransactions: pg.transactions, delivered }
}
