import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paypalRestGateway } from '../../../gateways/paypal-rest/index.ts'
import { paywire, type PaywirePluginOptions } from '../../../plugins/core/index.ts'

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

/** An app with the core plugin, then the given gateway plugins; what app.ready() does. */
async function boot (t: Test, options: PaywirePluginOptions, plugins = [offlineGateway]) {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example', ...options })
  for (const plugin of plugins) await app.register(plugin)
  return { app, ready: app.ready().then(() => undefined, (error: unknown) => error as Error & { code: string }) }
}

t.test('app.ready() builds every gateway: a working setup boots with its gateways built', async (t) => {
  const { app, ready } = await boot(t, { gateways: { cash: { factory: 'offline' } } })
  t.equal(await ready, undefined)
  t.ok(app.paywire.getGateway('cash').actions.length > 0)
})

t.test('a misspelt factory fails boot, naming the nearest registered one', async (t) => {
  const { ready } = await boot(t, { gateways: { cash: { factory: 'ofline' } } })
  const error = await ready
  t.equal(error?.code, 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY')
  t.match(error?.message, /^Gateway factory "ofline" \(used by gateway "cash"\) is not registered\. Did you mean offline\? Registered factories: core, offline\./)
})

t.test('a gateway whose plugin was never registered fails boot', async (t) => {
  const { ready } = await boot(t, { gateways: { paypal: { factory: 'paypal_rest', client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>' } } })
  const error = await ready
  t.equal(error?.code, 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY')
  t.match(error?.message, 'Gateway factory "paypal_rest" (used by gateway "paypal") is not registered.')
})

t.test('empty PayPal credentials fail boot, not the first payment', async (t) => {
  const { ready } = await boot(t, { gateways: { paypal: { factory: 'paypal_rest', client_id: '<CLIENT_ID>', client_secret: '' } } }, [paypalRestGateway])
  const error = await ready
  t.equal(error?.code, 'PAYWIRE_ERR_REQUIRED_OPTION')
  t.equal(error?.message, 'Gateway "paypal": option "client_secret" is required and must not be empty.')
})

t.test('a gateway added after boot is built on first use, as before', async (t) => {
  const { app, ready } = await boot(t, {})
  t.equal(await ready, undefined)
  app.paywire.addGateway('late', { factory: 'ofline' })
  t.throws(() => app.paywire.getGateway('late'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY', message: /Did you mean offline\?/ })
})
