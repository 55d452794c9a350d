import t from 'tap'
import { constructorParameters } from '../../../../../plugins/core/engine/di/parameters.ts'
import { ServiceContainer, autowire, serviceId } from '../../../../../plugins/core/engine/index.ts'

t.test('a declared list gives the names in order; parameters before the first default are required', async (t) => {
  class Api {
    static readonly inject = ['clientId', 'secret', 'sandbox', '...extra']
    readonly values: unknown[]
    constructor (clientId: string, secret: string, sandbox = true, ...extra: unknown[]) { this.values = [clientId, secret, sandbox, extra] }
  }
  t.same(constructorParameters(Api), {
    declared: true,
    parameters: [
      { name: 'clientId', required: true, rest: false },
      { name: 'secret', required: true, rest: false },
      { name: 'sandbox', required: false, rest: false },
      { name: 'extra', required: false, rest: true }
    ]
  })
  t.equal(constructorParameters(Api), constructorParameters(Api), 'read once per class')
})

t.test('without a declaration: as many unnamed required parameters as Function.length says', async (t) => {
  class Positional {
    readonly values: unknown[]
    constructor (a: unknown, b: unknown, c = 1) { this.values = [a, b, c] }
  }
  t.same(constructorParameters(Positional), {
    declared: false,
    parameters: [{ name: undefined, required: true, rest: false }, { name: undefined, required: true, rest: false }]
  })
  t.same(constructorParameters(class Bare {}), { declared: false, parameters: [] })
})

t.test('a subclass inherits its parent\'s list; one whose constructor takes more declares its own', async (t) => {
  class Parent {
    static readonly inject = ['api', 'logger']
    readonly values: unknown[]
    constructor (api: unknown, logger: unknown) { this.values = [api, logger] }
  }
  class Child extends Parent {}
  class Own extends Parent {
    static override readonly inject = ['api', 'logger', 'extra']
    constructor (api: unknown, logger: unknown, extra: unknown) { super(api, logger); this.values.push(extra) }
  }
  class Forgetful extends Parent {
    constructor (api: unknown, logger: unknown, extra: unknown) { super(api, logger); this.values.push(extra) }
  }
  t.same(constructorParameters(Child).parameters.map((parameter) => [parameter.name, parameter.required]), [['api', true], ['logger', true]])
  t.same(constructorParameters(Own).parameters.map((parameter) => parameter.name), ['api', 'logger', 'extra'])
  t.throws(() => constructorParameters(Forgetful), {
    code: 'PAYWIRE_ERR_INVALID_DEFINITION',
    message: 'Invalid container definition for Forgetful: static inject names 2 constructor parameter(s) (inherited from Parent: a subclass whose constructor differs declares its own), but the constructor takes at least 3: list every parameter, in order.'
  })
  class Short {
    static readonly inject = ['api']
    readonly values: unknown[]
    constructor (api: unknown, logger: unknown) { this.values = [api, logger] }
  }
  t.throws(() => constructorParameters(Short), { message: /^Invalid container definition for Short: static inject names 1 constructor parameter\(s\), but the constructor takes at least 2/ })
  const Anonymous = (() => class { static readonly inject = ['api'] })()
  class FromAnonymous extends Anonymous {
    readonly values: unknown[]
    constructor (api: unknown, logger: unknown) { super(); this.values = [api, logger] }
  }
  t.throws(() => constructorParameters(FromAnonymous), { message: /\(inherited from its parent: a subclass whose constructor differs declares its own\)/ })
})

t.test('a malformed declaration is an invalid definition naming the class', async (t) => {
  const declared = (inject: unknown): Function => {
    const Target = class Target {}
    Object.defineProperty(Target, 'inject', { value: inject })
    return Target
  }
  for (const [inject, problem] of [
    ['api', 'must be the list of constructor parameter names, in order (static inject = [\'api\'])'],
    [['api', 42], 'holds 42, which is not a parameter name'],
    [['api key'], 'holds "api key", which is not a parameter name'],
    [['...rest', 'api'], 'declares the rest parameter ...rest before the last position'],
    [['api', 'api'], 'names api twice'],
    [[Symbol('api')], 'holds Symbol(api), which is not a parameter name']
  ] as const) {
    t.throws(() => constructorParameters(declared(inject)), { code: 'PAYWIRE_ERR_INVALID_DEFINITION', message: `Invalid container definition for Target: static inject ${problem}.` })
  }
})

t.test('nothing depends on the classes\' source text', async (t) => {
  class Action {
    static readonly inject = ['api']
    readonly api: unknown
    constructor (api: unknown) { this.api = api }
  }
  const toString = Function.prototype.toString
  // eslint-disable-next-line no-extend-native -- restores the original
  t.teardown(() => { Function.prototype.toString = toString })
  // eslint-disable-next-line no-extend-native -- replaced for this test only, to prove nothing reads the source text
  Function.prototype.toString = () => { throw new Error('source text read') }
  const services = ServiceContainer.create().register({ [serviceId(Action)]: autowire(Action).constructorParameter('api', 'the api') })
  t.equal(services.get(Action).api, 'the api')
})
