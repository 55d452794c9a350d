import { setImmediate as tick } from 'node:timers/promises'
import { Redis } from 'ioredis'
import t from 'tap'
import { Payment } from '../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { decodeRecord, recordKey, tokenKey } from '../../../plugins/redis/keys.ts'
import { ownRedis } from '../../helpers/redis-server.ts'
import { tcpProxy } from '../../helpers/tcp-proxy.ts'
import { buildTestApp, pathOf, storedPayment } from '../core/fixtures.ts'
import { REDIS_URL, deleteKeys } from './fixtures.ts'

/** The plugin's own client settings, with a short command timeout for the test. */
function client (port: number, host = '127.0.0.1'): Redis {
  const redis = new Redis({ port, host, protocol: 2, maxRetriesPerRequest: 3, commandTimeout: 300, enableAutoPipelining: true })
  redis.on('error', () => {})
  return redis
}

t.test('a silent Redis answers a coded 503 within the command timeout; once it talks again the buyer\'s retry works', async (t) => {
  const target = new URL(REDIS_URL)
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379))
  t.teardown(() => proxy.close())
  const redis = client(proxy.port)
  const prefix = `test:silent:${process.pid}:`
  t.teardown(async () => {
    await deleteKeys(redis, prefix)
    redis.disconnect()
  })
  const { app } = await buildTestApp({ backend: new RedisStorageBackend(redis, { keyPrefix: prefix }) })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { clientEmail: 'buyer@example.com' })
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')

  proxy.freeze()
  const silent = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(silent.statusCode, 503)
  t.equal(silent.headers['retry-after'], '1')
  t.match(silent.json(), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', message: 'The Redis storage is unavailable; nothing was written. Retry shortly.' })
  t.notMatch(silent.body, token.hash.slice(8), 'no command arguments in the answer')

  proxy.thaw()
  const retried = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(retried.statusCode, 302, 'the late claim was released after it: the payment is not left busy')
  t.equal(retried.headers.location, token.afterUrl)
})

t.test('Redis out of memory at the commit: a coded 503, nothing half-written, the token and the payment free for the retry', async (t) => {
  const own = await ownRedis(t)
  const redis = client(own.port)
  t.teardown(() => redis.disconnect())
  const prefix = 'oom:'
  const { app, script } = await buildTestApp({ backend: new RedisStorageBackend(redis, { keyPrefix: prefix }) })
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  let release = () => {}
  script.gate = new Promise<void>((resolve) => { release = resolve })

  const pending = app.inject({ url: pathOf(token.targetUrl) })
  while (script.calls.capture !== 1) await tick()
  // The gateway ran; Redis fills up before the request commits.
  await own.admin.config('SET', 'maxmemory', '1')
  release()
  const failed = await pending
  t.equal(failed.statusCode, 503)
  t.match(failed.json(), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
  t.notMatch(failed.body, /OOM|maxmemory/, 'the server\'s reason is for the logs, not the buyer')
  t.notMatch(failed.body, /ORDER-1|"details"/, 'the record the script carried is not in the answer')
  t.equal(decodeRecord(await own.admin.get(recordKey(prefix, 'Payment', payment.id as string)) as string).version, 1, 'the payment was not written')
  t.notMatch(await own.admin.get(tokenKey(prefix, token.hash)), /^used:/, 'the token was not used up')
  // The 503 does not wait for the release (it is sent after the failed commit, on the app's
  // connection): a PING on that connection answers once Redis has run it.
  await redis.ping()
  t.same(await own.admin.keys('*:claim'), [], 'the claim was released')

  await own.admin.config('SET', 'maxmemory', '0')
  script.gate = undefined
  const retried = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(retried.statusCode, 302, 'the buyer\'s retry works at once')
  t.equal(script.calls.capture, 2)
  t.match(await app.paywire.getStorage(Payment).find(payment.id as string), { details: { status: 'capture' } })
})
