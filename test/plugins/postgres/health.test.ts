/*
 * The health route on the PostgreSQL backend: SELECT 1 through the plugin's own pool. The
 * plugin reaches the shared server through a proxy of the test's own, which is cut (a port
 * where nothing listens) or frozen (a server that stalls): the shared server is never stopped.
 */
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import { paywirePostgres } from '../../../plugins/postgres/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { proxyTo } from '../../helpers/tcp-proxy.ts'
import { DATABASE_URL, testPostgres } from './fixtures.ts'

const PASSWORD = 'canary-health-Pg-pa55-8b2c'

t.test('PostgreSQL answers: 200; its port closed, or the server stalled: 503 within the health timeout; the password nowhere', async (t) => {
  const { schema } = await testPostgres(t, 'health')
  const proxy = await proxyTo(t, DATABASE_URL)
  const target = new URL(DATABASE_URL)
  // The test server trusts loopback: the password is sent only if asked, and must show nowhere either way.
  const connectionString = `postgres://${target.username}:${PASSWORD}@127.0.0.1:${proxy.port}${target.pathname}`
  const log = captureLog()
  const app = Fastify({ logger: { level: 'info', stream: log.stream } })
  t.teardown(async () => {
    proxy.thaw()
    await proxy.restore()
    await app.close()
  })
  await app.register(paywirePostgres, { connectionString, schema, queryTimeoutMs: 2000 })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywirePostgres, health: { timeoutMs: 300 }, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()

  const up = await app.inject({ url: '/payment/health' })
  t.equal(up.statusCode, 200)
  t.match(up.json(), {
    status: 'ok',
    checks: { storage: { status: 'ok', backend: 'PostgresStorageBackend' }, events: { status: 'ok', delivering: true, backlog: 0, dead: 0 } }
  })

  await proxy.cut()
  const closed = await app.inject({ url: '/payment/health' })
  t.equal(closed.statusCode, 503)
  t.match(closed.json(), { status: 'down', checks: { storage: { status: 'down', backend: 'PostgresStorageBackend', error: String }, events: { status: 'down' } } })

  await proxy.restore()
  const back = await app.inject({ url: '/payment/health' })
  t.equal(back.statusCode, 200, 'up again once the server is reachable')

  proxy.freeze()
  const stalled = await app.inject({ url: '/payment/health' })
  t.equal(stalled.statusCode, 503)
  t.match(stalled.json(), { status: 'down', checks: { storage: { status: 'down', error: 'timeout' }, events: { status: 'down', error: 'timeout' } } },
    'a stalled server answers nothing: the checks give up after timeoutMs')

  for (const answer of [up, closed, back, stalled]) {
    t.notMatch(answer.body, PASSWORD)
    t.notMatch(answer.body, /postgres(ql)?:\/\//, 'no connection string')
  }
  t.notMatch(log.text(), PASSWORD, 'nor in the log')
})
