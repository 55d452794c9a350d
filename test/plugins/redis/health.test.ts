/*
 * The health route on the Redis backend: PING through the plugin's own client. A
 * redis-server of the test's own (with a password) is stopped, never the shared one.
 */
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import { paywireRedis } from '../../../plugins/redis/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { ownRedis } from '../../helpers/redis-server.ts'

const PASSWORD = 'canary-health-Pa55word-4d1a'

t.test('Redis answers: 200; Redis stopped: 503 within the health timeout, the password nowhere in the answer', async (t) => {
  const server = await ownRedis(t, [], { password: PASSWORD })
  const log = captureLog()
  const app = Fastify({ logger: { level: 'info', stream: log.stream } })
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: `redis://:${PASSWORD}@127.0.0.1:${server.port}`, keyPrefix: 'health:' })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, health: { timeoutMs: 300 }, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()

  const up = await app.inject({ url: '/payment/health' })
  t.equal(up.statusCode, 200)
  t.match(up.json(), {
    status: 'ok',
    checks: { storage: { status: 'ok', backend: 'RedisStorageBackend' }, events: { status: 'ok', delivering: true, backlog: 0, dead: 0 } }
  })

  await server.stop()
  // ioredis queues commands while it reconnects: without the timeout the probe would wait for its command timeout and retries.
  const down = await app.inject({ url: '/payment/health' })
  t.equal(down.statusCode, 503)
  t.match(down.json(), {
    status: 'down',
    checks: { storage: { status: 'down', backend: 'RedisStorageBackend', error: String }, events: { status: 'down', error: String } }
  })
  t.notMatch(down.body, PASSWORD)
  t.notMatch(down.body, /redis:\/\//, 'no connection string')
  t.notMatch(up.body, PASSWORD)
  const direct = await app.paywire.health({ timeoutMs: 100 })
  t.equal(direct.status, 'down', 'app.paywire.health() says the same')
  t.notMatch(JSON.stringify(direct), PASSWORD)
  t.notMatch(log.text(), PASSWORD, 'nor in the log')
})
