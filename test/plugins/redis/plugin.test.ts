import { once } from 'node:events'
import net from 'node:net'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import t from 'tap'
import { tcpProxy } from '../../helpers/tcp-proxy.ts'
import { recordKey } from '../../../plugins/redis/keys.ts'
import { Payment } from '../../../plugins/core/engine/index.ts'
import { RedisStorageBackend, paywireRedis, redactRedisUrl, redisErrorCodes } from '../../../plugins/redis/index.ts'
import { REDIS_URL, deferred, newClient, testRedis } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'plugin')

/** QUIT resolves with Redis's OK; the socket closes right after. */
async function closed (redis: Redis): Promise<void> {
  if (redis.status !== 'end') await once(redis, 'end')
}

/** app.ready() as a plain promise. */
async function boot (app: FastifyInstance): Promise<void> {
  await app.ready()
}

t.test('boots against Redis and decorates app.paywireRedis', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix })
  await app.ready()
  t.ok(app.paywireRedis instanceof RedisStorageBackend)
  t.equal(app.paywireRedis.keyPrefix, prefix)
  t.equal(app.paywireRedis.client.status, 'ready', 'connected before boot finished')
  t.equal((app.paywireRedis.client as Redis).options.protocol, 2, 'RESP2 pinned')

  const storage = app.paywireRedis.createStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'BOOT-1' })
  await storage.update(payment)
  t.equal(await client.exists(recordKey(prefix, 'Payment', payment.id as string)), 1, 'writes under the key prefix')
})

t.test('an unreachable Redis fails boot with a coded error naming the URL without its password', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywireRedis, { url: 'redis://:s3cr3t@127.0.0.1:1' })
  const error = await app.ready().then(() => null, (error: Error) => error)
  t.ok(error instanceof redisErrorCodes.PAYWIRE_ERR_REDIS_UNREACHABLE)
  t.match(error, { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', statusCode: 500 })
  t.match(error?.message, 'redis://:***@127.0.0.1:1')
  t.match(error?.message, 'ECONNREFUSED')
  t.match(error?.cause, { code: 'ECONNREFUSED' }, 'the connection error is kept as the cause')
  t.notMatch(String((error?.cause as Error).message), 's3cr3t', 'the cause does not carry the password either')
  t.notMatch(error?.message, 's3cr3t')

  const noSuchDatabase = new URL(REDIS_URL)
  noSuchDatabase.pathname = '/100000'
  const wrongDatabase = Fastify()
  t.teardown(() => wrongDatabase.close())
  wrongDatabase.register(paywireRedis, { url: noSuchDatabase.href })
  await t.rejects(boot(wrongDatabase), { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', message: /DB index is out of range/ }, 'a failed handshake too')
})

t.test('REDIS_URL is the default URL', async (t) => {
  const saved = process.env.REDIS_URL
  t.teardown(() => {
    if (saved === undefined) delete process.env.REDIS_URL
    else process.env.REDIS_URL = saved
  })
  process.env.REDIS_URL = 'redis://:from-env@127.0.0.1:1/2'
  const fromEnv = Fastify()
  t.teardown(() => fromEnv.close())
  fromEnv.register(paywireRedis)
  await t.rejects(boot(fromEnv), { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', message: /redis:\/\/:\*\*\*@127\.0\.0\.1:1\/2 / })

  delete process.env.REDIS_URL
  const fallback = Fastify()
  t.teardown(() => fallback.close())
  fallback.register(paywireRedis, { connectTimeoutMs: 1000 })
  const error = await fallback.ready().then(() => null, (error: Error) => error)
  // Whether or not a Redis listens there, the plugin went to the documented default.
  if (error === null) t.match(fallback.paywireRedis.client.options, { host: '127.0.0.1', port: 6379 })
  else t.match(error.message, 'Redis at redis://127.0.0.1:6379 is unreachable')
})

t.test('a server that never answers fails boot after connectTimeoutMs, not with a plugin timeout', async (t) => {
  const silent = net.createServer((socket) => { t.teardown(() => socket.destroy()) })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => silent.close())
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywireRedis, { url: `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, connectTimeoutMs: 200 })
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', message: /no answer within 200 ms/ })
})

t.test('redactRedisUrl hides passwords, wherever the URL carries them', async (t) => {
  t.equal(redactRedisUrl('redis://:s3cr3t@db.example:6379/1'), 'redis://:***@db.example:6379/1')
  t.equal(redactRedisUrl('rediss://shop:p@ss:w%2Frd@db.example:6380'), 'rediss://shop:***@db.example:6380', 'up to the last @')
  t.equal(redactRedisUrl('shop:s3cr3t@db.example:6379'), 'shop:***@db.example:6379', 'without a scheme, as ioredis reads it')
  t.equal(redactRedisUrl('redis://db.example:6379?password=s3cr3t&db=2'), 'redis://db.example:6379?password=***&db=2')
  t.equal(redactRedisUrl('/var/run/redis.sock?password=s3cr3t'), '/var/run/redis.sock?password=***')
  t.equal(redactRedisUrl('redis://shop@db.example:6379'), 'redis://shop@db.example:6379', 'a user name alone is kept')
  t.equal(redactRedisUrl('redis://127.0.0.1:6379'), 'redis://127.0.0.1:6379')
})

t.test('a client the plugin created is closed with the app', async (t) => {
  const app = Fastify()
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix })
  await app.ready()
  const created = app.paywireRedis.client as Redis
  await app.close()
  await closed(created)
  t.equal(created.status, 'end')
})

t.test('a client passed in stays open on close, unless closeClient', async (t) => {
  const own = newClient()
  t.teardown(() => own.disconnect())
  const errorListeners = own.listenerCount('error')
  const app = Fastify()
  await app.register(paywireRedis, { client: own, keyPrefix: prefix })
  await app.ready()
  t.equal(app.paywireRedis.client, own)
  await app.close()
  t.equal(own.status, 'ready', 'still open')
  t.equal(await own.ping(), 'PONG')
  t.equal(own.listenerCount('error'), errorListeners, 'no listener left behind')

  const handedOver = Fastify()
  await handedOver.register(paywireRedis, { client: own, closeClient: true })
  await handedOver.ready()
  await handedOver.close()
  await closed(own)
  t.equal(own.status, 'end', 'closeClient: true closes it')

  const alreadyClosed = newClient()
  const early = Fastify()
  await early.register(paywireRedis, { client: alreadyClosed, closeClient: true })
  await early.ready()
  await alreadyClosed.quit()
  await early.close()
  await closed(alreadyClosed)
  t.equal(alreadyClosed.status, 'end', 'a client its owner closed first does not fail app.close()')
})

t.test('a lazy client passed in is connected at boot; one that cannot connect fails boot and is left to its owner', async (t) => {
  const lazy = new Redis(REDIS_URL, { lazyConnect: true, protocol: 2 })
  t.teardown(() => lazy.disconnect())
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywireRedis, { client: lazy, keyPrefix: prefix })
  await app.ready()
  t.equal(lazy.status, 'ready')

  const dead = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true })
  t.teardown(() => dead.disconnect())
  const failing = Fastify()
  t.teardown(() => failing.close())
  failing.register(paywireRedis, { client: dead })
  await t.rejects(boot(failing), { code: 'PAYWIRE_ERR_REDIS_UNREACHABLE', message: /Redis at redis:\/\/127\.0\.0\.1:1 is unreachable \(connect ECONNREFUSED/ })
  t.not(dead.status, 'end', 'not closed by the plugin')

  const socket = new Redis({ path: '/nonexistent/redis.sock', lazyConnect: true })
  t.teardown(() => socket.disconnect())
  const viaSocket = Fastify()
  t.teardown(() => viaSocket.close())
  viaSocket.register(paywireRedis, { client: socket })
  await t.rejects(boot(viaSocket), { message: /Redis at \/nonexistent\/redis\.sock is unreachable/ })
})

t.test('invalid options fail boot with a coded error naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ url: '' }, 'url'],
    // ioredis would read it as a socket path and fail later with a puzzling error.
    [{ url: 'http://127.0.0.1:6379' }, 'url'],
    [{ keyPrefix: 7 }, 'keyPrefix'],
    [{ connectTimeoutMs: 0 }, 'connectTimeoutMs'],
    [{ connectTimeoutMs: 1.5 }, 'connectTimeoutMs'],
    [{ client: {} }, 'client'],
    [{ closeClient: 'yes' }, 'closeClient'],
    [{ cluster: [] }, 'cluster'],
    [{ cluster: [{ host: '127.0.0.1', port: '7000' }] }, 'cluster'],
    [{ requireDurability: 1 }, 'requireDurability'],
    [{ url: REDIS_URL, tokenTtl: { capture: -1 } }, 'tokenTtl.capture']
  ]
  for (const [options, option] of cases) {
    const app = Fastify()
    app.register(paywireRedis, options)
    await t.rejects(boot(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: new RegExp(`"${option.replace('.', '\\.')}"`) }, JSON.stringify(options))
    await app.close()
  }
})

t.test('an unknown option fails boot, naming the nearest one', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywireRedis, { url: REDIS_URL, keyprefix: prefix } as never)
  await t.rejects(boot(app), {
    code: 'PAYWIRE_ERR_INVALID_OPTION',
    message: 'Invalid option "keyprefix": is not an option of the paywire-redis plugin (did you mean keyPrefix?); its options: url, client, closeClient, cluster, requireDurability, connectTimeoutMs, commandTimeoutMs, keyPrefix, tokenTtl, indexes'
  })
})

t.test('a second registration is refused before it opens a connection', async (t) => {
  const connections: net.Socket[] = []
  const server = net.createServer((socket) => { connections.push(socket) })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => {
    for (const socket of connections) socket.destroy()
    server.close()
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix })
  app.register(paywireRedis, { url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}`, connectTimeoutMs: 200 })
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_REDIS_ALREADY_REGISTERED' })
  t.equal(connections.length, 0, 'the second client never connected')
})

/** A TCP hop between the app and the real Redis, which the test can cut and restore. */
async function cuttableProxy () {
  const target = new URL(REDIS_URL)
  const proxy = await tcpProxy(target.hostname, Number(target.port || 6379))
  const url = new URL(REDIS_URL)
  url.hostname = '127.0.0.1'
  url.port = String(proxy.port)
  return { ...proxy, url: url.href }
}

t.test('after boot, a lost connection is logged (without the password), and the app works again once Redis is back', async (t) => {
  const proxy = await cuttableProxy()
  t.teardown(() => proxy.close())
  const logged: Array<Record<string, any>> = []
  const firstError = deferred()
  const stream = new Writable({
    write (chunk, _encoding, callback) {
      const line = JSON.parse(String(chunk))
      logged.push(line)
      if (line.msg === 'Redis connection error') firstError.resolve()
      callback()
    }
  })
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: proxy.url, keyPrefix: prefix })
  await app.ready()
  const storage = app.paywireRedis.createStorage(Payment)

  await proxy.cut()
  await firstError.promise
  t.match(logged[0], { level: 50, msg: 'Redis connection error', redis: proxy.url.replace(/:[^:@/]*@/, ':***@'), err: { message: /ECONNREFUSED|ECONNRESET/ } })

  await proxy.restore()
  const payment = storage.create()
  await storage.update(payment)
  t.equal((await storage.find(payment.id as string))?.id, payment.id, 'ioredis reconnected by itself')

  await proxy.cut()
  await app.close()
  // Reaching here is the proof that close finished while Redis is away; the log listener is gone
  // (a no-op one stays, so ioredis prints nothing: see close-unreachable.test.ts).
  t.notOk(app.paywireRedis.client.listeners('error').some((listener) => listener.name === 'paywireRedisError'),
    'app.close() finishes while Redis is away, and stops logging its errors')
})
