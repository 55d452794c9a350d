import t from 'tap'
import { autowire, factory, get, serviceId } from '../../../../../plugins/core/engine/index.ts'
import { isAutowire, isDefinition, isReference } from '../../../../../plugins/core/engine/di/definitions.ts'

t.test('serviceId: one symbol per class; same-named classes never collide', async (t) => {
  const first = class Api {}
  const second = class Api {}
  t.equal(serviceId(first), serviceId(first))
  t.not(serviceId(first), serviceId(second))
  t.equal(serviceId(first).description, 'Api')
  t.equal(serviceId((() => class {})()).description, 'anonymous class')
})

t.test('autowire definitions are immutable: each call returns a new definition', async (t) => {
  class Api {
    readonly a: unknown
    readonly b: unknown
    constructor (a: unknown, b: unknown) {
      this.a = a
      this.b = b
    }
  }
  const base = autowire(Api)
  const positional = base.constructor(get('a'), 2)
  const named = positional.constructorParameter('b', 3)
  const disposing = named.disposer(() => {})
  t.equal(base.positional, undefined)
  t.same(positional.positional, [get('a'), 2])
  t.equal(positional.named.size, 0)
  t.same([...named.named], [['b', 3]])
  t.same(named.positional, [get('a'), 2])
  t.equal(named.dispose, undefined)
  t.type(disposing.dispose, 'function')
  t.equal(disposing.target, Api)
})

t.test('factory definitions keep their build function; disposer() returns a new one', async (t) => {
  const build = () => 1
  const definition = factory(build)
  const disposing = definition.disposer(() => {})
  t.equal(definition.build, build)
  t.equal(definition.dispose, undefined)
  t.equal(disposing.build, build)
  t.type(disposing.dispose, 'function')
  t.equal(get(String).id, String)
})

t.test('definitions are told apart from plain values by kind', async (t) => {
  class Api {}
  t.ok(isDefinition(get(Api)))
  t.notOk(isDefinition({ id: Api }))
  t.notOk(isDefinition(null))
  t.ok(isReference(get(Api)))
  t.notOk(isReference(autowire(Api)))
  t.ok(isAutowire(autowire(Api)))
  t.notOk(isAutowire(factory(() => 1)))
  t.notOk(isAutowire('autowire'))
})
