import { fastifyAwilixPlugin } from '@fastify/awilix'
import { asFunction, createContainer } from 'awilix'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { request } from 'undici'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import {
  AbstractStorage, CoreGatewayFactory, Logger, RedactingLogger, MemoryStorage, MemoryTokenStorage, Payment, autowire, get, paywire, serviceId,
  type ActionEntry, type ContainerConfiguration
} from '../../../plugins/core/index.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

async function ready (app: FastifyInstance): Promise<void> {
  await app.ready()
}

t.test('an option error quotes the expected pattern with its case intact', async (t) => {
  const app = Fastify()
  app.register(paywire, { baseUrl: 'https://shop.example', prefix: 'payment' })
  const error = await ready(app).then(() => undefined, (error: Error) => error)
  t.equal((error as { code?: string } | undefined)?.code, 'PAYWIRE_ERR_INVALID_OPTION')
  t.match(error?.message, "'^(/[A-Za-z0-9._~-]+)+$'", 'the pattern a user must match, as written in the schema')
  t.notMatch(error?.message, 'a-za-z')
  await app.close()
})

t.test('invalid options fail app.ready() with a coded error naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ prefix: 'payment' }, 'prefix'],
    [{ baseUrl: 'shop.example' }, 'baseUrl'],
    [{ baseUrl: 'https://' }, 'baseUrl'],
    [{ gateways: { cash: { options: true } } }, 'gateways.cash.factory'],
    [{ gateways: { 'bad name': { factory: 'offline' } } }, 'gateways'],
    [{ claimTtlMs: 10 }, 'claimTtlMs'],
    [{ events: { maxAttempts: 0 } }, 'events.maxAttempts'],
    [{ events: { retries: 3 } }, 'events'],
    [{ configure: 'yes' }, 'configure'],
    [{ backend: {} }, 'backend'],
    [{ tokenStorage: { find () {} } }, 'tokenStorage'],
    [{ tokenStorage: { save () {}, find () {}, invalidate () {}, lock () {}, unlock () {} } }, 'tokenStorage'],
    [{ baseURL: 'https://shop.example' }, 'baseURL'],
    [{ gateway: {} }, 'gateway'],
    [{ storages: {} }, 'storages'],
    [{ storages: [[Payment, {}]] }, 'storages.0']
  ]
  for (const [options, option] of cases) {
    const app = Fastify()
    app.register(paywire, { baseUrl: 'https://shop.example', ...options })
    await t.rejects(ready(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: new RegExp(`option "${option.replace('.', '\\.')}`, 'i') }, option)
    await app.close()
  }
  const misspelt = Fastify()
  misspelt.register(paywire, { baseUrl: 'https://shop.example', baseURL: 'https://other.example' } as Record<string, unknown>)
  await t.rejects(ready(misspelt), { message: /"baseURL".*did you mean baseUrl\?/ }, 'a near miss is named')
  await misspelt.close()
  const withRegisterOptions = Fastify()
  withRegisterOptions.register(paywire, { baseUrl: 'https://shop.example', logLevel: 'warn' })
  await withRegisterOptions.ready()
  await withRegisterOptions.close()
})

t.test('claimTtlMs sets how long a request\'s claim on a payment lasts unless renewed', async (t) => {
  const { app } = await buildTestApp({ claimTtlMs: 5000 })
  t.teardown(() => app.close())
  t.equal(app.paywire.getExclusiveExecutor().claimTtlMs, 5000)
})

t.test('in production a base URL is required unless request origins are trusted', async (t) => {
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  t.teardown(() => { process.env.NODE_ENV = env })
  const app = Fastify()
  app.register(paywire, {})
  await t.rejects(ready(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /baseUrl/ })
  await app.close()
  const trusting = Fastify()
  trusting.register(paywire, { trustRequestBaseUrl: ['https://shop.example'], allowMemoryStorage: true })
  await trusting.ready()
  await trusting.close()
})

t.test('trusting request origins needs an explicit list of them', async (t) => {
  for (const [value, message] of [
    [true, /"trustRequestBaseUrl".*must list the origins/],
    [[], /"trustRequestBaseUrl"/],
    [['shop.example'], /"trustRequestBaseUrl\.0"/],
    [['https://shop.example/shop'], /"trustRequestBaseUrl\.0".*no path/]
  ] as Array<[unknown, RegExp]>) {
    const app = Fastify()
    app.register(paywire, { trustRequestBaseUrl: value } as Record<string, unknown>)
    await t.rejects(ready(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message }, JSON.stringify(value))
    await app.close()
  }
})

t.test('in production, payments in process memory need an explicit opt-in', async (t) => {
  const env = process.env.NODE_ENV
  process.env.NODE_ENV = 'production'
  t.teardown(() => { process.env.NODE_ENV = env })
  const app = Fastify()
  app.register(paywire, { baseUrl: 'https://shop.example' })
  await t.rejects(ready(app), { code: 'PAYWIRE_ERR_MEMORY_STORAGE_IN_PRODUCTION', message: /restart or a crash would lose every payment.*allowMemoryStorage: true/ })
  await app.close()
  const durable = Fastify()
  durable.register(paywire, { baseUrl: 'https://shop.example', storages: [[Payment, new ElsewhereStorage(Payment)]] })
  await durable.ready()
  await durable.close()
  const optedIn = Fastify()
  optedIn.register(paywire, { baseUrl: 'https://shop.example', allowMemoryStorage: true })
  await optedIn.ready()
  t.ok(optedIn.paywire)
  await optedIn.close()
})

/** A payment storage that is not the in-memory one (as paywire-postgres or paywire-redis give). */
class ElsewhereStorage extends AbstractStorage<Payment> {
  protected async doWrite (): Promise<void> {}
  protected async doFind (): Promise<null> { return null }
  protected async doFindBy (): Promise<never[]> { return [] }
}

t.test('decorates app.paywire; gateways come from options, configure() and late gateway plugins', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    gateways: { cash: { factory: 'offline' } },
    configure: (builder, instance) => {
      t.equal(instance, app)
      builder.addGateway('cheque', { factory: 'offline' })
    }
  })
  // The factory arrives after the core plugin, and after the gateways that use it were declared.
  await app.register(offlineGateway)
  await app.ready()
  t.same(app.paywire.getGatewayNames().sort(), ['cash', 'cheque'])
  t.ok(app.paywire.getGatewayFactoryNames().includes('offline'))
  t.not(app.paywire.getGateway('cash'), app.paywire.getGateway('cheque'), 'one gateway per name')
  t.equal(app.paywire.getGateway('cash'), app.paywire.getGateway('cash'), 'built once, then cached')
})

t.test('a gateway plugin registered without the core plugin fails with Fastify\'s dependency error', async (t) => {
  const app = Fastify()
  app.register(offlineGateway)
  await t.rejects(ready(app), { code: 'FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE' })
  await app.close()
})

t.test('one Awilix container per application, with a redacting logger over app.log', async (t) => {
  const first = await buildTestApp()
  const second = await buildTestApp()
  t.teardown(async () => { await first.app.close(); await second.app.close() })
  t.not(first.app.diContainer, second.app.diContainer)
  t.equal(first.app.paywire.container.awilix, first.app.diContainer)
  t.ok(first.app.paywire.container.get(Logger) instanceof RedactingLogger)

  const own = createContainer({ injectionMode: 'PROXY' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyAwilixPlugin, { container: own })
  await app.register(paywire, { baseUrl: 'https://shop.example' })
  await app.ready()
  t.equal(app.diContainer, own, 'an application\'s own container is kept')
  t.equal(app.paywire.container.awilix, own)
})

t.test('the shop\'s own requests get no DI scope, and the plugin\'s container is disposed on close', async (t) => {
  const app = Fastify()
  await app.register(paywire, { baseUrl: 'https://shop.example' })
  let scope: unknown = 'not seen'
  app.get('/shop', async (request) => {
    scope = (request as unknown as { diScope?: unknown }).diScope
    return 'ok'
  })
  await app.ready()
  t.equal((await app.inject('/shop')).statusCode, 200)
  t.equal(scope, undefined, 'no per-request Awilix scope: registered only by an application that asks for it')
  let disposed = false
  app.diContainer.register('probe', asFunction(() => ({})).singleton().disposer(() => { disposed = true }))
  app.diContainer.resolve('probe')
  await app.close()
  t.ok(disposed, 'the container the plugin created is disposed with the application')
})

class Api {
  readonly key: string
  readonly sandbox: boolean
  disposed = false

  constructor (key: string, sandbox: boolean) {
    this.key = key
    this.sandbox = sandbox
  }
}

/** Asks a gateway which API object its actions received. */
class WhichApi {
  api: Api | undefined
}

class WhichApiAction {
  static readonly inject = ['api']
  readonly api: Api

  constructor (api: Api) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof WhichApi
  }

  execute (request: WhichApi): void {
    request.api = this.api
  }
}

class AcmeFactory extends CoreGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      'acme.key': '',
      'acme.sandbox': true,
      [serviceId(Api)]: autowire(Api).constructor(get('acme.key'), get('acme.sandbox')).disposer((api) => { api.disposed = true }),
      [serviceId(WhichApiAction)]: autowire(WhichApiAction).constructorParameter('api', get(Api))
    }
  }

  override getActions (): ActionEntry[] {
    return [...super.getActions(), WhichApiAction]
  }
}

t.test('each named gateway gets its own scope and options; close() disposes what they built', async (t) => {
  const app = Fastify()
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    gateways: { live: { factory: 'acme', key: 'k-live', sandbox: false }, test: { factory: 'acme', 'acme.key': 'k-test' } },
    configure: (builder) => { builder.addGatewayFactory('acme', new AcmeFactory()) }
  })
  await app.ready()
  const apiOf = async (name: string): Promise<Api> => {
    const request = new WhichApi()
    await app.paywire.getGateway(name).execute(request)
    return request.api as Api
  }
  const live = await apiOf('live')
  const test = await apiOf('test')
  t.not(live, test, 'two gateways of one factory never share state')
  t.same([live.key, live.sandbox], ['k-live', false], 'options override the factory defaults')
  t.same([test.key, test.sandbox], ['k-test', true])
  t.equal(await apiOf('live'), live, 'one API per gateway, reused')
  await app.close()
  t.ok(live.disposed && test.disposed, 'disposers ran on close')
})

t.test('concurrent captures with one token: exactly one reaches the gateway', async (t) => {
  const { app, script } = await buildTestApp({ tokenStorage: new MemoryTokenStorage() })
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  let release: () => void = () => {}
  script.gate = new Promise<void>((resolve) => { release = resolve })
  const first = app.inject({ url: pathOf(token.targetUrl) })
  await new Promise((resolve) => setImmediate(resolve))
  const others = await Promise.all([1, 2, 3].map(() => app.inject({ url: pathOf(token.targetUrl) })))
  release()
  t.equal((await first).statusCode, 302)
  for (const other of others) {
    t.equal(other.statusCode, 409)
    t.equal(other.json().code, 'PAYWIRE_ERR_PAYMENT_BUSY')
  }
  t.equal(script.calls.capture, 1)
})

t.test('a buyer whose payment another request holds briefly (a webhook) waits for it instead of reading a 409', async (t) => {
  const tokens = new MemoryTokenStorage()
  const { app, script } = await buildTestApp({ tokenStorage: tokens })
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  const webhook = await tokens.claimModel(app.paywire.getStorage(Payment).identify(payment), 30_000)
  // The buyer's request found the payment busy at least once: then the webhook finishes.
  const claim = tokens.claim.bind(tokens)
  let busy!: () => void
  const foundBusy = new Promise<void>((resolve) => { busy = resolve })
  tokens.claim = async (hash, ttlMs) => claim(hash, ttlMs).catch((error: { code?: string }) => {
    if (error.code === 'PAYWIRE_ERR_PAYMENT_BUSY') busy()
    throw error
  })
  const buyer = app.inject({ url: pathOf(token.targetUrl) })
  await foundBusy
  await tokens.releaseClaim(webhook)
  const answer = await buyer
  t.equal(answer.statusCode, 302)
  t.equal(answer.headers.location, token.afterUrl)
  t.equal(script.calls.capture, 1)
})

t.test('concurrent requests each make token URLs for their own origin, and another application sees none of it', async (t) => {
  const options = { trustRequestBaseUrl: ['https://shop.example', 'https://www.shop.example'], gateways: { cash: { factory: 'offline' } } }
  const other = Fastify({ trustProxy: true })
  t.teardown(() => other.close())
  await other.register(paywire, options)
  await other.register(offlineGateway)
  const trusting = Fastify({ trustProxy: true })
  t.teardown(() => trusting.close())
  await trusting.register(paywire, options)
  await trusting.register(offlineGateway)
  trusting.post('/prepare', async () => {
    const payment = await storedPayment(trusting)
    // The requests interleave: each is still served in its own async chain.
    await new Promise((resolve) => setImmediate(resolve))
    return { url: (await trusting.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')).targetUrl }
  })
  trusting.post('/other', async () => {
    await other.paywire.getTokenFactory().createCaptureToken('cash', await storedPayment(other), 'done')
  })
  const hosts = ['shop.example', 'www.shop.example', 'shop.example', 'www.shop.example']
  const answers = await Promise.all(hosts.map((host) => trusting.inject({ method: 'POST', url: '/prepare', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': host } })))
  t.same(answers.map((answer) => new URL(answer.json().url).host), hosts)
  // Its own trusted origins, but not a request of its own: no base URL.
  const foreign = await trusting.inject({ method: 'POST', url: '/other', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' } })
  t.equal(foreign.json().code, 'PAYWIRE_ERR_BASE_URL_REQUIRED')
})

t.test('token URLs: trusted request origins, the listening address in development, a base path', async (t) => {
  const trusting = Fastify({ trustProxy: true })
  t.teardown(() => trusting.close())
  await trusting.register(paywire, { trustRequestBaseUrl: ['https://shop.example', 'https://www.shop.example'], gateways: { cash: { factory: 'offline' } } })
  await trusting.register(offlineGateway)
  trusting.post('/prepare', async () => {
    const payment = await storedPayment(trusting)
    return { url: (await trusting.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')).targetUrl }
  })
  const prepared = await trusting.inject({ method: 'POST', url: '/prepare', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' } })
  t.match(prepared.json().url, /^https:\/\/shop\.example\/payment\/capture\//)
  const other = await trusting.inject({ method: 'POST', url: '/prepare', headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'www.shop.example' } })
  t.match(other.json().url, /^https:\/\/www\.shop\.example\/payment\/capture\//, 'each listed origin')
  t.same(trusting.paywire.getShopOrigins(), ['https://shop.example', 'https://www.shop.example'])
  // A spoofed Host (or scheme) must not choose where the buyer is sent.
  for (const headers of [{ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' }, { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'shop.example' }, { host: 'evil.example' }]) {
    const spoofed = await trusting.inject({ method: 'POST', url: '/prepare', headers })
    t.equal(spoofed.statusCode, 400, JSON.stringify(headers))
    t.equal(spoofed.json().code, 'PAYWIRE_ERR_UNTRUSTED_HOST')
  }

  const dev = Fastify()
  t.teardown(() => dev.close())
  await dev.register(paywire, { gateways: { cash: { factory: 'offline' } } })
  await dev.register(offlineGateway)
  const payment = await storedPayment(dev)
  await t.rejects(dev.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done'), { code: 'PAYWIRE_ERR_BASE_URL_REQUIRED' })
  const address = await dev.listen({ port: 0, host: '127.0.0.1' })
  const token = await dev.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  t.ok(token.targetUrl.startsWith(`${address}/payment/capture/`))
  const captured = await request(token.targetUrl)
  t.equal(captured.statusCode, 302)
  await captured.body.dump()
  const done = await request(captured.headers.location as string)
  t.equal((await done.body.json() as { status: string }).status, 'captured')

  const proxied = Fastify()
  t.teardown(() => proxied.close())
  await proxied.register(paywire, { baseUrl: 'https://shop.example/store', prefix: '/pay', gateways: { cash: { factory: 'offline' } } })
  await proxied.register(offlineGateway)
  const behindProxy = await storedPayment(proxied)
  const proxiedToken = await proxied.paywire.getTokenFactory().createCaptureToken('cash', behindProxy, 'done')
  t.match(proxiedToken.targetUrl, /^https:\/\/shop\.example\/store\/pay\/capture\//)
  // The proxy strips /store before the request reaches the application.
  const stripped = await proxied.inject({ url: pathOf(proxiedToken.targetUrl).replace('/store', '') })
  t.equal(stripped.statusCode, 302)
  t.equal(stripped.headers.location, proxiedToken.afterUrl)
})

t.test('routes: false leaves routing to the application; custom storages are used', async (t) => {
  const storage = new MemoryStorage(Payment, { modelName: 'ShopPayment' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example', routes: false, storages: [[Payment, storage]] })
  await app.ready()
  t.equal(app.paywire.getStorage(Payment), storage)
  const response = await app.inject({ url: `/payment/done/${'a'.repeat(43)}` })
  t.equal(response.statusCode, 404, 'no payment routes')
})
