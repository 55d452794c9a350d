/*
 * Shared by the Redis plugin's tests: every test file works against the real Redis on
 * REDIS_URL, under a key prefix of its own, and removes its keys when it ends.
 */
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

export interface TestRedis {
  /** A connection for the code under test and for inspecting keys. */
  client: Redis
  /** Unique to this test file's process and run. */
  prefix: string
}

interface Teardown {
  teardown (fn: () => Promise<void>): void
}

/** A connected client and a fresh key prefix; the keys and the client go away at teardown. */
export async function testRedis (t: Teardown, name: string): Promise<TestRedis> {
  const client = newClient()
  const prefix = `test:${name}:${process.pid}:${randomUUID()}:`
  t.teardown(async () => {
    await deleteKeys(client, prefix)
    await client.quit()
  })
  await client.ping()
  return { client, prefix }
}

export function newClient (): Redis {
  return new Redis(REDIS_URL, { protocol: 2 })
}

export async function keysUnder (client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = []
  let cursor = '0'
  do {
    const [next, page] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000)
    keys.push(...page)
    cursor = next
  } while (cursor !== '0')
  return keys.sort()
}

export async function deleteKeys (client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix)
  if (keys.length > 0) await client.unlink(...keys)
}

function escapeGlob (text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&')
}

/** Polls Redis (its clock, not ours) until the key has expired. */
export async function untilExpired (client: Redis, key: string): Promise<void> {
  while (await client.exists(key) === 1) await new Promise((resolve) => setTimeout(resolve, 10))
}

export interface Deferred<T = void> {
  promise: Promise<T>
  resolve: (value: T) => void
}

export function deferred<T = void> (): Deferred<T> {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((_resolve) => { resolve = _resolve })
  return { promise, resolve }
}

export interface MonitoredCommand {
  name: string
  args: string[]
}

/**
 * Records the commands one connection sends, seen by Redis itself (MONITOR on a second
 * connection). Commands of other connections (other test files) are left out, and ECHO
 * markers sent before and after the work bound what is recorded.
 */
export async function commandsSentBy (client: Redis, work: () => Promise<void>): Promise<MonitoredCommand[]> {
  // The address as Redis sees it, which is what MONITOR reports.
  const source = /\baddr=(\S+)/.exec(String(await client.client('INFO')))?.[1]
  const monitor = await monitoringConnection()
  const start = `start-${randomUUID()}`
  const end = `end-${randomUUID()}`
  const seen: MonitoredCommand[] = []
  const ended = deferred()
  let recording = false
  monitor.on('monitor', (_time: string, args: string[], from: string) => {
    if (from !== source) return
    const [name = '', ...rest] = args
    if (name.toLowerCase() === 'echo' && rest[0] === start) recording = true
    else if (name.toLowerCase() === 'echo' && rest[0] === end) ended.resolve()
    else if (recording) seen.push({ name: name.toLowerCase(), args: rest })
  })
  try {
    await client.echo(start)
    await work()
    await client.echo(end)
    await ended.promise
  } finally {
    monitor.disconnect()
  }
  return seen
}

/**
 * A MONITOR connection of our own (not client.monitor(), which loses its connection when it
 * fails): on a busy server, other connections' commands can arrive with MONITOR's OK, before
 * ioredis switched to monitoring mode, and it reports them as errors. Those precede our
 * markers, so they are ignored.
 */
async function monitoringConnection (): Promise<Redis> {
  const monitor = new Redis(REDIS_URL, { protocol: 2, monitor: true })
  await new Promise<void>((resolve, reject) => {
    monitor.once('monitoring', resolve)
    monitor.on('error', (error: Error) => {
      if (error.message.startsWith('Command queue state error')) return
      monitor.disconnect()
      reject(error)
    })
  })
  return monitor
}

/** How many times the client wrote to its socket during the work: one write is one round trip. */
export async function socketWrites (client: Redis, work: () => Promise<void>): Promise<number> {
  const stream = client.stream
  const write = stream.write
  let writes = 0
  stream.write = function countedWrite (this: typeof stream, ...args: Parameters<typeof write>) {
    writes++
    return write.apply(this, args)
  } as typeof write
  try {
    await work()
  } finally {
    stream.write = write
  }
  return writes
}
