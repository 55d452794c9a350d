import t from 'tap'
import {
  Capture, CoreGatewayFactory, Gateway, GatewayFactory, GatewayRegistry, HttpClient, PaywireBuilder, ServiceContainer,
  StorageExtension, legacyDeprecationsOf, recordDeprecations,
  type Details, type GatewayFactoryInterface, type LegacyConfig
} from '../../../../../plugins/core/engine/index.ts'

/** Keeps the config create() received, and the gateway's options as its API. */
class RecordingFactory extends GatewayFactory {
  configs: Details[] = []

  protected override populateConfig (config: LegacyConfig): void {
    config.defaults({ client_id: 'factory default', sandbox: true, region: 'factory default' })
    config.set('paywire.api', (config: LegacyConfig) => ({
      clientId: config.get('client_id'), sandbox: config.get('sandbox'), region: config.get('region')
    }))
    this.configs.push(config.data)
  }
}

function build (factory: GatewayFactoryInterface, configure: (builder: PaywireBuilder) => PaywireBuilder = (builder) => builder) {
  return configure(new PaywireBuilder().addGatewayFactory('acme', factory)).getPaywire()
}

t.test('a 1.x factory builds through getGateway() with the builder code of 2.0 factories', async (t) => {
  const factory = new RecordingFactory()
  const paywire = build(factory, (builder) => builder
    .addGatewayFactoryConfig('acme', { client_id: 'factory config', region: 'factory config' })
    .addGateway('shop', { factory: 'acme', client_id: 'gateway option', 'acme.sandbox': false }))
  t.teardown(() => paywire.close())

  const gateway = paywire.getGateway('shop')
  t.ok(gateway instanceof Gateway)
  t.equal(paywire.getGateway('shop'), gateway, 'built once, then cached')
  t.same(gateway.apis[0], { clientId: 'gateway option', sandbox: false, region: 'factory config' },
    'factory defaults < addGatewayFactoryConfig < gateway options; "acme.sandbox" reaches the 1.x config as "sandbox"')
  t.equal(factory.configs[0]?.['paywire.gateway_name'], 'shop')
  t.notOk('factory' in (factory.configs[0] ?? {}))
  t.ok(gateway.extensions.at(-1) instanceof StorageExtension, 'the registry still adds its extensions')
  t.same(legacyDeprecationsOf(gateway), ['PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP006', 'PAYWIREDEP011'],
    'what the build went through (the factory, PAYWIREDEP001, was constructed before)')
})

t.test('a hand-written GatewayFactoryInterface gets the options and the gateway\'s scope', async (t) => {
  const client = new (class extends HttpClient {
    async send () { return { statusCode: 200, headers: {}, body: '' } }
  })()
  const calls: Array<{ config: Details, container: ServiceContainer | undefined }> = []
  const factory: GatewayFactoryInterface = {
    createConfig: () => ({}),
    create (config: Details = {}, container?: ServiceContainer) {
      calls.push({ config, container })
      return new Gateway()
    }
  }
  const paywire = build(factory, (builder) => builder
    .addGlobalService(HttpClient, client)
    .addGateway('shop', { factory: 'acme', client_id: 'id-1' }))
  t.teardown(() => paywire.close())

  const codes = new Set<string>()
  const gateway = recordDeprecations(codes, () => paywire.getGateway('shop'))
  t.same([...codes], ['PAYWIREDEP004'])
  t.same(legacyDeprecationsOf(gateway), ['PAYWIREDEP004'])
  t.same(calls[0]?.config, { 'paywire.gateway_name': 'shop', client_id: 'id-1' })
  t.equal(calls[0]?.container?.get(HttpClient), client)
  t.ok(gateway.extensions[0] instanceof StorageExtension)
})

t.test('create() must return a Gateway', async (t) => {
  const paywire = build({ createConfig: () => ({}), create: () => ({}) as Gateway }, (builder) => builder.addGateway('shop', { factory: 'acme' }))
  t.teardown(() => paywire.close())
  t.throws(() => paywire.getGateway('shop'), { code: 'PAYWIRE_ERR_INVALID_GATEWAY_FACTORY', message: /Gateway factory "acme"/ })
})

t.test('a 1.x gateway runs requests like any other', async (t) => {
  const paywire = build(new RecordingFactory(), (builder) => builder.addGateway('shop', { factory: 'acme' }))
  t.teardown(() => paywire.close())
  await t.rejects(paywire.getGateway('shop').execute(new Capture({})), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' },
    'no action of this factory captures details: the gateway says so like a 2.0 one')
})

t.test('the registry refuses what is neither a 2.0 nor a 1.x factory', async (t) => {
  const registry = new GatewayRegistry({ container: ServiceContainer.create(), extensions: [] })
  t.throws(() => registry.addGatewayFactory('acme', { create () {} } as unknown as GatewayFactoryInterface),
    { code: 'PAYWIRE_ERR_INVALID_GATEWAY_FACTORY' })
  t.doesNotThrow(() => registry.addGatewayFactory('core', new CoreGatewayFactory()))
})

t.test('2.0 gateways have no build deprecations', async (t) => {
  const paywire = new PaywireBuilder().addGateway('plain', { factory: 'core' }).getPaywire()
  t.teardown(() => paywire.close())
  t.same(legacyDeprecationsOf(paywire.getGateway('plain')), [])
})
