/*
 * The Redis password and the data Paywire writes never show in logs (trace level), errors or
 * inspect(): at boot, after a password rotation, under OOM. A redis-server of the test's own
 * plays the server, since its password changes and its memory runs out.
 */
import { inspect } from 'node:util'
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { Payment, paywire } from '../../../plugins/core/index.ts'
import { paywireRedis } from '../../../plugins/redis/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'
import { ownRedis } from '../../helpers/redis-server.ts'

const PASSWORD = 'canary-redis-Pa55word-7f3e'
const WRONG = 'canary-wrong-Pa55word-91c2'
const EMAIL = 'canary.payer@example.com'

const server = await ownRedis(t, [], { password: PASSWORD })

/** Everything a person or a log collector could see of an error. */
function everything (error: unknown): string {
  return [inspect(error, { depth: Infinity }), inspect((error as Error).cause, { depth: Infinity }), String(error), JSON.stringify(error)].join('\n')
}

t.test('a refused password fails boot without showing it, in every way of giving it', async (t) => {
  const host = server.url.slice('redis://'.length)
  for (const url of [`redis://:${WRONG}@${host}`, `redis://default:${WRONG}@${host}/0`, `redis://${host}?password=${WRONG}`]) {
    const log = captureLog()
    const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
    app.register(paywireRedis, { url })
    const error = await app.ready().then(() => null, (error: unknown) => error)
    t.match(error, { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', message: /WRONGPASS|invalid password/i }, url.replace(WRONG, '<WRONG>'))
    app.log.error({ err: error }, 'boot failed')
    await app.close()
    t.notMatch(everything(error), WRONG, 'the error, its cause and inspect() of both')
    t.notMatch(log.text(), WRONG, 'the log, the application logging the boot error included')
  }
})

t.test('after a password rotation, reconnection errors are logged without the password', async (t) => {
  const log = captureLog()
  const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: server.url.replace('redis://', `redis://:${PASSWORD}@`), keyPrefix: 'rotation:' })
  await app.ready()
  t.notMatch(inspect(app.paywireRedis, { depth: Infinity }), PASSWORD, 'inspect(app.paywireRedis)')
  t.notMatch(inspect(app.paywireRedis.client, { depth: Infinity }), PASSWORD, 'inspect() of the client')
  t.notMatch(JSON.stringify(app.paywireRedis.client.options), PASSWORD, 'the client\'s options as JSON')
  t.equal((app.paywireRedis.client.options as { password?: string }).password, PASSWORD, 'ioredis still reads it to reconnect')

  await server.admin.config('SET', 'requirepass', 'rotated-password')
  await server.admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes')
  // ioredis retries; each failed AUTH is an 'error' event the plugin logs.
  while (!/Redis connection error/.test(log.text())) await new Promise((resolve) => setTimeout(resolve, 20))
  const storage = app.paywireRedis.createStorage(Payment)
  const failure = await storage.update(Object.assign(storage.create(), { clientEmail: EMAIL })).then(() => null, (error: unknown) => error)
  t.ok(failure instanceof Error, 'writes fail while the password is wrong')
  t.notMatch(everything(failure), EMAIL)
  await server.admin.config('SET', 'requirepass', PASSWORD)
  t.match(log.text(), /"msg":"Redis connection error"/)
  t.notMatch(log.text(), PASSWORD)
})

t.test('under OOM, the failed write reaches neither the route\'s log nor the application\'s error', async (t) => {
  const log = captureLog()
  const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
  t.teardown(async () => {
    await app.close()
    await server.admin.config('SET', 'maxmemory', '0')
  })
  await app.register(paywireRedis, { url: server.url.replace('redis://', `redis://:${PASSWORD}@`), keyPrefix: 'oom:' })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  let prepareError: unknown
  app.post('/checkout', async () => {
    const payment = Object.assign(app.paywire.getStorage(Payment).create(), { number: 'OOM-2', totalAmount: 100, currencyCode: 'EUR', clientEmail: EMAIL })
    try {
      await app.paywire.prepareCapture('cash', payment, 'done')
    } catch (error) {
      prepareError = error
      throw error
    }
    return 'never'
  })
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'OOM-1', totalAmount: 100, currencyCode: 'EUR', clientEmail: EMAIL })
  await storage.update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')

  await server.admin.config('SET', 'maxmemory-policy', 'noeviction')
  await server.admin.config('SET', 'maxmemory', '1')
  const capture = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(capture.statusCode, 503)
  t.notMatch(capture.body, /OOM|EMAIL|canary/)
  t.match(log.text(), /"msg":"payment route failed"/)
  t.match(log.text(), /OOM command not allowed/, 'the reason is logged')
  t.match(log.text(), /"command":\{"name":"eval(sha)?"\}/, 'with the command\'s name')
  t.notMatch(log.text(), EMAIL, 'never the payment\'s JSON')

  const checkout = await app.inject({ method: 'POST', url: '/checkout' })
  t.equal(checkout.statusCode, 503)
  t.ok(prepareError instanceof Error)
  t.notMatch(everything(prepareError), EMAIL, 'the error the application\'s own route gets')
  t.notMatch(log.text(), EMAIL, 'the application\'s own error log')
})
