/*
 * Whether payments in Redis survive a restart is read at boot (CONFIG GET appendonly,
 * save): a coded warning when they would not, a boot error with requireDurability, and
 * silence when Redis only holds tokens or forbids CONFIG.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { Payment, paywire } from '../../../plugins/core/index.ts'
import { RedisStorageBackend, paywireRedis, type PaywireRedisOptions } from '../../../plugins/redis/index.ts'
import { recordKey } from '../../../plugins/redis/keys.ts'
import { ownRedis } from '../../helpers/redis-server.ts'
import { REDIS_URL } from './fixtures.ts'

interface Logged {
  app: FastifyInstance
  lines: Array<Record<string, unknown>>
}

/** An app that keeps its payments in Redis (or only its tokens), with its log lines at info and above. */
function shop (redis: PaywireRedisOptions, { payments = true } = {}): Logged {
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  app.register(paywireRedis, { keyPrefix: 'durability-test:', ...redis })
  app.register(async (scope) => {
    await scope.register(paywire, payments
      ? { baseUrl: 'https://shop.example', backend: app.paywireRedis }
      : { baseUrl: 'https://shop.example', tokenStorage: app.paywireRedis.createTokenStorage() })
  })
  return { app, lines }
}

async function boot (app: FastifyInstance): Promise<void> {
  await app.ready()
}

const warnings = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.code === 'PAYWIRE_WARN_REDIS_NOT_DURABLE')

t.test('payments in a Redis without persistence: one coded warning, naming what is missing', async (t) => {
  const { url } = await ownRedis(t)
  const { app, lines } = shop({ url })
  await boot(app)
  t.match(warnings(lines), [{ level: 40, redis: url, problem: /no persistence \(appendonly no, save ""\)/, msg: /would lose them on a restart/ }])
})

t.test('RDB snapshots only: warned, with the snapshot schedule', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'paywire-rdb-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const { url } = await ownRedis(t, ['--dir', dir, '--save', '900 1'])
  const { app, lines } = shop({ url })
  await boot(app)
  t.match(warnings(lines), [{ problem: /RDB snapshots only \(appendonly no, save "900 1"\): writes since the last snapshot are lost/ }])
})

t.test('requireDurability turns the warning into a boot error', async (t) => {
  const { url } = await ownRedis(t)
  const { app } = shop({ url, requireDurability: true })
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_REDIS_NOT_DURABLE', statusCode: 500, message: /would lose them on a restart .*Turn on appendonly/ })
})

t.test('an append-only Redis boots without a word, also with requireDurability', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'paywire-aof-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const { url } = await ownRedis(t, ['--dir', dir, '--appendonly', 'yes'])
  const { app, lines } = shop({ url, requireDurability: true })
  await boot(app)
  t.same(lines.filter((line) => (line.level as number) >= 40), [])
})

t.test('Redis holding only tokens is not checked', async (t) => {
  const { app, lines } = shop({ url: REDIS_URL, requireDurability: true }, { payments: false })
  await boot(app)
  t.same(warnings(lines), [])
})

t.test('a Redis that forbids CONFIG: boot goes on, and says it could not check', async (t) => {
  const { url } = await ownRedis(t, ['--rename-command', 'CONFIG', ''])
  const { app, lines } = shop({ url, requireDurability: true })
  await boot(app)
  t.same(warnings(lines), [])
  t.match(lines, [{ level: 30, msg: /Redis persistence could not be read \(CONFIG is not allowed\)/ }])
})

t.test('payment keys never expire: a write clears a lifetime set by hand', async (t) => {
  const { admin } = await ownRedis(t)
  const payments = new RedisStorageBackend(admin, { keyPrefix: 'ttl:' }).createStorage(Payment)
  const payment = Object.assign(payments.create(), { number: 'KEPT', totalAmount: 100, currencyCode: 'EUR' })
  await payments.update(payment)
  const key = recordKey('ttl:', 'Payment', payment.id as string)
  t.equal(await admin.pttl(key), -1, 'no lifetime')
  await admin.pexpire(key, 60_000)
  payment.description = 'captured'
  await payments.update(payment)
  t.equal(await admin.pttl(key), -1, 'the next write stores it without one')
})
