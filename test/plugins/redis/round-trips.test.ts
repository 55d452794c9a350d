import Fastify from 'fastify'
import t from 'tap'
import type { Redis } from 'ioredis'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { Payment, paywire, type PaymentSearch } from '../../../plugins/core/index.ts'
import { paywireRedis } from '../../../plugins/redis/index.ts'
import { decodeRecord, recordKey, tokenKey } from '../../../plugins/redis/keys.ts'
import { REDIS_URL, deleteKeys, socketWrites } from './fixtures.ts'

const prefix = `test:round-trips:${process.pid}:`

/*
 * The round-trip budget of a payment on the plugin's own client (auto-pipelining on): what
 * BENCHMARKS.md measures under load, checked one flow at a time by counting socket writes
 * (each is one round trip: the next write waits for the answer).
 */
t.test('a whole capture flow on Redis: prepare 1 round trip, capture 2, done 1', async (t) => {
  const app = Fastify()
  t.teardown(async () => {
    await deleteKeys(app.paywireRedis.client as Redis, prefix)
    await app.close()
  })
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()
  const client = app.paywireRedis.client as Redis

  // One whole flow first: a server that never ran Paywire's scripts answers the first EVALSHA
  // of each with NOSCRIPT, and the EVAL that follows would be counted as a round trip.
  const warmUp = Object.assign(app.paywire.getStorage(Payment).create(), { number: 'RT-0', totalAmount: 100, currencyCode: 'EUR' })
  const warmUpToken = await app.paywire.prepareCapture('cash', warmUp, 'done')
  const warmUpDone = (await app.inject({ url: new URL(warmUpToken.targetUrl).pathname })).headers.location as string
  await app.inject({ url: new URL(warmUpDone).pathname })

  const payment = Object.assign(app.paywire.getStorage(Payment).create(), { number: 'RT-1', totalAmount: 1999, currencyCode: 'EUR' })
  let token = warmUpToken
  t.equal(await socketWrites(client, async () => { token = await app.paywire.prepareCapture('cash', payment, 'done') }), 1,
    'the payment and both tokens in one write')

  const url = new URL(token.targetUrl)
  let location = ''
  const capture = await socketWrites(client, async () => {
    const response = await app.inject({ url: url.pathname })
    t.equal(response.statusCode, 302)
    location = response.headers.location as string
  })
  t.equal(capture, 2, 'claim the token\'s payment and read it in one script, then one commit: its save, the token used up, the claim released')
  t.match(await client.get(tokenKey(prefix, token.hash)), /^used:/, 'the token is used up')
  t.match(JSON.parse(decodeRecord(await client.get(recordKey(prefix, 'Payment', payment.id as string)) as string).json), { details: { status: 'captured' } })
  t.same(await client.keys(`${prefix}*:claim`), [], 'the claim was released')

  const done = await socketWrites(client, async () => {
    const response = await app.inject({ url: new URL(location).pathname, headers: { accept: 'application/json' } })
    t.equal(response.json().status, 'captured')
  })
  t.equal(done, 1, 'the token and its payment read in one script; nothing written back')
})

t.test('a payment naming its gateway: each write also moves its search facets, in the same write as its commit', async (t) => {
  const app = Fastify()
  const own = `${prefix}facets:`
  t.teardown(async () => {
    await deleteKeys(app.paywireRedis.client as Redis, own)
    await app.close()
  })
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: own })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()
  const client = app.paywireRedis.client as Redis
  const flow = async (number: string) => {
    const payment = Object.assign(app.paywire.getStorage(Payment).create(), { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
    let token = null as unknown as Awaited<ReturnType<typeof app.paywire.prepareCapture>>
    const prepare = await socketWrites(client, async () => { token = await app.paywire.prepareCapture('cash', payment, 'done') })
    const capture = await socketWrites(client, async () => { await app.inject({ url: new URL(token.targetUrl).pathname }) })
    return { prepare, capture }
  }
  await flow('RT-FACETS-0') // loads the scripts
  t.same(await flow('RT-FACETS-1'), { prepare: 1, capture: 2 }, 'the record, tokens and claim as before, the list, indexes and facets right behind them')
  const payments = app.paywire.getStorage(Payment) as unknown as PaymentSearch
  t.equal((await payments.searchPayments({ first: 5, status: ['captured'] })).ids.length, 2)
})
