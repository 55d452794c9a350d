/*
 * A redis-server of a test's own, on a free loopback port, for what must not touch the
 * shared server other test files (and developers) use: SCRIPT FLUSH, maxmemory, restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect, createServer } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'

export interface OwnRedis {
  url: string
  port: number
  /** A client for the test's own inspection and configuration. */
  admin: Redis
  stop (): Promise<void>
}

interface Teardown {
  teardown (fn: () => Promise<void>): void
}

async function freePort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  server.close()
  await once(server, 'close')
  return port
}

async function accepts (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}

/** Starts redis-server with `args` added (e.g. ['--maxmemory', '2mb']), and a password if given; stopped at teardown. */
export async function ownRedis (t: Teardown, args: string[] = [], options: { password?: string } = {}): Promise<OwnRedis> {
  const port = await freePort()
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...(options.password === undefined ? [] : ['--requirepass', options.password]), ...args],
    { stdio: 'ignore' })
  const exited = once(child, 'exit')
  // Polls until the server accepts connections (it binds within milliseconds).
  for (let attempt = 0; !await accepts(port); attempt++) {
    if (attempt > 300 || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`)
    await sleep(10)
  }
  const admin = new Redis({ port, host: '127.0.0.1', protocol: 2, password: options.password })
  await admin.ping()
  const stop = async (): Promise<void> => {
    admin.disconnect()
    if (child.exitCode === null) child.kill('SIGKILL')
    await exited
  }
  t.teardown(stop)
  return { url: `redis://127.0.0.1:${port}`, port, admin, stop }
}
