import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { Payment, paywire } from '../../../plugins/core/index.ts'
import { paywireRedis } from '../../../plugins/redis/index.ts'
import { REDIS_URL, deleteKeys, socketWrites } from './fixtures.ts'

const prefix = `test:round-trips:${process.pid}:`

/*
 * The round-trip budget of a payment on the plugin's own client (auto-pipelining on): what
 * BENCHMARKS.md measures under load, checked one flow at a time by counting socket writes
 * (each is one round trip: the next write waits for the answer).
 */
t.test('a whole capture flow on Redis: prepare 1 round trip, capture 3, done 2', async (t) => {
  const app = Fastify()
  t.teardown(async () => {
    await deleteKeys(app.paywireRedis.client, prefix)
    await app.close()
  })
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()
  const client = app.paywireRedis.client

  const payment = Object.assign(app.paywire.getStorage(Payment).create(), { number: 'RT-1', totalAmount: 1999, currencyCode: 'EUR' })
  let token = await app.paywire.prepareCapture('cash', payment, 'done')
  t.equal(await socketWrites(client, async () => { token = await app.paywire.prepareCapture('cash', payment, 'done') }), 1,
    'the payment and both tokens in one write')

  const url = new URL(token.targetUrl)
  let location = ''
  const capture = await socketWrites(client, async () => {
    const response = await app.inject({ url: url.pathname })
    t.equal(response.statusCode, 302)
    location = response.headers.location as string
  })
  t.equal(capture, 3, 'claim the token, load the payment, then its save and the token\'s invalidation together')
  t.equal(await client.exists(`${prefix}token:${token.hash}`), 0, 'the token is gone')
  t.match(JSON.parse(await client.get(`${prefix}model:Payment:${payment.id}`) as string), { details: { status: 'captured' } })

  const done = await socketWrites(client, async () => {
    const response = await app.inject({ url: new URL(location).pathname, headers: { accept: 'application/json' } })
    t.equal(response.json().status, 'captured')
  })
  t.equal(done, 2, 'find the token, load the payment; nothing written back')
})
