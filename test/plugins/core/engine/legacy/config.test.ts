import t from 'tap'
import { recordDeprecations } from '../../../../../plugins/core/engine/deprecations.ts'
import { engineEntry, isClosure, LegacyConfig } from '../../../../../plugins/core/engine/legacy/config.ts'

function codesOf (run: () => unknown): string[] {
  const codes = new Set<string>()
  recordDeprecations(codes, run)
  return [...codes].sort()
}

t.test('a closure is resolved once, with the whole config, when its key is first read', async (t) => {
  const seen: unknown[] = []
  const config = new LegacyConfig({
    client_id: 'id-1',
    'acme.api': (config: LegacyConfig) => {
      seen.push(config)
      return { clientId: config.get('client_id') }
    }
  })
  t.same(seen, [], 'nothing runs before the key is read')
  const api = config.get('acme.api')
  t.same(api, { clientId: 'id-1' })
  t.equal(seen[0], config, 'the closure receives this very config, not an empty one')
  t.equal(config.get('acme.api'), api, 'the result replaces the closure')
  t.equal(seen.length, 1)
})

t.test('closures may read keys other closures still hold', async (t) => {
  const config = new LegacyConfig({
    'acme.api': (config: LegacyConfig) => ({ signer: config.get('acme.signer') }),
    'acme.signer': (config: LegacyConfig) => `signer for ${config.get<string>('client_secret')}`,
    client_secret: 's'
  })
  t.same(config.get('acme.api'), { signer: 'signer for s' })
  t.equal(config.get('acme.signer'), 'signer for s')
})

t.test('closures that need each other fail with the cycle, not a stack overflow', async (t) => {
  const config = new LegacyConfig({
    a: (config: LegacyConfig) => config.get('b'),
    b: (config: LegacyConfig) => config.get('a')
  })
  t.throws(() => config.get('a'), {
    code: 'PAYWIRE_ERR_CIRCULAR_DEPENDENCY',
    message: /Circular dependency detected: 'a' -> 'b' -> 'a'\./
  })
  t.throws(() => config.get('b'), { message: /'b' -> 'a' -> 'b'/ }, 'the resolution stack was unwound')
})

t.test('a closure that throws stays unresolved and is called again next time', async (t) => {
  let calls = 0
  const config = new LegacyConfig({
    flaky: () => {
      calls++
      if (calls === 1) throw new Error('not yet')
      return 'ready'
    }
  })
  t.throws(() => config.get('flaky'), { message: 'not yet' })
  t.equal(config.get('flaky'), 'ready')
})

t.test('classes are values, never called as closures', async (t) => {
  class AcmeApi {}
  const config = new LegacyConfig({ 'acme.api_class': AcmeApi })
  t.equal(config.get('acme.api_class'), AcmeApi)
  t.ok(isClosure(() => 1))
  t.ok(isClosure(function named () { return 1 }))
  t.notOk(isClosure(AcmeApi))
  t.notOk(isClosure('hash'), 'a string naming a function stays a string')
})

t.test('defaults() never replaces what the user gave', async (t) => {
  const config = new LegacyConfig({ sandbox: false, client_id: 'mine' })
  config.defaults({ sandbox: true, client_id: '', client_secret: '' })
  t.same(config.data, { sandbox: false, client_id: 'mine', client_secret: '' })
})

t.test('resolveAll() runs the closures of the factory and the user in key order, engine entries stay lazy', async (t) => {
  const order: string[] = []
  let engineCalls = 0
  const engine = engineEntry(() => { engineCalls++; return 'engine value' })
  const config = new LegacyConfig({
    second: () => { order.push('second'); return 2 },
    'paywire.http_client': engine,
    first: () => { order.push('first'); return 1 }
  })
  config.resolveAll()
  t.same(order, ['second', 'first'])
  t.equal(engineCalls, 0)
  t.ok(config.isEngineEntry('paywire.http_client'))
  t.equal(config.get('paywire.http_client'), 'engine value')
  t.ok(config.isEngineEntry('paywire.http_client'), 'still known as the engine\'s once resolved')
  t.notOk(config.isEngineEntry('first'))
  t.notOk(config.isEngineEntry('missing'))
})

t.test('PAYWIREDEP011 is recorded for closures of the factory or the user, not for the engine\'s', async (t) => {
  const config = new LegacyConfig({ engine: engineEntry(() => 1), mine: () => 2, plain: 3 })
  t.same(codesOf(() => config.get('engine')), [])
  t.same(codesOf(() => config.get('plain')), [])
  t.same(codesOf(() => config.get('mine')), ['PAYWIREDEP011'])
})

t.test('reading an httplug.* key records its deprecation, whoever set it', async (t) => {
  const config = new LegacyConfig({ 'httplug.client': 'a client', 'httplug.stream_factory': 'streams' })
  t.same(codesOf(() => config.get('httplug.client')), ['PAYWIREDEP008'])
  t.same(codesOf(() => config.get('httplug.stream_factory')), ['PAYWIREDEP009'])
  t.same(codesOf(() => config.get('httplug.message_factory')), ['PAYWIREDEP010'], 'also when it is unset')
  t.same(codesOf(() => config.get('paywire.http_client')), [])
})

t.test('validateNotEmpty() names the gateway and the empty option, never a value', async (t) => {
  const config = new LegacyConfig({
    'paywire.gateway_name': 'shop',
    client_id: 'id-visible-nowhere',
    client_secret: () => ''
  })
  const error = t.throws(() => config.validateNotEmpty(['client_id', 'client_secret']), {
    code: 'PAYWIRE_ERR_REQUIRED_OPTION',
    message: 'Gateway "shop": option "client_secret" is required and must not be empty.'
  }) as Error
  t.notMatch(error.message, /id-visible-nowhere/)
  t.throws(() => new LegacyConfig({ 'paywire.factory_name': 'acme' }).validateNotEmpty(['client_id']),
    { message: 'Gateway "acme": option "client_id" is required and must not be empty.' }, 'else the factory')
  t.throws(() => new LegacyConfig().validateNotEmpty(['client_id'], 'custom'), { message: /^Gateway "custom"/ })
  t.throws(() => new LegacyConfig().validateNotEmpty(['client_id']), { message: /^Gateway "config"/ })
  t.doesNotThrow(() => new LegacyConfig({ client_id: () => 'from a closure' }).validateNotEmpty(['client_id']))
})
