import t from 'tap'
import {
  ArrayObject, Capture, CoreGatewayFactory, Gateway, GatewayRegistry, Logger, NullLogger, ServiceContainer, TokenStorage, MemoryTokenStorage,
  type Extension, type GatewayOptions
} from '../../../../../plugins/core/engine/index.ts'
import { gatewayValues, mergeGatewayOptions, mergeOptions } from '../../../../../plugins/core/engine/setup/gateway-registry.ts'
import { AcmeApi, AcmeGatewayFactory } from '../../../../helpers/acme-gateway.ts'

function registry (options: { extensions?: Extension[], factoryDefaults?: Map<string, Record<string, unknown>> } = {}) {
  const container = ServiceContainer.create().set(Logger, new NullLogger()).set(TokenStorage, new MemoryTokenStorage())
  const factory = new AcmeGatewayFactory()
  const gateways = new GatewayRegistry({ container, extensions: options.extensions ?? [], factoryDefaults: options.factoryDefaults })
    .addGatewayFactory('acme', factory)
  return { gateways, factory, container }
}

function apiOf (gateway: Gateway): AcmeApi {
  const action = gateway.actions.find((candidate) => 'api' in candidate) as unknown as { api: AcmeApi }
  return action.api
}

t.test('addGateway() without a factory is a coded error at the call', async (t) => {
  const { gateways } = registry()
  t.throws(() => gateways.addGateway('cash', {} as GatewayOptions), {
    code: 'PAYWIRE_ERR_GATEWAY_FACTORY_MISSING',
    message: 'Gateway "cash" has no factory: pass { factory: "<factory name>" } to addGateway().'
  })
  t.throws(() => gateways.addGateway('cash', { factory: '' }), { code: 'PAYWIRE_ERR_GATEWAY_FACTORY_MISSING' })
  t.notOk(gateways.hasGateway('cash'))
})

t.test('repeated addGateway() calls merge, deeply for nested objects', async (t) => {
  const { gateways } = registry()
  gateways.addGateway('main', { factory: 'acme', api_key: 'k1', endpoint: { url: 'https://a.example', retries: 1 } })
  gateways.addGateway('main', { api_key: 'k2', endpoint: { retries: 5 } } as unknown as GatewayOptions)
  t.same(gateways.getGatewayOptions('main'), { factory: 'acme', api_key: 'k2', endpoint: { url: 'https://a.example', retries: 5 } })
  t.same(apiOf(gateways.getGateway('main')).endpoint, { url: 'https://a.example', retries: 5 })
  t.equal(gateways.getGatewayOptions('unknown'), undefined)
})

t.test('a gateway is built once and cached; new options rebuild it', async (t) => {
  const { gateways, factory } = registry()
  gateways.addGateway('main', { factory: 'acme', api_key: 'k1' })
  const first = gateways.getGateway('main')
  t.equal(gateways.getGateway('main'), first)
  gateways.addGateway('other', { factory: 'acme' }).getGateway('other')
  t.equal(factory.configureContainerCalls, 1, 'one factory scope for every gateway of the factory')
  gateways.addGateway('main', { factory: 'acme', api_key: 'k2' })
  const rebuilt = gateways.getGateway('main')
  t.not(rebuilt, first)
  t.equal(apiOf(rebuilt).apiKey, 'k2')
})

t.test('gateway options override the factory\'s defaults; "x" is shorthand for "<factory>.x"', async (t) => {
  const { gateways } = registry()
  gateways.addGateway('defaults', { factory: 'acme' })
  gateways.addGateway('custom', { factory: 'acme', api_key: 'live-key', 'acme.sandbox': false })
  t.match(apiOf(gateways.getGateway('defaults')), { apiKey: '', sandbox: true, endpoint: { url: 'https://api.acme.example', retries: 1 } })
  const custom = apiOf(gateways.getGateway('custom'))
  t.equal(custom.apiKey, 'live-key')
  t.equal(custom.sandbox, false)
})

t.test('two gateways of one factory never share state', async (t) => {
  const { gateways } = registry()
  gateways.addGateway('eu', { factory: 'acme', api_key: 'eu-key' }).addGateway('us', { factory: 'acme', api_key: 'us-key' })
  const eu = gateways.getGateway('eu')
  const us = gateways.getGateway('us')
  t.not(apiOf(eu), apiOf(us))
  t.not(eu.actions[0], us.actions[0], 'every action instance is the gateway\'s own')
  const euDetails = new ArrayObject()
  const usDetails = new ArrayObject()
  await Promise.all([eu.execute(new Capture(euDetails)), us.execute(new Capture(usDetails))])
  t.equal(euDetails.get('api_key'), 'eu-key')
  t.equal(usDetails.get('api_key'), 'us-key')
})

t.test('factory config (addGatewayFactoryConfig) sits under the gateway\'s own options', async (t) => {
  const { gateways } = registry({ factoryDefaults: new Map([['acme', { api_key: 'shared-key', sandbox: false, endpoint: { url: 'https://x.example', retries: 2 } }]]) })
  gateways.addGateway('plain', { factory: 'acme' }).addGateway('own', { factory: 'acme', api_key: 'own-key', endpoint: { retries: 9 } })
  t.match(apiOf(gateways.getGateway('plain')), { apiKey: 'shared-key', sandbox: false, endpoint: { url: 'https://x.example', retries: 2 } })
  t.match(apiOf(gateways.getGateway('own')), { apiKey: 'own-key', sandbox: false, endpoint: { url: 'https://x.example', retries: 9 } })
})

t.test('gateway containers know their gateway and factory names; optionsPrefix renames the shorthand', async (t) => {
  t.same(gatewayValues('eu', 'acme', { factory: 'acme', api_key: 'k', 'other.flag': true }), {
    'paywire.gateway_name': 'eu', 'paywire.factory_name': 'acme', 'acme.api_key': 'k', 'other.flag': true
  })
  const container = ServiceContainer.create().set(Logger, new NullLogger()).set(TokenStorage, new MemoryTokenStorage())
  class Renamed extends AcmeGatewayFactory {
    readonly optionsPrefix = 'acme'
  }
  const gateways = new GatewayRegistry({ container, extensions: [] })
    .addGatewayFactory('acme_v2', new Renamed())
    .addGateway('main', { factory: 'acme_v2', api_key: 'prefixed' })
  t.equal(apiOf(gateways.getGateway('main')).apiKey, 'prefixed')
})

t.test('the registry\'s extensions are added to every gateway after the factory\'s', async (t) => {
  const extension: Extension = { onPreExecute: () => {} }
  const { gateways } = registry({ extensions: [extension] })
  const gateway = gateways.addGateway('main', { factory: 'acme' }).getGateway('main')
  t.equal(gateway.extensions.at(-1), extension)
  t.equal(gateway.extensions.length, 2)
})

t.test('a ready Gateway instance can be registered under a name', async (t) => {
  const { gateways } = registry()
  const ready = new Gateway()
  gateways.addGateway('ready', ready)
  t.equal(gateways.getGateway('ready'), ready)
  t.ok(gateways.hasGateway('ready'))
  gateways.addGateway('main', { factory: 'acme' })
  t.same(gateways.getGatewayNames(), ['main', 'ready'])
})

t.test('unknown gateways and factories are coded errors listing what is registered', async (t) => {
  const { gateways } = registry()
  t.throws(() => gateways.getGateway('cash'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY', statusCode: 404, message: 'Gateway "cash" is not registered. Registered gateways: none.' })
  gateways.addGateway('main', { factory: 'acme' }).addGateway('paypal', { factory: 'paypal' })
  t.throws(() => gateways.getGateway('cash'), { message: 'Gateway "cash" is not registered. Registered gateways: main, paypal.' })
  t.throws(() => gateways.getGateway('paypal'), {
    code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY',
    message: 'Gateway factory "paypal" (used by gateway "paypal") is not registered. Registered factories: acme. Register the factory (its gateway plugin, or addGatewayFactory()) before the gateway is built.'
  })
  gateways.addGateway('typo', { factory: 'Acm' })
  t.throws(() => gateways.getGateway('typo'), { message: /^Gateway factory "Acm" \(used by gateway "typo"\) is not registered\. Did you mean acme\? Registered factories: acme\./ },
    'a misspelt factory name gets the nearest registered one')
  t.throws(() => gateways.getGatewayFactory('paypal'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY', message: /Registered factories: acme\./ })
  t.throws(() => new GatewayRegistry({ container: ServiceContainer.create(), extensions: [] }).addGateway('x', { factory: 'y' }).getGateway('x'),
    { message: /Registered factories: none\./ })
})

t.test('a factory added after the gateway was registered (even after a failed lookup) is found', async (t) => {
  const { gateways } = registry()
  gateways.addGateway('late', { factory: 'late' })
  t.throws(() => gateways.getGateway('late'), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY' })
  gateways.addGatewayFactory('late', new AcmeGatewayFactory())
  t.ok(gateways.getGateway('late') instanceof Gateway)
  t.same(gateways.getGatewayFactoryNames(), ['acme', 'late'])
})

t.test('only 2.0 gateway factories are accepted', async (t) => {
  const { gateways } = registry()
  t.throws(() => gateways.addGatewayFactory('bad', {} as CoreGatewayFactory), {
    code: 'PAYWIRE_ERR_INVALID_GATEWAY_FACTORY', message: /^Gateway factory "bad" must be a CoreGatewayFactory/
  })
  t.ok(gateways.getGatewayFactory('acme') instanceof AcmeGatewayFactory)
})

t.test('close() disposes the gateway scopes and the factory scopes it made, not a scope it was given', async (t) => {
  const { gateways, factory, container } = registry()
  gateways.addGateway('eu', { factory: 'acme', api_key: 'eu' }).addGateway('us', { factory: 'acme', api_key: 'us' })
  gateways.getGateway('eu')
  gateways.getGateway('us')
  const pluginFactory = new AcmeGatewayFactory()
  const pluginScope = container.createScope().register(pluginFactory.configureContainer())
  pluginScope.get(AcmeApi)
  gateways.addGatewayFactory('plugin', pluginFactory, pluginScope).addGateway('p', { factory: 'plugin', 'acme.api_key': 'p' }).getGateway('p')
  t.equal(pluginFactory.configureContainerCalls, 1, 'a given scope is used as is')
  t.same(factory.disposed, [])
  await gateways.close()
  t.same(factory.disposed.sort(), ['eu', 'us'])
  t.same(pluginFactory.disposed, ['p'], 'the plugin\'s gateway scope is closed, the plugin\'s own scope is not')
  await gateways.close()
  t.same(factory.disposed.sort(), ['eu', 'us'], 'closing twice disposes nothing twice')
})

t.test('mergeOptions merges plain objects recursively and replaces everything else', async (t) => {
  t.same(mergeOptions({ a: { b: 1, c: [1] }, d: 1 }, { a: { c: [2] }, d: { e: 1 } }), { a: { b: 1, c: [2] }, d: { e: 1 } })
  t.same(mergeGatewayOptions('x', undefined, { factory: 'acme' }), { factory: 'acme' })
})
