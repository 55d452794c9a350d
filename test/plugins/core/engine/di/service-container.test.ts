import { createContainer } from 'awilix'
import t from 'tap'
import { ServiceContainer, autowire, factory, get, serviceId } from '../../../../../plugins/core/engine/index.ts'

class Settings {
  readonly key: string
  readonly sandbox: boolean
  constructor (key: string, sandbox = true) {
    this.key = key
    this.sandbox = sandbox
  }
}

class Client {
  static readonly inject = ['settings', 'label']
  readonly settings: Settings
  readonly label: string
  constructor (settings: Settings, label: string) {
    this.settings = settings
    this.label = label
  }
}

function container () {
  return ServiceContainer.create().register({
    'acme.key': 'key-1',
    'acme.sandbox': false,
    [serviceId(Settings)]: autowire(Settings).constructor(get('acme.key'), get('acme.sandbox'))
  })
}

t.test('plain values are registered as they are', async (t) => {
  const services = ServiceContainer.create().register({ 'acme.key': 'k', 'acme.list': [1], 'acme.paths': { A: '/a' } })
  t.equal(services.get('acme.key'), 'k')
  t.same(services.get('acme.list'), [1])
  t.ok(services.has('acme.key'))
  t.notOk(services.has('acme.other'))
  services.set('acme.other', 5).set(Settings, new Settings('direct'))
  t.equal(services.get('acme.other'), 5)
  t.equal(services.get(Settings).key, 'direct')
  t.same(services.keys().filter((key) => typeof key === 'string'), ['acme.key', 'acme.list', 'acme.paths', 'acme.other'])
})

t.test('autowire(): positional arguments, literals and get() references', async (t) => {
  const settings = container().get(Settings)
  t.ok(settings instanceof Settings)
  t.equal(settings.key, 'key-1')
  t.equal(settings.sandbox, false)
  const literal = ServiceContainer.create().register({ [serviceId(Settings)]: autowire(Settings).constructor('literal') })
  t.same(literal.get(Settings), { key: 'literal', sandbox: true }, 'a parameter with a default may be left out')
})

t.test('autowire(): named arguments, alone or mixed with positional ones', async (t) => {
  const named = container().register({
    [serviceId(Client)]: autowire(Client).constructorParameter('label', 'named').constructorParameter('settings', get(Settings))
  })
  t.equal(named.get(Client).label, 'named')
  t.equal(named.get(Client).settings.key, 'key-1')
  const mixed = container().register({
    [serviceId(Client)]: autowire(Client).constructor(get(Settings), 'positional').constructorParameter('label', 'wins')
  })
  t.equal(mixed.get(Client).label, 'wins')
  t.equal(mixed.get(Client).settings.key, 'key-1')
})

t.test('nested definitions and factories are built with the same container', async (t) => {
  const services = container().register({
    'acme.label': 'L',
    [serviceId(Client)]: autowire(Client).constructor(autowire(Settings).constructor('inline'), factory((c) => `${c.get('acme.label')}!`))
  })
  const client = services.get(Client)
  t.equal(client.settings.key, 'inline')
  t.equal(client.label, 'L!')
  let given: unknown
  services.register({ 'acme.built': factory((c) => { given = c; return 42 }) })
  t.equal(services.get('acme.built'), 42)
  t.equal(given, services)
})

t.test('references resolve when the service is built, so registration order does not matter', async (t) => {
  const services = ServiceContainer.create().register({ [serviceId(Settings)]: autowire(Settings).constructor(get('late.key')) })
  services.register({ 'late.key': 'registered later' })
  t.equal(services.get(Settings).key, 'registered later')
})

t.test('every definition is scoped: cached per scope, built anew in each scope', async (t) => {
  const root = container()
  const scope = root.createScope()
  const other = root.createScope()
  t.equal(scope.get(Settings), scope.get(Settings))
  t.not(scope.get(Settings), other.get(Settings))
  t.not(scope.get(Settings), root.get(Settings))
  t.equal(ServiceContainer.of(scope.awilix), scope)
})

t.test('a scope\'s registration overrides its parent\'s for the dependencies of parent definitions', async (t) => {
  const root = container()
  const scope = root.createScope().register({ 'acme.key': 'scope-key' })
  t.equal(scope.get(Settings).key, 'scope-key')
  t.equal(scope.get(Settings).sandbox, false, 'other values still come from the parent')
  t.equal(root.get(Settings).key, 'key-1')
})

t.test('dispose() runs the disposers of what this container built, not what its parent built', async (t) => {
  const disposed: string[] = []
  const root = ServiceContainer.create().register({
    'acme.key': 'k',
    [serviceId(Settings)]: autowire(Settings).constructor(get('acme.key')).disposer((settings) => { disposed.push(`settings:${settings.key}`) }),
    'acme.connection': factory(() => ({ id: 'c' })).disposer((connection) => { disposed.push(`connection:${connection.id}`) })
  })
  root.get(Settings)
  const scope = root.createScope().register({ 'acme.key': 'scoped' })
  scope.get(Settings)
  scope.get('acme.connection')
  await scope.dispose()
  t.same(disposed.sort(), ['connection:c', 'settings:scoped'])
  await root.dispose()
  t.same(disposed.sort(), ['connection:c', 'settings:k', 'settings:scoped'])
})

t.test('a root container is never Awilix\'s shared one', async (t) => {
  t.not(ServiceContainer.create().awilix, ServiceContainer.create().awilix)
  const awilix = createContainer()
  t.equal(ServiceContainer.of(awilix), ServiceContainer.of(awilix))
})

t.test('service not found: names the id and who needed it, suggests the nearest ids', async (t) => {
  const services = container()
  t.throws(() => services.get('acme.ky'), {
    code: 'PAYWIRE_ERR_SERVICE_NOT_FOUND',
    message: 'Service \'acme.ky\' is not registered. Did you mean \'acme.key\'? Services are registered under their class: prefer get(TheClass) to a string id.'
  })
  services.register({ [serviceId(Client)]: autowire(Client).constructor(get(Settings), get('acme.labl')), 'acme.label': 'x' })
  t.throws(() => services.get(Client), { message: /^Service 'acme\.labl' is not registered \(needed by Client\)\. Did you mean 'acme\.label'\?/ })
  class Missing {}
  t.throws(() => services.get(Missing), { message: /^Service Missing is not registered\.$/ })
  t.throws(() => services.get('zzzzzzzzzzzzzzzz'), { message: /^Service 'zzzzzzzzzzzzzzzz' is not registered\. Services are registered/ }, 'no near ids, no suggestion')
  t.throws(() => services.get('Nope'), { message: /^Service 'Nope' is not registered\. / }, 'a failed resolution leaves no stale requester')
  services.register({ [Symbol(undefined)]: 'no description' })
  t.throws(() => services.get(Symbol(undefined) as never), { message: /^Service anonymous class is not registered\./ }, 'a symbol without description')
})

t.test('service not found with a string equal to a registered class name: use the class reference', async (t) => {
  t.throws(() => container().get('Settings'), {
    code: 'PAYWIRE_ERR_SERVICE_NOT_FOUND',
    message: 'Service \'Settings\' is not registered. Use the class reference get(Settings) instead of the string \'Settings\': classes are registered by reference, so two classes with one name never collide.'
  })
})

t.test('circular dependencies name the cycle', async (t) => {
  class A {
    readonly b: unknown
    constructor (b: unknown) { this.b = b }
  }
  class B {
    readonly a: unknown
    constructor (a: unknown) { this.a = a }
  }
  const services = ServiceContainer.create().register({
    [serviceId(A)]: autowire(A).constructor(get(B)),
    [serviceId(B)]: autowire(B).constructor(get(A))
  })
  t.throws(() => services.get(A), {
    code: 'PAYWIRE_ERR_CIRCULAR_DEPENDENCY',
    message: /^Circular dependency detected: A -> B -> A\. Reference dependencies with get\(<id>\)/
  })
  const self = ServiceContainer.create().register({ 'a.value': factory((c) => c.get('a.value')) })
  t.throws(() => self.get('a.value'), { message: /detected: 'a\.value' -> 'a\.value'\./ })
})

t.test('an action whose API was not injected names the action and the parameter', async (t) => {
  class CaptureAction {
    static readonly inject = ['api']
    readonly api: unknown
    constructor (api: unknown) { this.api = api }
    supports (): boolean { return true }
    execute (): void {}
  }
  const services = ServiceContainer.create().register({ [serviceId(CaptureAction)]: autowire(CaptureAction) })
  t.throws(() => services.get(CaptureAction), {
    code: 'PAYWIRE_ERR_ACTION_API_NOT_INJECTED',
    message: 'Action CaptureAction did not receive its API object (constructor parameter "api"). Add constructorParameter(\'api\', get(YourApi)) to its autowire() definition in configureContainer().'
  })
})

t.test('any other constructor parameter without a value names the class and the parameter', async (t) => {
  class Notifier {
    static readonly inject = ['mailer', '...rest']
    readonly mailer: unknown
    constructor (mailer: unknown, ..._rest: unknown[]) { this.mailer = mailer }
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(Notifier)]: autowire(Notifier) }).get(Notifier), {
    code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED',
    message: 'Cannot build Notifier: constructor parameter "mailer" has no value. Wire it with constructorParameter(\'mailer\', get(<id>)) or constructor(...) in its autowire() definition.'
  })
  t.doesNotThrow(() => ServiceContainer.create().register({ [serviceId(Notifier)]: autowire(Notifier).constructor(1) }).get(Notifier),
    'rest parameters are optional')
  class ApiHolder {
    static readonly inject = ['api']
    readonly api: unknown
    constructor (api: unknown) { this.api = api }
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(ApiHolder)]: autowire(ApiHolder) }).get(ApiHolder),
    { code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED' }, 'only actions get the API hint')
  class Destructured {
    readonly a: number
    constructor ({ a }: { a: number }) { this.a = a }
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(Destructured)]: autowire(Destructured) }).get(Destructured), {
    code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED',
    message: 'Cannot build Destructured: constructor parameter #1 has no value. Pass it with constructor(...), or declare the constructor\'s parameter names (static inject = [\'name\', ...]) to wire it with constructorParameter(\'name\', get(<id>)).'
  }, 'a class without declared names: the position')
  class Undeclared {
    readonly api: unknown
    constructor (api: unknown) { this.api = api }
    supports (): boolean { return true }
    execute (): void {}
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(Undeclared)]: autowire(Undeclared) }).get(Undeclared),
    { code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED', message: /parameter #1 has no value/ }, 'an undeclared action\'s parameter has no name to hint with')
})

t.test('constructorParameter() on a class that does not declare its parameter names names the class and the name', async (t) => {
  class Undeclared {
    readonly api: unknown
    constructor (api: unknown) { this.api = api }
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(Undeclared)]: autowire(Undeclared).constructorParameter('api', 1) }).get(Undeclared), {
    code: 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED',
    message: 'constructorParameter(\'api\') cannot be mapped to a constructor parameter of Undeclared: the class does not declare its parameter names. Add static inject = [\'api\', ...] to Undeclared, listing every constructor parameter in order (compilers and minifiers rename parameters, so Paywire never reads them from the source), or pass the arguments by position with constructor(...).'
  })
  t.equal(ServiceContainer.create().register({ [serviceId(Undeclared)]: autowire(Undeclared).constructor(1) }).get(Undeclared).api, 1,
    'positional wiring needs no declaration')
})

t.test('constructorParameter() with a name that is not a parameter is an invalid definition', async (t) => {
  t.throws(() => container().register({ [serviceId(Client)]: autowire(Client).constructorParameter('lable', 'x') }).get(Client), {
    code: 'PAYWIRE_ERR_INVALID_DEFINITION',
    message: 'Invalid container definition for Client: constructorParameter(\'lable\') does not match a constructor parameter (parameters: settings, label).'
  })
  class Collector {
    static readonly inject = ['...items']
    readonly items: unknown[]
    constructor (...items: unknown[]) { this.items = items }
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(Collector)]: autowire(Collector).constructorParameter('items', [1, 2]) }).get(Collector), {
    code: 'PAYWIRE_ERR_INVALID_DEFINITION',
    message: /Collector: constructorParameter\('items'\) names a rest parameter: pass its values with constructor\(\.\.\.\)\.$/
  }, 'a value for a rest parameter is never dropped silently')
  t.same(ServiceContainer.create().register({ [serviceId(Collector)]: autowire(Collector).constructor(1, get('two'), 3), two: 2 }).get(Collector).items, [1, 2, 3])
  class NoParameters {
    static readonly inject = []
  }
  t.throws(() => ServiceContainer.create().register({ [serviceId(NoParameters)]: autowire(NoParameters).constructorParameter('x', 1) }).get(NoParameters),
    { message: /\(parameters: none\)\.$/ })
})
