import { setImmediate as tick } from 'node:timers/promises'
import Fastify from 'fastify'
import t from 'tap'
import { paywireRedis } from '../../../plugins/redis/index.ts'
import { ownRedis } from '../../helpers/redis-server.ts'

/*
 * An app shut down while its Redis is down (a deploy during an outage, a test's teardown)
 * must close at once and quietly: ioredis prints every error event nobody listens to
 * ("[ioredis] Unhandled error event: … ECONNREFUSED") straight to stderr.
 */
t.test('closing while Redis is down resolves promptly and prints nothing', async (t) => {
  const redis = await ownRedis(t)
  const app = Fastify()
  await app.register(paywireRedis, { url: redis.url })
  await app.ready()
  const client = app.paywireRedis.client
  await redis.stop()
  // The client noticed: it is between reconnect attempts, and a command waits for one.
  // (Not events.once: it would reject on the error events the plugin's listener already logs.)
  while (client.status !== 'reconnecting') await new Promise((resolve) => client.once('reconnecting', resolve))
  const pending = client.get('test:close:pending')
  const rejected = t.rejects(pending, 'the waiting command is refused, not left hanging')
  await tick()

  const written: string[] = []
  const write = process.stderr.write
  t.teardown(() => { process.stderr.write = write })
  process.stderr.write = function capture (chunk: string | Uint8Array): boolean {
    written.push(String(chunk))
    return true
  } as typeof process.stderr.write
  const started = performance.now()
  await app.close()
  const took = performance.now() - started
  await rejected
  process.stderr.write = write

  t.ok(took < 1500, `closed in ${Math.round(took)} ms, not after the reconnects or a QUIT's timeout`)
  t.same(written.filter((line) => line.includes('ioredis')), [], 'no unhandled error event printed')
  t.ok(client.listenerCount('error') > 0, 'a listener stays for errors after close')
})
