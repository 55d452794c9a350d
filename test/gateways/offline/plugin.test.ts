import { fastifyAwilixPlugin } from '@fastify/awilix'
import { createContainer, InjectionMode } from 'awilix'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import t from 'tap'
import { OfflineGatewayFactory, offlineGateway } from '../../../gateways/offline/index.ts'
import defaultExport from '../../../gateways/offline/plugin.ts'
import { Capture, GetHumanStatus, Payment, PaywireBuilder } from '../../../plugins/core/engine/index.ts'
import type {} from '../../../plugins/core/index.ts'

/*
 * A stand-in for the core plugin: what a gateway plugin needs from it is the "paywire"
 * plugin name, app.paywire and app.diContainer (the core plugin itself is tested in
 * test/plugins/core).
 */
const core = fp(async (app: FastifyInstance, options: { gateways: Record<string, string> }) => {
  await app.register(fastifyAwilixPlugin, {
    container: createContainer({ injectionMode: InjectionMode.PROXY, strict: true }),
    disposeOnResponse: false,
    asyncInit: false,
    eagerInject: false
  })
  const builder = new PaywireBuilder().setContainer(app.diContainer).setBaseUrl('https://shop.example')
  for (const [name, factory] of Object.entries(options.gateways)) builder.addGateway(name, { factory })
  const paywire = builder.getPaywire()
  app.decorate('paywire', paywire)
  app.addHook('onClose', () => paywire.close())
}, { name: 'paywire' })

t.test('registered after the core plugin, the offline plugin adds the offline factory; its gateways capture', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(core, { gateways: { cash: 'offline' } })
  await app.register(offlineGateway)
  await app.ready()
  t.equal(defaultExport, offlineGateway)
  t.ok(app.paywire.getGatewayFactory('offline') instanceof OfflineGatewayFactory)

  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { totalAmount: 100, currencyCode: 'EUR' })
  await storage.update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await app.paywire.getGateway('cash').execute(new Capture(token))
  const status = new GetHumanStatus(token)
  await app.paywire.getGateway('cash').execute(status)
  t.equal(status.value, 'captured')
})

t.test('factoryName registers the factory under another name', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(core, { gateways: { till: 'cash_desk' } })
  await app.register(offlineGateway, { factoryName: 'cash_desk' })
  await app.ready()
  t.ok(app.paywire.getGatewayFactory('cash_desk') instanceof OfflineGatewayFactory)
  t.same(app.paywire.getGatewayFactoryNames(), ['core', 'cash_desk'])
  t.ok(app.paywire.getGateway('till'))
})

t.test('without the core plugin, registration fails', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(offlineGateway)
  await t.rejects(async () => { await app.ready() }, /paywire/)
})
