/*
 * A local Redis Cluster of the test's own: 3 masters (redis-server --cluster-enabled yes on
 * free loopback ports, each with its own directory in a temporary one, no persistence),
 * each given a third of the slots and joined with CLUSTER MEET, stopped and removed at teardown. Starting one
 * costs about a second: one per test file that needs it.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, mkdir, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Cluster, Redis } from 'ioredis'

export interface OwnCluster {
  nodes: Array<{ host: string, port: number }>
  /** A cluster client for the test's own inspection (RESP2, like the plugin's). */
  client: Cluster
  stop (): Promise<void>
}

interface Teardown {
  teardown (fn: () => Promise<void>): void
}

async function listens (port: number): Promise<boolean> {
  const server = createServer()
  return await new Promise((resolve) => {
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A free port whose cluster bus port (+10000) is free too. */
async function freeClusterPort (): Promise<number> {
  for (;;) {
    const server = createServer()
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    server.close()
    await once(server, 'close')
    if (port + 10000 < 65536 && await listens(port + 10000)) return port
  }
}

async function untilAnswers (port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, protocol: 2 })
    probe.on('error', () => {})
    try {
      await probe.connect()
      await probe.ping()
      probe.disconnect()
      return
    } catch {
      probe.disconnect()
      if (attempt > 300 || child.exitCode !== null) throw new Error(`redis-server did not start on port ${port}`)
      await sleep(10)
    }
  }
}

export async function ownCluster (t: Teardown): Promise<OwnCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'paywire-cluster-'))
  const children: ChildProcess[] = []
  const ports: number[] = []
  const clients: Cluster[] = []
  const stop = async (): Promise<void> => {
    for (const client of clients) client.disconnect()
    await Promise.all(children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    }))
    await rm(dir, { recursive: true, force: true })
  }
  t.teardown(stop)
  for (let i = 0; i < 3; i++) {
    const port = await freeClusterPort()
    const nodeDir = join(dir, String(port))
    await mkdir(nodeDir)
    const child = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf',
      '--cluster-node-timeout', '5000', '--dir', nodeDir, '--save', '', '--appendonly', 'no'
    ], { stdio: 'ignore' })
    children.push(child)
    ports.push(port)
  }
  await Promise.all(ports.map((port, i) => untilAnswers(port, children[i] as ChildProcess)))
  // What `redis-cli --cluster create … --cluster-replicas 0` does, without its one-second waits:
  // each master takes a third of the slots, then they meet.
  const admins = ports.map((port) => new Redis({ port, host: '127.0.0.1', protocol: 2 }))
  try {
    await Promise.all(admins.map(async (admin, i) => {
      // Distinct epochs, as redis-cli sets them: no collision to resolve after the meeting.
      await admin.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1))
      await admin.call('CLUSTER', 'ADDSLOTSRANGE', String(Math.floor(16384 * i / 3)), String(Math.floor(16384 * (i + 1) / 3) - 1))
    }))
    // Every pair meets directly: no waiting for gossip to introduce them.
    for (const [i, admin] of admins.entries()) {
      for (const port of ports.slice(i + 1)) await admin.call('CLUSTER', 'MEET', '127.0.0.1', String(port))
    }
    // Every node must know every slot's owner before clients trust the map.
    for (const admin of admins) {
      for (;;) {
        const nodes = (await admin.call('CLUSTER', 'NODES') as string).trim().split('\n')
        const info = await admin.call('CLUSTER', 'INFO') as string
        if (/cluster_state:ok/.test(info) && nodes.length === 3 && nodes.every((line) => / connected /.test(`${line} `))) break
        await sleep(20)
      }
    }
  } finally {
    for (const admin of admins) admin.disconnect()
  }
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }))
  const client = new Cluster(nodes, { redisOptions: { protocol: 2 } })
  clients.push(client)
  await client.ping()
  return { nodes, client, stop }
}
