/*
 * Canaries: a secret and a password put in every configuration slot (the PayPal client
 * secret, gateway options, the Redis password) must appear nowhere a person or a log
 * collector sees: logs at trace level, answers, errors, inspect(). One shop with Redis (a
 * server of the test's own, with a password), GraphQL and PayPal (the simulator) walks the
 * buyer's paths; everything it wrote is searched at the end.
 */
import { randomUUID } from 'node:crypto'
import { inspect } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import t from 'tap'
import { request } from 'undici'
import { offlineGateway } from '../gateways/offline/index.ts'
import { paypalCheckoutGateway } from '../gateways/paypal-checkout/index.ts'
import { paypalRestGateway } from '../gateways/paypal-rest/index.ts'
import { stripeGateway } from '../gateways/stripe/index.ts'
import { buildPaypalSimulator } from '../simulators/paypal/index.ts'
import { Payment, paywire } from '../plugins/core/index.ts'
import { paywireGraphql } from '../plugins/graphql/index.ts'
import { paywirePostgres } from '../plugins/postgres/index.ts'
import { paywireRedis } from '../plugins/redis/index.ts'
import { captureLog } from './helpers/log-capture.ts'
import { ownRedis } from './helpers/redis-server.ts'

const SECRET = 'canary-S3cret-4b1d9e'
const PASSWORD = 'canary-Passw0rd-77c0a2'
/** Stripe's keys take letters, digits and underscores only. */
const STRIPE_SECRET = 'canaryStripeK3y4b1d9e'
const CANARIES = new RegExp(`${SECRET}|${PASSWORD}|${STRIPE_SECRET}`)

const seen: string[] = []
/** Everything a person could read of a value. */
const look = (value: unknown) => { seen.push(typeof value === 'string' ? value : inspect(value, { depth: 8 })) }

const redis = await ownRedis(t, [], { password: PASSWORD })
const paypal = buildPaypalSimulator({ clients: [{ clientId: 'canary-client', clientSecret: SECRET }] })
t.teardown(() => paypal.close())
const endpoint = await paypal.listen({ port: 0, host: '127.0.0.1' })

const log = captureLog()
const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
t.teardown(() => app.close())
await app.register(paywireRedis, { url: redis.url.replace('redis://', `redis://:${PASSWORD}@`), keyPrefix: 'canary:' })
await app.register(paywire, {
  backend: app.paywireRedis,
  gateways: {
    // Any option of any gateway may hold a secret.
    cash: { factory: 'offline', api_key: SECRET, password: PASSWORD, nested: { client_secret: SECRET } }
  }
})
await app.register(offlineGateway)
await app.register(paypalRestGateway)
await app.register(paywireGraphql, { mercurius: true, authorize: () => true })
const origin = await app.listen({ port: 0, host: '127.0.0.1' })
const subscription = paypal.simulator.webhooks.subscribe({ url: `${origin}/payment/notify/unsafe/paypal`, clientId: 'canary-client' })
app.paywire.addGateway('paypal', {
  factory: 'paypal_rest',
  client_id: 'canary-client',
  client_secret: SECRET,
  webhook_id: subscription.id,
  config: { 'service.EndPoint': endpoint, 'http.RetryBackoffMs': 1, 'log.LogEnabled': true, 'log.LogLevel': 'DEBUG', 'acct1.ClientSecret': SECRET, 'acct1.Password': PASSWORD }
})
t.teardown(() => paypal.simulator.webhooks.waitForIdle())

async function visit (url: string, init: { method?: string, body?: string, headers?: Record<string, string> } = {}) {
  const response = await request(url, { method: (init.method ?? 'GET') as 'GET', body: init.body, headers: init.headers })
  const body = await response.body.text()
  look(body)
  look(response.headers)
  return { status: response.statusCode, location: String(response.headers.location ?? ''), body }
}

async function graphql (query: string, variables: Record<string, unknown> = {}) {
  const answer = await visit(`${origin}/graphql`, { method: 'POST', body: JSON.stringify({ query, variables }), headers: { 'content-type': 'application/json' } })
  return JSON.parse(answer.body)
}

const CREATE = 'mutation ($input: CreatePaymentInput!) { createPayment(input: $input) { __typename ... on PaymentCreated { captureUrl payment { id } } ... on PaywireError { code message } } }'

/** Approval page → decision → the shop's return URL. */
async function decide (approvalUrl: string, decision: string): Promise<string> {
  const page = await visit(approvalUrl)
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(page.body) as RegExpExecArray
  const fields = new URLSearchParams({ decision })
  for (const [, name, value] of (form[2] as string).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields.set(name as string, value as string)
  const answer = await visit(new URL(form[1] as string, approvalUrl).href, { method: 'POST', body: fields.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  return answer.location
}

t.test('the buyer\'s paths: PayPal approve, decline, cancel, offline, GraphQL reads, errors, webhooks', async (t) => {
  for (const decision of ['approve', 'decline', 'cancel', 'approve_pending']) {
    const created = (await graphql(CREATE, { input: { gateway: 'paypal', totalAmount: 1999, currencyCode: 'EUR', clientEmail: 'payer@example.com' } })).data.createPayment
    t.equal(created.__typename, 'PaymentCreated', decision)
    const toPaypal = await visit(created.captureUrl)
    t.equal(toPaypal.status, 302)
    const back = await visit(await decide(toPaypal.location, decision), { headers: { accept: 'text/html' } })
    const done = back.status === 302 ? await visit(back.location, { headers: { accept: 'text/html' } }) : back
    t.ok([200, 402, 502].includes(done.status) || done.status < 500, `${decision}: ${done.status}`)
    look(await graphql('query ($id: ID!) { payment(id: $id) { ... on Payment { id status details localDetails gateway { name } } } }', { id: created.payment.id }))
  }
  const offline = (await graphql(CREATE, { input: { gateway: 'cash', totalAmount: 500, currencyCode: 'JPY' } })).data.createPayment
  const captured = await visit(offline.captureUrl)
  await visit(captured.location)
  await visit(captured.location, { headers: { accept: 'text/html' } })
  look(await graphql('{ gateways { name factory supports { refund cancel } } }'))
  look(await graphql('{ payments(first: 20) { ... on PaymentConnection { nodes { id status details } } } }'))
  look(await graphql('mutation ($id: ID!) { refundPayment(id: $id) { __typename ... on PaywireError { code message } } }', { id: (await app.paywire.getStorage(Payment).findBy({ gatewayName: 'paypal' }))[0]?.id }))

  await visit(`${origin}/payment/capture/${'a'.repeat(43)}`, { headers: { accept: 'text/html' } })
  await visit(`${origin}/payment/capture/${'a'.repeat(43)}`, { method: 'HEAD' })
  await visit(`${origin}/payment/notify/unsafe/paypal`, { method: 'POST', body: '{"id":"WH-1"}', headers: { 'content-type': 'application/json', 'paypal-transmission-id': 'x' } })
  await visit(`${origin}/graphql`, { method: 'POST', body: '{"query":5}', headers: { 'content-type': 'application/json' } })
  await paypal.simulator.webhooks.waitForIdle()
  t.ok(paypal.simulator.webhooks.deliveries().length > 0, 'webhooks were delivered and verified')

  // A provider failing mid-flow: its error travels through the routes and the logs.
  paypal.simulator.faults.inject({ kind: 'error', status: 500, method: 'POST', path: /\/v1\/payments\/payment$/, times: 5 })
  const failing = (await graphql(CREATE, { input: { gateway: 'paypal', totalAmount: 100, currencyCode: 'EUR' } })).data.createPayment
  const failed = await visit(failing.captureUrl, { headers: { accept: 'text/html' } })
  t.equal(failed.status, 502)
  t.match(failed.body, 'Nothing was charged.')
  const error = await app.paywire.getGateway('paypal').execute(new (await import('../plugins/core/index.ts')).Refund(new Payment())).catch((error: unknown) => error)
  look(error)
  look((error as Error).cause)
})

t.test('inspect() of Paywire\'s objects', async () => {
  look(app.paywire)
  look(app.paywireRedis)
  look(inspect(app.paywireRedis, { depth: Infinity }))
  look(app.paywireRedis.client)
  look(JSON.stringify(app.paywireRedis.client.options))
  look(app.paywire.getGateway('paypal'))
  look(app.paywire.getGatewayOptions('paypal'))
  look(app.paywire.getGateway('cash'))
})

t.test('no canary anywhere', async (t) => {
  await paypal.simulator.webhooks.waitForIdle()
  const logged = log.text()
  t.ok(logged.length > 10_000, 'trace-level logs were written')
  t.match(logged, /"msg":"PayPal call"/, 'the PayPal calls were logged')
  t.notMatch(logged, CANARIES, 'logs at trace level')
  for (const text of seen) {
    if (CANARIES.test(text)) t.fail(`a canary in: ${text.slice(Math.max(0, text.search(CANARIES) - 200), text.search(CANARIES) + 50)}`)
  }
  t.ok(seen.length > 50, `${seen.length} answers, errors and inspect() outputs searched`)
})

/** inspect() at any depth and JSON (a circular structure as far as it goes) of a value. */
function everything (value: unknown): string {
  const seenObjects = new WeakSet<object>()
  let json: string
  try {
    json = JSON.stringify(value) ?? ''
  } catch {
    json = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint') return String(item)
      if (typeof item !== 'object' || item === null) return item
      if (seenObjects.has(item)) return '[seen]'
      seenObjects.add(item)
      return item
    }) ?? ''
  }
  return `${inspect(value, { depth: Infinity, showHidden: false, maxArrayLength: Infinity, maxStringLength: Infinity })}\n${json}`
}

/** Every object the application can reach through what Paywire decorated it with. */
function decorated (shop: FastifyInstance): Array<[string, unknown]> {
  const objects: Array<[string, unknown]> = Object.keys(shop).filter((name) => name.startsWith('paywire')).map((name) => [`app.${name}`, (shop as unknown as Record<string, unknown>)[name]])
  const engine = shop.paywire
  // The connections themselves: hidden from their holders, but reachable by name.
  if (shop.hasDecorator('paywirePostgres')) objects.push(['the pg pool', shop.paywirePostgres.pool])
  if (shop.hasDecorator('paywireRedis')) objects.push(['the Redis client', shop.paywireRedis.client])
  objects.push(['getStorage(Payment)', engine.getStorage(Payment)], ['storages', engine.getStorages()], ['token storage', engine.getTokenStorage()], ['backend', engine.getStorageBackend()], ['events', engine.events])
  objects.push(['executor', engine.getExclusiveExecutor()], ['token factory', engine.getTokenFactory()], ['verifier', engine.getHttpRequestVerifier()])
  for (const name of engine.getGatewayNames()) objects.push([`gateway ${name}`, engine.getGateway(name)], [`options of ${name}`, engine.getGatewayOptions(name)])
  for (const name of engine.getGatewayFactoryNames()) objects.push([`factory ${name}`, engine.getGatewayFactory(name)])
  return objects
}

const BACKENDS = {
  memory: async () => undefined,
  redis: async (shop: FastifyInstance) => {
    await shop.register(paywireRedis, { url: redis.url.replace('redis://', `redis://:${PASSWORD}@`), keyPrefix: 'canary-walk:' })
    return shop.paywireRedis
  },
  postgres: async (shop: FastifyInstance, t: { teardown: (fn: () => Promise<void>) => void }) => {
    const schema = `canary_${process.pid}_${randomUUID().slice(0, 8)}`
    // Trust authentication: the server accepts any password, so the canary travels where a real one would.
    const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
    url.password = PASSWORD
    await shop.register(paywirePostgres, { connectionString: url.href, schema, migrate: true })
    t.teardown(async () => {
      const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' })
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      await pool.end()
    })
    return shop.paywirePostgres
  }
}

for (const [name, register] of Object.entries(BACKENDS)) {
  t.test(`${name}: no canary in inspect() or JSON of anything Paywire decorated the application with, nor in its logs`, async (t) => {
    const walkLog = captureLog()
    const shop = Fastify({ logger: { level: 'trace', stream: walkLog.stream } })
    t.teardown(() => shop.close())
    const backend = await register(shop, t)
    await shop.register(paywire, {
      baseUrl: 'https://shop.example',
      backend,
      gateways: {
        cash: { factory: 'offline', api_key: SECRET },
        paypal: { factory: 'paypal_rest', client_id: 'canary-client', client_secret: SECRET, webhook_id: 'WH1CANARY', config: { 'service.EndPoint': endpoint } },
        checkout: { factory: 'paypal_checkout', client_id: 'canary-client', client_secret: SECRET, webhook_id: 'WH2CANARY', config: { 'service.EndPoint': endpoint } },
        stripe: { factory: 'stripe', secret_key: `sk_test_${STRIPE_SECRET}`, webhook_secrets: [`whsec_${STRIPE_SECRET}`], host: '127.0.0.1', port: 9, protocol: 'http' }
      }
    })
    await shop.register(offlineGateway)
    await shop.register(paypalRestGateway)
    await shop.register(paypalCheckoutGateway)
    await shop.register(stripeGateway)
    await shop.register(paywireGraphql, { mercurius: true, authorize: () => true })
    await shop.ready()
    // A payment and its tokens, so storages and the backend hold records and connections.
    const payment = Object.assign(shop.paywire.getStorage(Payment).create(), { number: 'CANARY-1', totalAmount: 100, currencyCode: 'EUR' })
    const token = await shop.paywire.prepareCapture('cash', payment, 'done')
    const captured = await shop.inject({ url: new URL(token.targetUrl).pathname })
    t.equal(captured.statusCode, 302)
    const objects = decorated(shop)
    t.ok(objects.length > 15, `${objects.length} objects walked`)
    for (const [what, value] of objects) {
      const text = everything(value)
      const at = text.search(CANARIES)
      t.equal(at, -1, `${what}${at === -1 ? '' : `: …${text.slice(Math.max(0, at - 300), at + 40)}`}`)
    }
    await shop.close()
    t.notMatch(walkLog.text(), CANARIES, 'logs at trace level, boot and close included')
  })
}
