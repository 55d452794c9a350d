import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Starts a test's own HTTP server on a free loopback port and closes it at the test's teardown,
 * keep-alive connections included (a client's pool would otherwise hold the close open).
 */
export async function listenOnLoopback (t: { teardown: (fn: () => unknown) => void }, server: Server): Promise<number> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })
  return (server.address() as AddressInfo).port
}
