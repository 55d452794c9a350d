import { runInThisContext } from 'node:vm'
import t from 'tap'
import { constructorParameters, type Parameter } from '../../../../../plugins/core/engine/di/parameters.ts'

/** A class from source kept exactly as written (tsx would strip comments from classes in this file). */
function fromSource (source: string): Function {
  return runInThisContext(`(${source})`) as Function
}

function names (parameters: Parameter[]): Array<string | undefined> {
  return parameters.map((parameter) => parameter.name)
}

t.test('plain parameters, in order (a TypeScript class as tsx runs it)', async (t) => {
  class Api {
    readonly clientId: string
    readonly secret: string
    constructor (clientId: string, secret: string) {
      this.clientId = clientId
      this.secret = secret
    }
  }
  t.same(constructorParameters(Api), [
    { name: 'clientId', hasDefault: false, rest: false },
    { name: 'secret', hasDefault: false, rest: false }
  ])
})

t.test('defaults, destructuring and rest parameters', async (t) => {
  const Target = fromSource(`class Target {
    constructor (plain, limit = 100, options = { retries: (1, 2), list: [1, 2] }, { api, logger }, [first, second] = [], { nested = 1 }, { tricky = '}' } = {}, ...rest) {}
  }`)
  t.same(constructorParameters(Target), [
    { name: 'plain', hasDefault: false, rest: false },
    { name: 'limit', hasDefault: true, rest: false },
    { name: 'options', hasDefault: true, rest: false },
    { name: undefined, hasDefault: false, rest: false },
    { name: undefined, hasDefault: true, rest: false },
    { name: undefined, hasDefault: false, rest: false },
    { name: undefined, hasDefault: true, rest: false },
    { name: 'rest', hasDefault: false, rest: true }
  ])
})

t.test('a class without its own constructor has its parent\'s parameters; no constructor at all means none', async (t) => {
  const classes = runInThisContext(`(() => {
    class Parent { constructor (api, logger) {} }
    class Child extends Parent {}
    class GrandChild extends Child { extra = 1 }
    class Own extends Parent { constructor (only) { super(only) } }
    class Bare {}
    return { Child, GrandChild, Own, Bare, Anonymous: class extends Bare {} }
  })()`) as Record<string, Function>
  t.same(names(constructorParameters(classes.Child as Function)), ['api', 'logger'])
  t.same(names(constructorParameters(classes.GrandChild as Function)), ['api', 'logger'])
  t.same(names(constructorParameters(classes.Own as Function)), ['only'])
  t.same(constructorParameters(classes.Bare as Function), [])
  t.same(constructorParameters(classes.Anonymous as Function), [])
})

t.test('comments and strings in and around the constructor do not confuse the reader', async (t) => {
  const Target = fromSource(`class Target {
    label = 'constructor (wrong, one) { }'
    static describe () { return "constructor (also, wrong) {" + \`{\${'}'}\` }
    // constructor (commented, out)
    /* constructor (block, comment) */
    constructorLike (not, it) {}
    constructor (/* the API client */ api, logger /* = optional? no */, // trailing comment
      name = 'a,b)', fallback = "c\\"d" /* done */) {
      const body = { constructor: 1 }
    }
  }`)
  t.same(constructorParameters(Target), [
    { name: 'api', hasDefault: false, rest: false },
    { name: 'logger', hasDefault: false, rest: false },
    { name: 'name', hasDefault: true, rest: false },
    { name: 'fallback', hasDefault: true, rest: false }
  ])
  t.same(constructorParameters(fromSource('class Empty { constructor (/* nothing */) {} }')), [])
  t.same(names(constructorParameters(fromSource('class Trailing { constructor (a, b,) {} }'))), ['a', 'b'])
  t.same(names(constructorParameters(fromSource('class LineComment { constructor (a, b // the last one\n) {} }'))), ['a', 'b'])
})

t.test('regular expressions with quotes, braces or slashes before the constructor do not confuse the reader', async (t) => {
  const Target = fromSource(`class Target {
    static quotes = /["'\`]/g
    static braces = [/[{]/, /}/]
    static slashes = /a\\/b[/]c/
    ratio = 4 / 2 / 1
    half = (this.ratio) / 2
    static test (value) { if (!value) return /x{/.test(value); return typeof /'/ === 'object' }
    static pick (kind) { switch (kind) { case /"/.source: return 1 } }
    constructor (api, logger) {}
  }`)
  t.same(names(constructorParameters(Target)), ['api', 'logger'])
  const Leading = fromSource(String.raw`function Leading (pattern = /[)(,]/, next) {}`)
  t.same(constructorParameters(Leading), [
    { name: 'pattern', hasDefault: true, rest: false },
    { name: 'next', hasDefault: false, rest: false }
  ])
})

t.test('plain functions used as constructors', async (t) => {
  const Legacy = fromSource('function Legacy (api, sandbox = true) { this.api = api }')
  t.same(constructorParameters(Legacy), [
    { name: 'api', hasDefault: false, rest: false },
    { name: 'sandbox', hasDefault: true, rest: false }
  ])
  t.same(constructorParameters(Legacy.bind(null)), [], 'native code has no readable parameters')
})
