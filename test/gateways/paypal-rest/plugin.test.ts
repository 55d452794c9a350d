import Fastify from 'fastify'
import t from 'tap'
import { PAYMENT_DETAILS_ID_PROPERTY, PaymentDetails, PaypalRestGatewayFactory, paypalRestGateway } from '../../../gateways/paypal-rest/index.ts'
import {
  MemoryStorage, MemoryStorageBackend, Payment, paywire, type ModelClass, type Storage, type StorageOptions
} from '../../../plugins/core/index.ts'
import { startPaypal } from './fixtures/shop.ts'

/** A memory backend that remembers the storages it was asked for. */
class SpyBackend extends MemoryStorageBackend {
  readonly created: Array<{ model: string, options: StorageOptions<object> | undefined }> = []

  override createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T> {
    this.created.push({ model: Model.name, options: options as StorageOptions<object> | undefined })
    return super.createStorage(Model, options)
  }
}

t.test('the plugin registers paypal_rest and gives the REST details record a storage of the application\'s backend', async (t) => {
  const backend = new SpyBackend()
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { backend, baseUrl: 'https://shop.example' })
  await app.register(paypalRestGateway)
  await app.ready()
  t.ok(app.paywire.getGatewayFactory('paypal_rest') instanceof PaypalRestGatewayFactory)
  t.match(backend.created.find((created) => created.model === 'PaymentDetails'), { options: { idProperty: PAYMENT_DETAILS_ID_PROPERTY, indexes: ['id'] } })
  const storage = app.paywire.getStorage(PaymentDetails)
  const details = storage.create()
  await storage.update(details)
  t.type(details.idStorage, 'string', 'the storage id goes to idStorage, PayPal\'s id stays free')
  t.equal(details.id, undefined)
})

t.test('an application\'s own PaymentDetails storage is kept', async (t) => {
  const own = new MemoryStorage(PaymentDetails, { idProperty: 'idStorage', modelName: 'PaypalDetails' })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example', storages: [[PaymentDetails, own]] })
  await app.register(paypalRestGateway)
  await app.ready()
  t.equal(app.paywire.getStorage(PaymentDetails), own)
})

t.test('registered under another factory name, it still builds working gateways', async (t) => {
  const { paypal, endpoint, client } = await startPaypal(t)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example' })
  await app.register(paypalRestGateway, { factoryName: 'paypal_classic' })
  await app.ready()
  app.paywire.addGateway('paypal', { factory: 'paypal_classic', client_id: client.clientId, client_secret: client.clientSecret, config: { 'service.EndPoint': endpoint } })
  const payment = Object.assign(new Payment(), { totalAmount: 250, currencyCode: 'GBP' })
  await app.paywire.getStorage(Payment).update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken('paypal', payment, 'done')
  const toPaypal = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(toPaypal.statusCode, 302)
  t.match(toPaypal.headers.location, `${endpoint}/cgi-bin/webscr?cmd=_express-checkout&token=EC-`)
  t.equal(paypal.simulator.counters().paymentsCreated, 1)
})
