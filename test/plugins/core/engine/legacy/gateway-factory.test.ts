import t from 'tap'
import {
  ApiAware, Capture, CoreGatewayFactory, EndlessCycleDetectorExtension, Gateway, GatewayFactory, GetHttpRequestAction,
  GetTokenAction, HttpClient, LegacyMessageFactory, LegacyStreamFactory, MemoryTokenStorage, RenderTemplateAction,
  ServiceContainer, TokenStorage, isLegacyGatewayFactory, recordDeprecations,
  type Action, type Context, type Extension, type LegacyConfig
} from '../../../../../plugins/core/engine/index.ts'

class AcmeApi {
  readonly clientId: string
  constructor (clientId: string) {
    this.clientId = clientId
  }
}

class NamedAction implements Action {
  readonly name: string
  constructor (name: string) {
    this.name = name
  }

  supports (request: unknown): boolean {
    return request instanceof Capture && (request.model as { get: (key: string) => unknown }).get('use') === this.name
  }

  execute (): void {}
}

class ApiCaptureAction extends ApiAware(Object, AcmeApi) implements Action {
  supports (request: unknown): boolean {
    return request instanceof Capture
  }

  execute (): void {}
}

class NamedExtension implements Extension {
  readonly name: string
  constructor (name: string) {
    this.name = name
  }

  onExecute (_context: Context): void {}
}

let apiClosureCalls = 0

/** A 1.x factory the way Payum's gateways were written. */
class AcmeGatewayFactory extends GatewayFactory {
  protected override populateConfig (config: LegacyConfig): void {
    config.defaults({
      'paywire.factory_name': 'acme',
      'paywire.action.capture': new ApiCaptureAction(),
      'paywire.action.second': new NamedAction('second'),
      'paywire.extension.acme': new NamedExtension('acme'),
      'paywire.template.layout': '@Acme/ignored-because-core-defaults-come-first.html'
    })
    if (!config.has('paywire.api')) {
      config.set('paywire.default_options', { client_id: '', client_secret: '', sandbox: true })
      config.defaults(config.get('paywire.default_options'))
      config.set('paywire.required_options', ['client_id', 'client_secret'])
      config.set('paywire.api', (config: LegacyConfig) => {
        apiClosureCalls++
        return new AcmeApi(config.get('client_id'))
      })
    }
  }
}

function codesOf (run: () => unknown): string[] {
  const codes = new Set<string>()
  recordDeprecations(codes, run)
  return [...codes].sort()
}

/** A gateway scope as the registry makes one: global services above it. */
function containerWith (client: HttpClient | undefined): ServiceContainer {
  const root = ServiceContainer.create().set(TokenStorage, new MemoryTokenStorage())
  if (client !== undefined) root.set(HttpClient, client)
  return root.createScope()
}

function actionNames (actions: readonly Action[]): string[] {
  return actions.map((action) => action instanceof NamedAction ? action.name : action.constructor.name)
}

const credentials = { client_id: 'id-1', client_secret: 'secret-1' }

t.test('isLegacyGatewayFactory() tells 1.x factories from 2.0 ones', async (t) => {
  t.ok(isLegacyGatewayFactory(new AcmeGatewayFactory()))
  t.ok(isLegacyGatewayFactory({ create () {}, createConfig () {} }))
  t.notOk(isLegacyGatewayFactory(new CoreGatewayFactory()))
  t.notOk(isLegacyGatewayFactory({ create () {} }))
  t.notOk(isLegacyGatewayFactory(undefined))
})

t.test('createConfig() gives every default, closures unresolved', async (t) => {
  const factory = new AcmeGatewayFactory({ 'acme.region': 'eu' })
  let config: Record<string, unknown> = {}
  t.same(codesOf(() => { config = factory.createConfig({ client_id: 'mine' }) }), ['PAYWIREDEP002', 'PAYWIREDEP003', 'PAYWIREDEP007'],
    'populateConfig built an ApiAware action')
  const keys = Object.keys(config)
  t.same(keys.slice(0, 2), ['client_id', 'acme.region'], 'user keys, then the constructor defaults, then the rest')
  t.equal(config.client_id, 'mine')
  t.equal(config.sandbox, true)
  t.same(config['paywire.prepend_actions'], [])
  t.same(config['paywire.prepend_extensions'], [])
  t.same(config['paywire.prepend_apis'], [])
  t.equal(config['paywire.template.layout'], '@PaywireCore/layout.html', 'core defaults come before the factory\'s, as in 1.x')
  t.equal(typeof config['paywire.api'], 'function')
  t.equal(apiClosureCalls, 0)
  t.same(keys.filter((key) => key.startsWith('paywire.action.')), [
    'paywire.action.get_http_request', 'paywire.action.capture_payment', 'paywire.action.authorize_payment',
    'paywire.action.payout_payout', 'paywire.action.execute_same_request_with_model_details',
    'paywire.action.render_template', 'paywire.action.get_currency', 'paywire.action.checkpoint',
    'paywire.action.capture', 'paywire.action.second'
  ], 'no get_token without a token storage, as in 1.x')
  t.same(keys.filter((key) => key.startsWith('paywire.extension.')), ['paywire.extension.endless_cycle_detector', 'paywire.extension.acme'])
})

t.test('constructing a GatewayFactory records PAYWIREDEP001; a plain one does not use populateConfig', async (t) => {
  t.same(codesOf(() => new GatewayFactory()), ['PAYWIREDEP001'])
  t.same(codesOf(() => new GatewayFactory().createConfig()), ['PAYWIREDEP001', 'PAYWIREDEP003'])
})

t.test('create() builds the gateway: core actions, then the factory\'s, in key order; APIs; extensions', async (t) => {
  apiClosureCalls = 0
  let gateway = new Gateway()
  t.same(codesOf(() => { gateway = new AcmeGatewayFactory().create(credentials) }), [
    'PAYWIREDEP001', 'PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP005', 'PAYWIREDEP006', 'PAYWIREDEP007', 'PAYWIREDEP011'
  ])
  t.same(actionNames(gateway.actions), [
    'GetHttpRequestAction', 'CapturePaymentAction', 'AuthorizePaymentAction', 'PayoutPayoutAction',
    'ExecuteSameRequestWithModelDetailsAction', 'RenderTemplateAction', 'GetCurrencyAction', 'CheckpointAction', 'ApiCaptureAction', 'second'
  ])
  t.equal(apiClosureCalls, 1)
  t.equal(gateway.apis.length, 1)
  t.equal((gateway.apis[0] as AcmeApi).clientId, 'id-1', 'the closure saw the user\'s option')
  t.same(gateway.extensions.map((extension) => extension.constructor.name), ['EndlessCycleDetectorExtension', 'NamedExtension'])

  const capture = gateway.actions.find((action) => action instanceof ApiCaptureAction) as ApiCaptureAction
  await gateway.execute(new Capture({}))
  t.equal(capture.api, gateway.apis[0], 'the ApiAware action got the gateway\'s API')
})

t.test('user keys come before the core ones, replace them by name, and win over every default', async (t) => {
  const gateway = new AcmeGatewayFactory({ client_secret: 'from the factory defaults' }).create({
    client_id: 'id-1',
    'paywire.action.user_first': new NamedAction('user'),
    'paywire.action.get_http_request': new NamedAction('replaced core action'),
    'paywire.action.second': new NamedAction('replaced factory action'),
    'paywire.template.layout': '@Shop/layout.html'
  })
  t.same(actionNames(gateway.actions).slice(0, 3), ['user', 'replaced core action', 'replaced factory action'])
  t.notOk(gateway.actions.some((action) => action instanceof GetHttpRequestAction))
  const render = gateway.actions.find((action) => action instanceof RenderTemplateAction) as RenderTemplateAction
  t.equal(render.layout, '@Shop/layout.html', 'a core default loses to the user\'s value')
})

t.test('the prepend lists put their keys first; left out or null they change nothing', async (t) => {
  const api = new AcmeApi('prepended')
  const gateway = new AcmeGatewayFactory().create({
    ...credentials,
    'paywire.api.extra': api,
    'paywire.extension.first': new NamedExtension('first'),
    'paywire.prepend_actions': ['paywire.action.second'],
    'paywire.prepend_extensions': ['paywire.extension.first'],
    'paywire.prepend_apis': ['paywire.api.extra']
  })
  t.equal(actionNames(gateway.actions)[0], 'second')
  t.equal((gateway.extensions[0] as NamedExtension).name, 'first')
  t.equal(gateway.apis[0], api)

  const withNull = new AcmeGatewayFactory().create({ ...credentials, 'paywire.prepend_actions': null })
  t.equal(actionNames(withNull.actions)[0], 'GetHttpRequestAction')
})

t.test('a factory without action or extension keys of its own does not use PAYWIREDEP005', async (t) => {
  const codes = codesOf(() => new GatewayFactory().create())
  t.notOk(codes.includes('PAYWIREDEP005'))
  t.notOk(codes.includes('PAYWIREDEP006'))
  t.ok(codesOf(() => new GatewayFactory().create({ 'paywire.prepend_apis': ['paywire.api.none'] })).includes('PAYWIREDEP006'),
    'a prepend list alone is a use of the keys')
})

t.test('required options are checked before any API is built, naming the option', async (t) => {
  apiClosureCalls = 0
  const error = t.throws(() => new AcmeGatewayFactory().create({ client_id: 'id-not-in-messages', client_secret: '', 'paywire.gateway_name': 'shop' }), {
    code: 'PAYWIRE_ERR_REQUIRED_OPTION',
    message: 'Gateway "shop": option "client_secret" is required and must not be empty.'
  }) as Error
  t.notMatch(error.message, /id-not-in-messages/)
  t.equal(apiClosureCalls, 0)
  t.throws(() => new AcmeGatewayFactory().create({}), { message: 'Gateway "acme": option "client_id" is required and must not be empty.' })
})

t.test('an entry that is not what its key holds is a coded error', async (t) => {
  t.throws(() => new GatewayFactory().create({ 'paywire.action.broken': { supports: true } }), {
    code: 'PAYWIRE_ERR_INVALID_CONFIG_ENTRY',
    message: 'Config key "paywire.action.broken" must hold an action (supports, execute) (or a closure returning one), not Object.'
  })
  t.throws(() => new GatewayFactory().create({ 'paywire.api': () => 'key' }), {
    message: /"paywire.api" must hold an API object .* not string/
  })
  t.throws(() => new GatewayFactory().create({ 'paywire.extension.broken': () => 42 }), {
    message: /"paywire.extension.broken" must hold an extension .* not number/
  })
})

t.test('the httplug.* keys are the HttpClient service and small request and stream factories', async (t) => {
  const client = new (class extends HttpClient {
    async send () { return { statusCode: 204, headers: {}, body: '' } }
  })()
  let seen: Record<string, unknown> = {}
  class HttpFactory extends GatewayFactory {
    protected override populateConfig (config: LegacyConfig): void {
      config.set('acme.http', (config: LegacyConfig) => {
        seen = {
          client: config.get('httplug.client'),
          paywireClient: config.get('paywire.http_client'),
          messageFactory: config.get('httplug.message_factory'),
          streamFactory: config.get('httplug.stream_factory')
        }
      })
    }
  }
  const codes = codesOf(() => new HttpFactory().create({}, containerWith(client)))
  t.same(codes.filter((code) => ['PAYWIREDEP008', 'PAYWIREDEP009', 'PAYWIREDEP010'].includes(code)), ['PAYWIREDEP008', 'PAYWIREDEP009', 'PAYWIREDEP010'])
  t.equal(seen.client, client)
  t.equal(seen.paywireClient, client)
  const messageFactory = seen.messageFactory as LegacyMessageFactory
  t.ok(messageFactory instanceof LegacyMessageFactory)
  t.same(messageFactory.createRequest('POST', 'https://acme.example/charges', { 'x-a': '1' }, '{}'),
    { method: 'POST', url: 'https://acme.example/charges', headers: { 'x-a': '1' }, body: '{}' })
  t.same(messageFactory.createRequest('GET', 'https://acme.example/'), { method: 'GET', url: 'https://acme.example/', headers: {}, body: undefined })
  const streamFactory = seen.streamFactory as LegacyStreamFactory
  t.equal(streamFactory.createStream('body'), 'body')
  t.equal(streamFactory.createStream(), '')

  t.notOk(codesOf(() => new GatewayFactory().create()).includes('PAYWIREDEP008'), 'unread, the keys warn about nothing')
})

t.test('templates, token action and extensions of the core come from the given container', async (t) => {
  const container = containerWith(undefined)
  const gateway = new AcmeGatewayFactory().create({
    ...credentials,
    'paywire.paths': { Acme: '/acme/templates' },
    'paywire.template.layout': '@Acme/layout.html'
  }, container)
  const render = gateway.actions.find((action) => action instanceof RenderTemplateAction) as RenderTemplateAction
  t.same(render.renderer.paths.Acme, ['/acme/templates'])
  t.equal(render.layout, '@Acme/layout.html')
  t.ok(gateway.actions.some((action) => action instanceof GetTokenAction), 'with a token storage, the token action is there')
  t.ok(gateway.extensions[0] instanceof EndlessCycleDetectorExtension)
})

t.test('a core factory returning an extension instance keeps it', async (t) => {
  const detector = new EndlessCycleDetectorExtension(5)
  class InstanceCore extends CoreGatewayFactory {
    override getExtensions () { return [detector] }
  }
  const gateway = new GatewayFactory({}, new InstanceCore()).create()
  t.equal(gateway.extensions[0], detector)
})
