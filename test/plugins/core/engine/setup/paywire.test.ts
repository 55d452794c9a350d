import t from 'tap'
import {
  Capture, Gateway, HttpClient, Sync, HttpRequestVerifier, MemoryStorage, Payment, PaywireBuilder, UndiciHttpClient,
  type HttpClientResponse, type HttpRequest
} from '../../../../../plugins/core/engine/index.ts'
import { AcmeGatewayFactory } from '../../../../helpers/acme-gateway.ts'
import { FnAction } from '../../../../helpers/engine.ts'

class Invoice {
  id?: string
  number = ''
}

function build () {
  const factory = new AcmeGatewayFactory()
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addGatewayFactory('acme', factory)
    .addGateway('eu', { factory: 'acme', api_key: 'eu' })
    .addGateway('us', { factory: 'acme', api_key: 'us' })
    .getPaywire()
  return { paywire, factory }
}

t.test('getGateway() builds a gateway once and caches it; getGateways() builds them all', async (t) => {
  const { paywire, factory } = build()
  t.teardown(() => paywire.close())
  const eu = paywire.getGateway('eu')
  t.equal(paywire.getGateway('eu'), eu)
  t.equal(factory.configureContainerCalls, 1)
  const all = paywire.getGateways()
  t.same([...all.keys()], ['eu', 'us'])
  t.equal(all.get('eu'), eu)
  t.ok(all.get('us') instanceof Gateway)
  t.same(paywire.getGatewayNames(), ['eu', 'us'])
  t.ok(paywire.hasGateway('us'))
  t.notOk(paywire.hasGateway('cash'))
  t.throws(() => paywire.getGateway('cash'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY', message: /Registered gateways: eu, us\./ })
})

t.test('gateways and factories can be added after getPaywire()', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  paywire.addGateway('late', { factory: 'late', 'acme.api_key': 'late-key' })
  t.throws(() => paywire.getGateway('late'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY', message: /Registered factories: core, acme\./ })
  const late = new AcmeGatewayFactory()
  t.equal(paywire.addGatewayFactory('late', late), paywire)
  t.ok(paywire.getGateway('late') instanceof Gateway)
  t.equal(paywire.getGatewayFactory('late'), late)
  t.same(paywire.getGatewayFactoryNames(), ['core', 'acme', 'late'])
  t.throws(() => paywire.getGatewayFactory('nope'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY' })
  t.equal(paywire.addGateway('ready', new Gateway()), paywire)
  t.ok(paywire.hasGateway('ready'))

  const scoped = new AcmeGatewayFactory()
  const scope = paywire.container.createScope().register(scoped.configureContainer())
  paywire.addGatewayFactory('scoped', scoped, scope).addGateway('s', { factory: 'scoped' })
  paywire.getGateway('s')
  t.equal(scoped.configureContainerCalls, 1, 'a factory scope given by a plugin is used as is')
})

t.test('storages: by model or class; added later from the storage backend or given', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  const payments = paywire.getStorage(Payment)
  t.equal(paywire.getStorage(new Payment()), payments)
  t.notOk(paywire.hasStorage(Invoice))
  t.throws(() => paywire.getStorage(Invoice), { code: 'PAYWIRE_ERR_STORAGE_NOT_REGISTERED', message: /Storages exist for: Payment, Payout, DetailsRecord\./ })
  t.equal(paywire.addStorage(Invoice), paywire)
  t.ok(paywire.hasStorage(Invoice))
  t.ok(paywire.getStorage(Invoice) instanceof MemoryStorage)
  const invoices = new MemoryStorage(Invoice, { modelName: 'Bill' })
  paywire.addStorage(Invoice, invoices)
  t.equal(paywire.getStorage(Invoice), invoices)
  t.equal(paywire.getStorages().length, 4)
})

t.test('tokens made by the token factory are found by the verifier', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken('eu', payment, 'done')
  const verifier = paywire.getHttpRequestVerifier()
  t.ok(verifier instanceof HttpRequestVerifier)
  const url = new URL(token.targetUrl)
  t.same(await verifier.verify({ url: url.pathname, query: Object.fromEntries(url.searchParams) }), token)
  t.same(await paywire.getTokenStorage().find(token.hash), token)
})

t.test('close() disposes the gateway scopes and closes the default HTTP client', async (t) => {
  const { paywire, factory } = build()
  paywire.getGateway('eu')
  paywire.getGateway('us')
  const client = paywire.container.get(HttpClient) as UndiciHttpClient
  let closed = 0
  const close = client.close.bind(client)
  client.close = async () => { closed++; await close() }
  await paywire.close()
  t.same(factory.disposed.sort(), ['eu', 'us'])
  t.equal(closed, 1)
})

t.test('close() leaves an HTTP client the application gave alone', async (t) => {
  let closed = false
  class AppClient extends HttpClient {
    async send (_request: HttpRequest): Promise<HttpClientResponse> { return { statusCode: 200, headers: {}, body: '' } }
    async close (): Promise<void> { closed = true }
  }
  const paywire = new PaywireBuilder().addGlobalService(HttpClient, new AppClient()).getPaywire()
  await paywire.close()
  t.equal(closed, false)
})

t.test('prepareCapture() stores the payment and its capture token together; the token points at the stored payment', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const saved: string[] = []
  const tokenStorage = paywire.getTokenStorage()
  const save = tokenStorage.save.bind(tokenStorage)
  tokenStorage.save = async (tokens) => {
    saved.push(`tokens while the payment was ${await storage.find(payment.id as string) === null ? 'not yet' : 'already'} stored`)
    await save(tokens)
  }
  const payment = Object.assign(storage.create(), { number: 'ORDER-9', totalAmount: 500, currencyCode: 'JPY' })
  const token = await paywire.prepareCapture('eu', payment, 'done', { lang: 'ja' })
  t.same(saved, ['tokens while the payment was not yet stored'], 'the token write did not wait for the payment write')
  t.type(payment.id, 'string')
  t.match(await storage.find(payment.id as string), { number: 'ORDER-9', totalAmount: 500, currencyCode: 'JPY' })
  t.same(token.details, storage.identify(payment))
  t.equal(token.gatewayName, 'eu')
  t.match(token.afterUrl, /^https:\/\/shop\.example\/done\?paywire_token=[\w-]{51}&lang=ja$/, 'the done URL keeps the after parameters')
  const done = await tokenStorage.find(new URL(token.afterUrl as string).searchParams.get('paywire_token') as string)
  t.equal(done?.targetUrl, token.afterUrl, 'the done token was stored with it')

  const again = await paywire.prepareCapture('eu', payment, 'done')
  t.not(again.hash, token.hash, 'a stored payment keeps its id and gets a new token')
  t.same(again.details, token.details)
})

t.test('prepareCapture() calls a storage\'s own update() (a subclass\'s, a wrapper\'s), with the tokens beside it', async (t) => {
  class AuditedStorage extends MemoryStorage<Payment> {
    readonly audit: string[] = []
    override async update (model: Payment): Promise<void> {
      this.audit.push(`update ${model.number}`)
      await super.update(model)
    }
  }
  const audited = new AuditedStorage(Payment)
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('eu', { factory: 'acme', api_key: 'eu' })
    .addStorage(Payment, audited)
    .getPaywire()
  t.teardown(() => paywire.close())
  const token = await paywire.prepareCapture('eu', Object.assign(audited.create(), { number: 'AUDITED-1', totalAmount: 500, currencyCode: 'EUR' }), 'done')
  t.same(audited.audit, ['update AUDITED-1'], 'its update() ran')
  t.ok(await paywire.getTokenStorage().find(token.hash), 'and the token was stored')

  const wrapped = paywire.getStorage(Payment)
  wrapped.update = async () => { throw new Error('refused by the application') }
  await t.rejects(paywire.prepareCapture('eu', Object.assign(wrapped.create(), { number: 'WRAPPED-1' }), 'done'), { message: 'refused by the application' })
})

t.test('prepareCapture() refuses an unknown gateway before writing anything', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  await t.rejects(paywire.prepareCapture('cash', payment, 'done'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY', message: /Registered gateways: eu, us\./ })
  t.equal(payment.id, undefined, 'the payment got no id and was not stored')
  t.same(await storage.findBy({}), [])
})

t.test('prepareCapture() with a storage that gives ids only when saving: the payment is stored first', async (t) => {
  const memory = new MemoryStorage(Invoice)
  const order: string[] = []
  // A storage of the application's own (not an AbstractStorage): ids come from its update().
  const invoices = {
    modelName: 'Invoice',
    create: () => new Invoice(),
    support: (model: unknown): model is Invoice => model instanceof Invoice,
    update: async (model: Invoice) => { order.push('invoice'); await memory.update(model) },
    delete: (model: Invoice) => memory.delete(model),
    find: (id: string) => memory.find(id),
    findMany: (ids: readonly string[]) => memory.findMany(ids),
    findBy: () => memory.findBy({}),
    identify: (model: Invoice) => memory.identify(model),
    versionOf: (model: Invoice) => memory.versionOf(model)
  }
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('eu', { factory: 'acme', api_key: 'eu' })
    .addStorage(Invoice, invoices)
    .getPaywire()
  t.teardown(() => paywire.close())
  const tokenStorage = paywire.getTokenStorage()
  const save = tokenStorage.save.bind(tokenStorage)
  tokenStorage.save = async (tokens) => { order.push('tokens'); await save(tokens) }
  const invoice = Object.assign(new Invoice(), { number: 'INV-1' })
  const token = await paywire.prepareCapture('eu', invoice, 'done')
  t.same(order, ['invoice', 'tokens'])
  t.equal(token.details?.id, invoice.id)
  t.equal(token.details?.modelName, 'Invoice')
})

t.test('executeExclusive() runs a request on a stored payment by gateway name, as its only writer', async (t) => {
  const { paywire } = build()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'EX-1', totalAmount: 100, currencyCode: 'EUR' })
  await storage.update(payment)
  paywire.getGateway('eu').addAction(new FnAction(Capture, (request) => { (request.model as Payment).description = 'captured' }), true)
  paywire.getGateway('eu').addAction(new FnAction(Sync), true)
  const result = await paywire.executeExclusive('eu', payment, (target) => new Capture(target))
  t.equal(result.changed, true)
  t.equal((await storage.find(payment.id as string))?.description, 'captured')
  const read = await paywire.executeExclusive(paywire.getGateway('eu'), payment, (target) => new Sync(target))
  t.equal(read.changed, false, 'a status read changes nothing')
  t.equal(read.request.firstModel instanceof Payment, true)
  t.equal(paywire.getExclusiveExecutor().claimTtlMs, 6000)
})

t.test('the claim lifetime is configurable, and refused when it is not a sensible number of milliseconds', async (t) => {
  const paywire = new PaywireBuilder().setClaimTtlMs(5000).getPaywire()
  t.teardown(() => paywire.close())
  t.equal(paywire.getExclusiveExecutor().claimTtlMs, 5000)
  for (const bad of [0, 29, 1.5, Number.NaN]) {
    t.throws(() => new PaywireBuilder().setClaimTtlMs(bad), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /claimTtlMs/ }, String(bad))
  }
})
