/*
 * A TCP proxy in front of a real server (Redis, PostgreSQL) that a test controls: it can
 * cut (connections dropped, new ones refused), freeze (connections open, traffic held back
 * until thawed: a server that stalls), silence (traffic dropped: a server gone mute), drop
 * the next answer (the connection dies after the server did the work), and restore.
 */
import { once } from 'node:events'
import net from 'node:net'

export interface TcpProxy {
  port: number
  /** redis://127.0.0.1:<port> style URL of the proxy, for a target given as a URL. */
  url: string
  /** Drops every connection; new ones are refused (or nothing listens) until restore(). */
  cut (): Promise<void>
  /** Forwards again; listens again after a cut. */
  restore (): Promise<void>
  /** Holds traffic back, both ways, until thaw(). */
  freeze (): void
  thaw (): void
  /** Drops traffic both ways until restore(). */
  silence (): void
  /** The next answer from the server is not forwarded: both ends are closed instead. Resolves then. */
  dropNextAnswer (): Promise<void>
  close (): Promise<void>
}

interface Teardown {
  teardown (fn: () => Promise<void>): void
}

/** A proxy to a `redis://host:port` (or any scheme://host:port) URL, closed at teardown. */
export async function proxyTo (t: Teardown, target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target)
  const proxy = await tcpProxy(hostname, Number(port), target)
  t.teardown(() => proxy.close())
  return proxy
}

export async function tcpProxy (targetHost: string, targetPort: number, targetUrl = `tcp://${targetHost}:${targetPort}`): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  let mode: 'pass' | 'frozen' | 'silent' = 'pass'
  let dropAnswer: (() => void) | undefined
  const held: Array<() => void> = []
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('error', () => socket.destroy())
      socket.on('close', () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    const forward = (to: net.Socket, chunk: Buffer, answer: boolean) => {
      if (mode === 'silent') return
      if (mode === 'frozen') {
        held.push(() => forward(to, chunk, answer))
        return
      }
      if (answer && dropAnswer !== undefined) {
        const dropped = dropAnswer
        dropAnswer = undefined
        client.destroy()
        upstream.destroy()
        dropped()
        return
      }
      if (!to.destroyed) to.write(chunk)
    }
    client.on('data', (chunk: Buffer) => forward(upstream, chunk, false))
    upstream.on('data', (chunk: Buffer) => forward(client, chunk, true))
  })
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  await listen(0)
  const port = (server.address() as net.AddressInfo).port
  const url = new URL(targetUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)
  return {
    port,
    url: url.href.replace(/\/$/, ''),
    async cut () {
      const closed = server.listening ? once(server, 'close') : Promise.resolve()
      server.close()
      for (const socket of sockets) socket.destroy()
      await closed
    },
    async restore () {
      mode = 'pass'
      if (!server.listening) await listen(port)
    },
    freeze () { mode = 'frozen' },
    thaw () {
      mode = 'pass'
      for (const send of held.splice(0)) send()
    },
    silence () { mode = 'silent' },
    dropNextAnswer: () => new Promise<void>((resolve) => { dropAnswer = resolve }),
    close: async () => {
      for (const socket of sockets) socket.destroy()
      if (server.listening) {
        const closed = once(server, 'close')
        server.close()
        await closed
      }
    }
  }
}
