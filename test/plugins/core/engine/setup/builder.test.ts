import { createContainer } from 'awilix'
import t from 'tap'
import {
  DetailsRecord, GenericTokenFactory, RedactingLogger, HttpClient, Logger, MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, NullLogger, Payment,
  PayoutModel, PaywireBuilder, ServiceContainer, StorageBackend, StorageRegistry, TokenStorage, UndiciHttpClient, Gateway,
  autowire, get, serviceId, type ActionEntry, type ContainerConfiguration, type GatewayOptions, type HttpRequest, type HttpClientResponse
} from '../../../../../plugins/core/engine/index.ts'
import { AcmeApi, AcmeGatewayFactory } from '../../../../helpers/acme-gateway.ts'

function apiOf (gateway: Gateway): AcmeApi {
  return (gateway.actions.find((action) => 'api' in action) as unknown as { api: AcmeApi }).api
}

class StubHttpClient extends HttpClient {
  async send (_request: HttpRequest): Promise<HttpClientResponse> {
    return { statusCode: 204, headers: {}, body: '' }
  }
}

t.test('every method but getPaywire() returns the builder', async (t) => {
  const builder = new PaywireBuilder()
  const calls: Array<[string, () => unknown]> = [
    ['addDefaultStorages', () => builder.addDefaultStorages()],
    ['setStorageBackend', () => builder.setStorageBackend(new MemoryStorageBackend())],
    ['addStorage', () => builder.addStorage(Payment, new MemoryStorage(Payment))],
    ['setTokenStorage', () => builder.setTokenStorage(new MemoryTokenStorage())],
    ['addGateway', () => builder.addGateway('a', { factory: 'acme' })],
    ['addGatewayFactory', () => builder.addGatewayFactory('acme', new AcmeGatewayFactory())],
    ['addGatewayFactoryConfig', () => builder.addGatewayFactoryConfig('acme', {})],
    ['addGlobalService', () => builder.addGlobalService('x', 1)],
    ['setGenericTokenFactoryPaths', () => builder.setGenericTokenFactoryPaths({})],
    ['setBaseUrl', () => builder.setBaseUrl('https://shop.example')],
    ['setContainer', () => builder.setContainer(ServiceContainer.create())]
  ]
  for (const [name, call] of calls) t.equal(call(), builder, name)
})

t.test('addGateway() without a factory fails at the call; repeated calls merge deeply', async (t) => {
  const builder = new PaywireBuilder()
  t.throws(() => builder.addGateway('cash', { sandbox: false } as unknown as GatewayOptions), {
    code: 'PAYWIRE_ERR_GATEWAY_FACTORY_MISSING', message: /Gateway "cash" has no factory/
  })
  builder.addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('main', { factory: 'acme', api_key: 'first', endpoint: { url: 'https://a.example', retries: 1 } })
    .addGateway('main', { api_key: 'second', endpoint: { retries: 4 } } as unknown as GatewayOptions)
  const paywire = builder.getPaywire()
  t.teardown(() => paywire.close())
  t.same(paywire.getGatewayOptions('main'), { factory: 'acme', api_key: 'second', endpoint: { url: 'https://a.example', retries: 4 } })
  t.match(apiOf(paywire.getGateway('main')), { apiKey: 'second', endpoint: { url: 'https://a.example', retries: 4 } })
})

t.test('a Gateway instance can be added, and replaced by options later', async (t) => {
  const ready = new Gateway()
  const paywire = new PaywireBuilder()
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('ready', ready)
    .addGateway('replaced', new Gateway())
    .addGateway('replaced', { factory: 'acme', api_key: 'options-win' })
    .getPaywire()
  t.teardown(() => paywire.close())
  t.equal(paywire.getGateway('ready'), ready)
  t.equal(apiOf(paywire.getGateway('replaced')).apiKey, 'options-win')
})

t.test('addGatewayFactoryConfig() gives defaults to every gateway of a factory; calls merge; gateway options win', async (t) => {
  const paywire = new PaywireBuilder()
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGatewayFactoryConfig('acme', { api_key: 'shared', endpoint: { url: 'https://shared.example', retries: 1 } })
    .addGatewayFactoryConfig('acme', { sandbox: false, endpoint: { retries: 3 } })
    .addGateway('plain', { factory: 'acme' })
    .addGateway('own', { factory: 'acme', api_key: 'own', sandbox: true })
    .getPaywire()
  t.teardown(() => paywire.close())
  t.match(apiOf(paywire.getGateway('plain')), { apiKey: 'shared', sandbox: false, endpoint: { url: 'https://shared.example', retries: 3 } })
  t.match(apiOf(paywire.getGateway('own')), { apiKey: 'own', sandbox: true })
})

t.test('global services (by class or by string id) are visible in every gateway container', async (t) => {
  class Clock { now (): number { return 42 } }
  class Reporter {
    readonly clock: Clock
    readonly region: string
    constructor (clock: Clock, region: string) {
      this.clock = clock
      this.region = region
    }

    supports (): boolean { return false }
    execute (): void {}
  }
  class ReportingFactory extends AcmeGatewayFactory {
    override configureContainer (): ContainerConfiguration {
      return { ...super.configureContainer(), [serviceId(Reporter)]: autowire(Reporter).constructor(get(Clock), get('app.region')) }
    }

    override getActions (): ActionEntry[] { return [...super.getActions(), Reporter] }
  }
  const clock = new Clock()
  const paywire = new PaywireBuilder()
    .addGlobalService(Clock, clock)
    .addGlobalService('app.region', 'eu-west')
    .addGatewayFactory('acme', new ReportingFactory())
    .addGateway('main', { factory: 'acme' })
    .getPaywire()
  t.teardown(() => paywire.close())
  const reporter = paywire.getGateway('main').actions.find((action) => action instanceof Reporter) as Reporter
  t.equal(reporter.clock, clock)
  t.equal(reporter.region, 'eu-west')
})

t.test('a silent logger and an undici HTTP client by default; both replaceable with addGlobalService()', async (t) => {
  const defaults = new PaywireBuilder().addGatewayFactory('acme', new AcmeGatewayFactory()).addGateway('main', { factory: 'acme' }).getPaywire()
  t.teardown(() => defaults.close())
  t.ok((defaults.container.get(Logger) as RedactingLogger).target instanceof NullLogger)
  t.ok(defaults.container.get(HttpClient) instanceof UndiciHttpClient)
  t.equal(apiOf(defaults.getGateway('main')).logger, defaults.container.get(Logger))

  const lines: unknown[][] = []
  const logger = {
    debug: (...args: unknown[]) => { lines.push(['debug', ...args]) },
    info: (...args: unknown[]) => { lines.push(['info', ...args]) },
    warn: (...args: unknown[]) => { lines.push(['warn', ...args]) },
    error: (...args: unknown[]) => { lines.push(['error', ...args]) }
  }
  const client = new StubHttpClient()
  const custom = new PaywireBuilder()
    .addGlobalService(Logger, logger)
    .addGlobalService(HttpClient, client)
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('main', { factory: 'acme' })
    .getPaywire()
  t.teardown(() => custom.close())
  const given = custom.container.get(Logger) as RedactingLogger
  t.ok(given instanceof RedactingLogger, 'the given logger is reached through the redaction layer')
  t.equal(given.target, logger)
  t.equal(custom.container.get(HttpClient), client)
  t.equal(apiOf(custom.getGateway('main')).logger, given)
  given.warn({ config: { client_secret: '<CLIENT_SECRET>' } }, 'checking')
  t.same(lines, [['warn', { config: { client_secret: '[redacted]' } }, 'checking']], 'lines reach it, redacted')
})

t.test('the root container holds the token storage, the storages, the token factory and the storage backend', async (t) => {
  const tokenStorage = new MemoryTokenStorage()
  const backend = new MemoryStorageBackend()
  const paywire = new PaywireBuilder().setStorageBackend(backend).setTokenStorage(tokenStorage).getPaywire()
  t.teardown(() => paywire.close())
  t.equal(paywire.container.get(TokenStorage), tokenStorage)
  t.equal(paywire.getTokenStorage(), tokenStorage)
  t.ok(paywire.container.get(StorageRegistry) instanceof StorageRegistry)
  t.equal(paywire.container.get(GenericTokenFactory), paywire.getTokenFactory())
  t.equal(paywire.container.get(StorageBackend), backend)
  t.equal(paywire.getStorageBackend(), backend)
})

t.test('default storages: Payment, Payout and DetailsRecord in memory, plus a token storage', async (t) => {
  const paywire = new PaywireBuilder().getPaywire()
  t.teardown(() => paywire.close())
  for (const Model of [Payment, PayoutModel, DetailsRecord] as Array<new () => object>) t.ok(paywire.getStorage(Model) instanceof MemoryStorage, Model.name)
  t.ok(paywire.getTokenStorage() instanceof MemoryTokenStorage)
  t.throws(() => paywire.getStorage(Date), {
    code: 'PAYWIRE_ERR_STORAGE_NOT_REGISTERED',
    message: /model "Date"\. Storages exist for: Payment, Payout, DetailsRecord\./
  })
})

t.test('addDefaultStorages() keeps storages and a token storage set before it, and uses the storage backend', async (t) => {
  const payments = new MemoryStorage(Payment)
  const tokenStorage = new MemoryTokenStorage()
  const made: string[] = []
  class RecordingBackend extends MemoryStorageBackend {
    override createStorage<T extends object> (Model: new () => T) {
      made.push(Model.name)
      return super.createStorage(Model)
    }
  }
  const paywire = new PaywireBuilder()
    .setStorageBackend(new RecordingBackend())
    .addStorage(Payment, payments)
    .setTokenStorage(tokenStorage)
    .addDefaultStorages()
    .getPaywire()
  t.teardown(() => paywire.close())
  t.equal(paywire.getStorage(Payment), payments)
  t.equal(paywire.getTokenStorage(), tokenStorage)
  t.same(made, ['Payout', 'DetailsRecord'])
})

t.test('token URLs use the base URL and the configured paths', async (t) => {
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example/pay')
    .setGenericTokenFactoryPaths({ capture: 'go/:token', done: 'finished' })
    .getPaywire()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  t.equal(token.targetUrl, `https://shop.example/pay/go/${token.hash}`)
  t.match(token.afterUrl, /^https:\/\/shop\.example\/pay\/finished\?paywire_token=/)
  t.equal(paywire.getTokenFactory().getPath('refund'), 'refund', 'the other default paths stay')
})

t.test('the "core" factory is always registered', async (t) => {
  const paywire = new PaywireBuilder().addGateway('bare', { factory: 'core' }).getPaywire()
  t.teardown(() => paywire.close())
  t.same(paywire.getGatewayFactoryNames(), ['core'])
  t.equal(paywire.getGateway('bare').actions.length, 9)
})

t.test('setContainer(): gateways are built in scopes of the application\'s container, which close() leaves open', async (t) => {
  for (const given of [ServiceContainer.create(), createContainer()]) {
    const application = given instanceof ServiceContainer ? given : ServiceContainer.of(given)
    const disposed: string[] = []
    application.register({ 'app.resource': autowire(class Resource {}).disposer(() => { disposed.push('app') }) })
    application.get('app.resource')
    const factory = new AcmeGatewayFactory()
    const paywire = new PaywireBuilder().setContainer(given).addGatewayFactory('acme', factory).addGateway('main', { factory: 'acme', api_key: 'k' }).getPaywire()
    t.equal(paywire.container, application)
    t.equal(application.get(Logger), paywire.container.get(Logger))
    paywire.getGateway('main')
    await paywire.close()
    t.same(factory.disposed, ['k'], 'the gateway scope was disposed')
    t.same(disposed, [], 'the application container was not')
  }
})
