import t from 'tap'
import {
  ArrayObject, AuthorizePaymentAction, Capture, CapturePaymentAction, CoreGatewayFactory, EndlessCycleDetectorExtension,
  CheckpointAction, ExecuteSameRequestWithModelDetailsAction, GetCurrency, GetCurrencyAction, GetHttpRequestAction, GetToken, GetTokenAction,
  MemoryTokenStorage, PayoutPayoutAction, RenderTemplate, RenderTemplateAction, ServiceContainer, Token, TokenStorage, autowire, get,
  isContainerGatewayFactory, serviceId, type ActionEntry, type ContainerConfiguration, type Context, type ExtensionEntry
} from '../../../../../plugins/core/engine/index.ts'
import { FnGatewayAction } from '../../../../helpers/engine.ts'

/** The container a gateway of `factory` gets: root (token storage) → factory definitions → gateway scope. */
function gatewayScope (factory: CoreGatewayFactory, values: ContainerConfiguration = {}) {
  const tokenStorage = new MemoryTokenStorage()
  const root = ServiceContainer.create().set(TokenStorage, tokenStorage)
  const scope = root.createScope().register(factory.configureContainer()).createScope().register(values)
  return { scope, tokenStorage }
}

class AcmeApi {
  readonly apiKey: string
  constructor (apiKey: string) {
    this.apiKey = apiKey
  }
}

class AcmeCaptureAction {
  static readonly inject = ['api']
  readonly api: AcmeApi
  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Capture && request.model instanceof ArrayObject
  }

  execute (request: Capture): void {
    (request.model as ArrayObject).set('charged_with', this.api.apiKey)
  }
}

class UrgentAction {
  readonly prepend = true
  supports (): boolean { return false }
  execute (): void {}
}

class AcmeGatewayFactory extends CoreGatewayFactory {
  readonly templates: string
  constructor (templates: string) {
    super()
    this.templates = templates
  }

  override configureContainer (): ContainerConfiguration {
    const parent = super.configureContainer()
    return {
      ...parent,
      'acme.api_key': '',
      [serviceId(AcmeApi)]: autowire(AcmeApi).constructor(get('acme.api_key')),
      [serviceId(AcmeCaptureAction)]: autowire(AcmeCaptureAction).constructorParameter('api', get(AcmeApi)),
      'paywire.paths': { ...parent['paywire.paths'], Acme: this.templates }
    }
  }

  override getActions (): ActionEntry[] {
    return [...super.getActions(), AcmeCaptureAction, UrgentAction]
  }
}

const CORE_ACTIONS = [
  GetHttpRequestAction, CapturePaymentAction, AuthorizePaymentAction, PayoutPayoutAction,
  ExecuteSameRequestWithModelDetailsAction, RenderTemplateAction, GetCurrencyAction, GetTokenAction, CheckpointAction
]

t.test('the core factory lists the core action classes in order and the endless cycle detector', async (t) => {
  const factory = new CoreGatewayFactory()
  t.same(factory.getActions(), CORE_ACTIONS)
  t.same(factory.getExtensions(), [EndlessCycleDetectorExtension])
  t.ok(isContainerGatewayFactory(factory))
  t.notOk(isContainerGatewayFactory({ configureContainer () {} }))
  t.notOk(isContainerGatewayFactory(null))
})

t.test('createGateway() resolves the actions from the container and registers them in list order', async (t) => {
  const { scope } = gatewayScope(new CoreGatewayFactory())
  const gateway = new CoreGatewayFactory().createGateway(scope)
  t.same(gateway.actions.map((action) => action.constructor), CORE_ACTIONS)
  t.equal(gateway.extensions.length, 1)
  t.ok(gateway.extensions[0] instanceof EndlessCycleDetectorExtension)
  t.equal(scope.get(GetTokenAction), gateway.actions[7], 'registered actions come from the container')
})

t.test('the core actions work with what the container injects', async (t) => {
  const { scope, tokenStorage } = gatewayScope(new CoreGatewayFactory())
  const gateway = new CoreGatewayFactory().createGateway(scope)
  const token = new Token()
  await tokenStorage.save([token])
  const getToken = new GetToken(token.hash)
  await gateway.execute(getToken)
  t.same(getToken.token, token)
  const currency = new GetCurrency(978)
  await gateway.execute(currency)
  t.equal(currency.alpha3, 'EUR')
  const page = new RenderTemplate('@PaywireCore/layout.html', { title: 'T', content: '<p>x</p>', layout: null })
  await gateway.execute(page)
  t.match(page.result, '<title>T</title>')
})

t.test('the endless cycle detector is on by default', async (t) => {
  class LoopingFactory extends CoreGatewayFactory {
    override getActions (): ActionEntry[] {
      return [class Loop extends FnGatewayAction<Capture> {
        constructor () { super(Capture, (request, gateway) => gateway.execute(request)) }
      }]
    }
  }
  const gateway = new LoopingFactory().createGateway(gatewayScope(new LoopingFactory()).scope)
  await t.rejects(gateway.execute(new Capture({})), { code: 'PAYWIRE_ERR_ENDLESS_CYCLE' })
})

t.test('a subclass adds definitions, actions and template paths; prepend markers come first', async (t) => {
  const templates = t.testdir({ 'page.html': '<p>{{ message }}</p>' })
  const factory = new AcmeGatewayFactory(templates)
  const { scope } = gatewayScope(factory, { 'acme.api_key': 'key-from-gateway' })
  const gateway = factory.createGateway(scope)
  t.ok(gateway.actions[0] instanceof UrgentAction, 'the prepend action is consulted first')
  t.same(gateway.actions.slice(1).map((action) => action.constructor), [...CORE_ACTIONS, AcmeCaptureAction])

  const request = new Capture({})
  await gateway.execute(request)
  t.same((request.model as ArrayObject).data, { charged_with: 'key-from-gateway' })

  const own = new RenderTemplate('@Acme/page.html', { message: 'hi', layout: null })
  await gateway.execute(own)
  t.equal(own.result, '<p>hi</p>')
  const core = new RenderTemplate('@PaywireCore/layout.html', { content: 'c', layout: null })
  await gateway.execute(core)
  t.match(core.result, '<main>\nc\n</main>', 'the core namespace still resolves')
  t.same(factory.configureContainer()['paywire.paths'], { Acme: templates })
})

t.test('action classes not registered in configureContainer() are autowired', async (t) => {
  class Plain {
    supports (): boolean { return false }
    execute (): void {}
  }
  class NeedsSomething {
    static readonly inject = ['dependency']
    readonly dependency: unknown
    constructor (dependency: unknown) { this.dependency = dependency }
    supports (): boolean { return false }
    execute (): void {}
  }
  class WithPlain extends CoreGatewayFactory {
    override getActions (): ActionEntry[] { return [Plain] }
  }
  class WithDependency extends CoreGatewayFactory {
    override getActions (): ActionEntry[] { return [NeedsSomething] }
  }
  t.ok(new WithPlain().createGateway(gatewayScope(new WithPlain()).scope).actions[0] instanceof Plain)
  t.throws(() => new WithDependency().createGateway(gatewayScope(new WithDependency()).scope), {
    code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED',
    message: /NeedsSomething: constructor parameter "dependency"/
  })
})

t.test('getActions() entries must be action classes: instances and non-actions are coded errors', async (t) => {
  class InstanceFactory extends CoreGatewayFactory {
    override getActions (): ActionEntry[] { return [new GetCurrencyAction() as unknown as ActionEntry] }
  }
  t.throws(() => new InstanceFactory().createGateway(gatewayScope(new InstanceFactory()).scope), {
    code: 'PAYWIRE_ERR_INVALID_ACTION_ENTRY',
    message: 'getActions() of InstanceFactory returned an instance of GetCurrencyAction: entries must be action classes (not instances) so the container can inject their dependencies.'
  })
  class NotAnAction {}
  class NotAnActionFactory extends CoreGatewayFactory {
    override getActions (): ActionEntry[] { return [NotAnAction as ActionEntry] }
  }
  t.throws(() => new NotAnActionFactory().createGateway(gatewayScope(new NotAnActionFactory()).scope), {
    code: 'PAYWIRE_ERR_INVALID_ACTION_ENTRY',
    message: /returned NotAnAction, which has no supports\(\)\/execute\(\)/
  })
})

t.test('getExtensions() accepts extension classes and ready instances, and nothing else', async (t) => {
  const seen: string[] = []
  class CountingExtension {
    onPreExecute (context: Context): void { seen.push(`class:${context.previous.length}`) }
  }
  const instance = { onPostExecute: () => { seen.push('instance') } }
  class WithExtensions extends CoreGatewayFactory {
    override getActions (): ActionEntry[] { return [GetCurrencyAction] }
    override getExtensions (): ExtensionEntry[] { return [...super.getExtensions(), CountingExtension, instance] }
  }
  const gateway = new WithExtensions().createGateway(gatewayScope(new WithExtensions()).scope)
  t.equal(gateway.extensions[2], instance)
  await gateway.execute(new GetCurrency('EUR'))
  t.same(seen, ['class:0', 'instance'])

  for (const invalid of [{ notAHook: true }, class NoHooks {}, 'StorageExtension', null]) {
    class Invalid extends CoreGatewayFactory {
      override getExtensions (): ExtensionEntry[] { return [invalid as ExtensionEntry] }
    }
    t.throws(() => new Invalid().createGateway(gatewayScope(new Invalid()).scope), {
      code: 'PAYWIRE_ERR_INVALID_EXTENSION_ENTRY',
      message: /^getExtensions\(\) of Invalid returned (Object|NoHooks|string|null): entries must be extension classes or extension instances/
    })
  }
})
