import t from 'tap'
import {
  ApiAware, CoreGatewayFactory, Gateway, GatewayFactory, PaywireBuilder, diagnosePaywire,
  type Action, type GatewayFactoryInterface, type LegacyConfig
} from '../../../../../plugins/core/engine/index.ts'

class AcmeApi {}

class ApiAction extends ApiAware(Object, AcmeApi) implements Action {
  supports (): boolean { return false }
  execute (): void {}
}

class ApiFactory extends GatewayFactory {
  protected override populateConfig (config: LegacyConfig): void {
    config.defaults({ 'paywire.action.api': new ApiAction(), 'paywire.api': new AcmeApi() })
  }
}

function throwing (thrown: unknown): GatewayFactoryInterface {
  return { createConfig: () => ({}), create: () => { throw thrown } }
}

t.test('per gateway: factory, style, deprecations in code order, errors; one failure hides nothing', async (t) => {
  const paywire = new PaywireBuilder()
    .addGatewayFactory('acme', new ApiFactory())
    .addGatewayFactory('modern', new CoreGatewayFactory())
    .addGatewayFactory('coded', throwing(Object.assign(new Error('coded failure'), { code: 'ACME_ERR' })))
    .addGatewayFactory('plain', throwing(new TypeError('plain failure')))
    .addGatewayFactory('odd', throwing('a string'))
    .addGateway('legacy', { factory: 'acme' })
    .addGateway('modern', { factory: 'modern' })
    .addGateway('coded', { factory: 'coded' })
    .addGateway('plain', { factory: 'plain' })
    .addGateway('odd', { factory: 'odd' })
    .addGateway('missing', { factory: 'nowhere' })
    .getPaywire()
  t.teardown(() => paywire.close())

  const diagnoses = diagnosePaywire(paywire)
  const legacy = diagnoses[0]
  t.match(legacy, { gateway: 'legacy', factory: 'acme', style: '1.x', errors: [] })
  t.same(legacy?.deprecations.map((deprecation) => deprecation.code),
    ['PAYWIREDEP001', 'PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP005', 'PAYWIREDEP006', 'PAYWIREDEP007'])
  t.same(diagnoses[1], { gateway: 'modern', factory: 'modern', style: '2.0', deprecations: [], errors: [] })
  t.same(diagnoses.slice(2).map(({ gateway, style, errors }) => ({ gateway, style, errors })), [
    { gateway: 'coded', style: '1.x', errors: [{ code: 'ACME_ERR', message: 'coded failure' }] },
    { gateway: 'plain', style: '1.x', errors: [{ code: 'TypeError', message: 'plain failure' }] },
    { gateway: 'odd', style: '1.x', errors: [{ code: 'Error', message: 'a string' }] },
    {
      gateway: 'missing',
      style: undefined,
      errors: [{ code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY', message: 'Gateway factory "nowhere" (used by gateway "missing") is not registered. Registered factories: core, acme, modern, coded, plain, odd. Register the factory (its gateway plugin, or addGatewayFactory()) before the gateway is built.' }]
    }
  ])
})

t.test('a ready gateway object: its APIs and ApiAware actions are found, and an action no API fits is an error', async (t) => {
  const gateway = new Gateway().addAction(new ApiAction()).addApi('not an Acme API')
  const paywire = new PaywireBuilder().addGateway('hand-made', gateway).getPaywire()
  t.teardown(() => paywire.close())

  const [diagnosis] = diagnosePaywire(paywire)
  t.equal(diagnosis?.factory, undefined)
  t.equal(diagnosis?.style, undefined)
  t.same(diagnosis?.deprecations.map((deprecation) => deprecation.code), ['PAYWIREDEP006', 'PAYWIREDEP007'])
  t.match(diagnosis?.errors, [{ code: 'PAYWIRE_ERR_API_NOT_FOUND', message: /action ApiAction: it needs an instance of AcmeApi and the gateway has only an instance of string/ }])
})

t.test('gateways built before the doctor ran still show what their build went through', async (t) => {
  const paywire = new PaywireBuilder().addGatewayFactory('acme', new ApiFactory()).addGateway('legacy', { factory: 'acme' }).getPaywire()
  t.teardown(() => paywire.close())
  paywire.getGateway('legacy')
  t.same(diagnosePaywire(paywire)[0]?.deprecations.map((deprecation) => deprecation.code),
    ['PAYWIREDEP001', 'PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP005', 'PAYWIREDEP006', 'PAYWIREDEP007'])
})
