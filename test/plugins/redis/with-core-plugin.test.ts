/*
 * The paywire plugin with the Redis backend, over real loopback HTTP and app.inject:
 * payments and tokens live in Redis, so two instances on one Redis work as one.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { request } from 'undici'
import { Payment, paywire, type Capture, type PaywireBuilder, type Token } from '../../../plugins/core/index.ts'
import { CaptureAction, OfflineGatewayFactory, offlineGateway } from '../../../gateways/offline/index.ts'
import { paywireRedis, type PaywireRedisOptions } from '../../../plugins/redis/index.ts'
import { decodeRecord, recordKey, tokenKey as redisTokenKey } from '../../../plugins/redis/keys.ts'
import { REDIS_URL, deferred, testRedis, untilExpired, type Deferred } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'with-core')

/** Counts the captures that reach the gateway and holds them until the test opens the gate. */
interface Probe {
  calls: number
  entered: Deferred
  gate: Promise<void>
}

/** The offline gateway, with a capture that is counted and waits. */
class SlowOfflineGatewayFactory extends OfflineGatewayFactory {
  readonly probe: Probe

  constructor (probe: Probe) {
    super()
    this.probe = probe
  }

  override getActions () {
    const probe = this.probe
    class SlowCaptureAction extends CaptureAction {
      override async execute (request: Capture): Promise<void> {
        probe.calls++
        probe.entered.resolve()
        await probe.gate
        super.execute(request)
      }
    }
    return super.getActions().map((action) => action === CaptureAction ? SlowCaptureAction : action)
  }
}

interface Shop {
  app: FastifyInstance
  origin: string
}

async function buildShop (redisOptions: PaywireRedisOptions = {}, configure?: (builder: PaywireBuilder) => void): Promise<Shop> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: prefix, ...redisOptions })
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    backend: app.paywireRedis,
    // The slow gateway only where its factory is registered: boot builds every gateway.
    gateways: { cash: { factory: 'offline' }, ...(configure === undefined ? {} : { slow: { factory: 'slow-offline' } }) },
    configure
  })
  await app.register(offlineGateway)
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, origin }
}

async function preparePayment (app: FastifyInstance, gateway = 'cash'): Promise<{ payment: Payment, token: Token }> {
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: `ORDER-${Math.random()}`, totalAmount: 2500, currencyCode: 'EUR', details: { paid: true } })
  await storage.update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken(gateway, payment, 'done')
  return { payment, token }
}

/** Requests a token URL from a running shop, the way the buyer's browser would (no redirect following). */
async function visit (shop: Shop, tokenUrl: string | null, accept = 'application/json') {
  const url = new URL(tokenUrl as string)
  const response = await request(`${shop.origin}${url.pathname}${url.search}`, { headers: { accept } })
  const text = await response.body.text()
  return { statusCode: response.statusCode, location: response.headers.location, text, json: () => JSON.parse(text) }
}

function tokenKey (url: string | null): string {
  return redisTokenKey(prefix, new URL(url as string).pathname.split('/').pop() as string)
}

async function storedRecord (id: string): Promise<Record<string, any>> {
  return JSON.parse(decodeRecord(await client.get(recordKey(prefix, 'Payment', id)) as string).json)
}

t.test('a full capture over HTTP keeps the payment and its tokens in Redis', async (t) => {
  const shop = await buildShop()
  const { payment, token } = await preparePayment(shop.app)
  t.equal(await client.exists(recordKey(prefix, 'Payment', payment.id as string)), 1, 'the payment is in Redis')
  t.equal(await client.exists(tokenKey(token.targetUrl)), 1, 'the capture token is in Redis')
  t.equal(await client.exists(tokenKey(token.afterUrl)), 1, 'the done token is in Redis')
  t.same(await client.zrange(`${prefix}index:{Payment}:number:${payment.number}`, '0', '-1'), [payment.id], 'findable by number')

  const capture = await visit(shop, token.targetUrl)
  t.equal(capture.statusCode, 302)
  t.equal(capture.location, token.afterUrl)
  t.match(await client.get(tokenKey(token.targetUrl)), /^used:/, 'the capture token is used up')
  t.same(await client.keys(`${prefix}*:claim`), [], 'and the payment\'s claim released')
  t.match(await storedRecord(payment.id as string), { details: { status: 'captured', amount: 2500 } })

  const done = await visit(shop, token.afterUrl)
  t.equal(done.statusCode, 200)
  t.match(done.json(), { status: 'captured', payment: { number: payment.number, totalAmount: 2500, currencyCode: 'EUR' } })
  const page = await shop.app.inject({ url: new URL(token.afterUrl as string).pathname, headers: { accept: 'text/html' } })
  t.match(page.body, '<span class="status" data-status="captured">Paid</span>')
  t.equal(await client.exists(tokenKey(token.afterUrl)), 1, 'the done page can be read again')
  t.equal((await shop.app.paywire.getStorage(Payment).findBy({ number: payment.number }))[0]?.details.status, 'captured')
})

t.test('a capture token works once', async (t) => {
  const shop = await buildShop()
  const { token } = await preparePayment(shop.app)
  t.equal((await visit(shop, token.targetUrl)).statusCode, 302)
  const again = await visit(shop, token.targetUrl)
  t.equal(again.statusCode, 303, 'a reload goes to the result instead')
  t.equal(again.location, token.afterUrl)
  const injected = await shop.app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(injected.statusCode, 303)
})

t.test('an expired capture token is a 404, the done token lives on', async (t) => {
  const shop = await buildShop({ tokenTtl: { capture: 1 } })
  const { token } = await preparePayment(shop.app)
  const pttl = await client.pttl(tokenKey(token.targetUrl))
  t.ok(pttl > 0 && pttl <= 1000, `the configured one second (${pttl} ms)`)
  await untilExpired(client, tokenKey(token.targetUrl))
  const expired = await visit(shop, token.targetUrl)
  t.equal(expired.statusCode, 404)
  t.equal(expired.json().code, 'PAYWIRE_ERR_TOKEN_NOT_FOUND')
  t.equal((await visit(shop, token.afterUrl)).json().status, 'new', 'the payment was never captured')
})

t.test('concurrent captures with one token on two instances: exactly one reaches the gateway', async (t) => {
  const gate = deferred()
  const probe: Probe = { calls: 0, entered: deferred(), gate: gate.promise }
  const factory = new SlowOfflineGatewayFactory(probe)
  const configure = (builder: PaywireBuilder) => { builder.addGatewayFactory('slow-offline', factory) }
  const shops = [await buildShop({}, configure), await buildShop({}, configure)]
  const { token } = await preparePayment(shops[0]?.app as FastifyInstance, 'slow')

  const attempts = 6
  const answered: Array<Awaited<ReturnType<typeof visit>>> = []
  const allButTheGatewayAnswered = deferred()
  const responses = Array.from({ length: attempts }, async (_, index) => {
    const response = await visit(shops[index % 2] as Shop, token.targetUrl)
    answered.push(response)
    if (answered.length + probe.calls === attempts) allButTheGatewayAnswered.resolve()
    return response
  })
  await probe.entered.promise
  await allButTheGatewayAnswered.promise
  t.equal(probe.calls, 1, 'one capture in the gateway')
  t.equal(answered.length, attempts - 1)
  for (const response of answered) {
    t.equal(response.statusCode, 409)
    t.equal(response.json().code, 'PAYWIRE_ERR_PAYMENT_BUSY')
  }

  gate.resolve()
  const winners = (await Promise.all(responses)).filter((response) => response.statusCode === 302)
  t.equal(winners.length, 1)
  t.equal(winners[0]?.location, token.afterUrl)
  t.equal(probe.calls, 1, 'the others never ran the gateway')
  t.equal((await visit(shops[1] as Shop, token.targetUrl)).statusCode, 303, 'the token is spent')
  t.equal((await visit(shops[1] as Shop, token.afterUrl)).json().status, 'captured')
})

t.test('two instances on one Redis work as one', async (t) => {
  const first = await buildShop()
  const second = await buildShop()
  const { payment, token } = await preparePayment(first.app)

  const capture = await visit(second, token.targetUrl)
  t.equal(capture.statusCode, 302, 'the second instance captures a token the first created')
  t.equal(capture.location, token.afterUrl)

  const done = await visit(first, token.afterUrl, 'text/html')
  t.equal(done.statusCode, 200)
  t.match(done.text, '<span class="status" data-status="captured">Paid</span>', 'the done page of the first reads captured')
  t.equal((await visit(first, token.targetUrl)).statusCode, 303, 'spent for the first instance too')
  t.equal((await first.app.paywire.getStorage(Payment).find(payment.id as string))?.details.status, 'captured')
})
