import t from 'tap'
import {
  Identity, MemoryStorage, affinityTag, MemoryTokenStorage, Payment, StorageRegistry, TOKEN_PARAMETER, TOKEN_PLACEHOLDER, Token, TokenFactory,
  type BaseUrl
} from '../../../../../plugins/core/engine/index.ts'

async function setup (baseUrl?: BaseUrl) {
  const tokenStorage = new MemoryTokenStorage()
  const payments = new MemoryStorage(Payment)
  const storages = new StorageRegistry().add(Payment, payments)
  const payment = payments.create()
  await payments.update(payment)
  return { factory: new TokenFactory(tokenStorage, storages, baseUrl), tokenStorage, payment, payments }
}

function query (url: string): Array<[string, string]> {
  return [...new URL(url).searchParams]
}

t.test('createToken() builds and stores a token pointing at the model through its identity', async (t) => {
  const { factory, tokenStorage, payment } = await setup('https://shop.example')
  const token = await factory.createToken('cash', payment, 'capture')
  t.ok(token instanceof Token)
  t.equal(token.gatewayName, 'cash')
  t.equal(token.kind, 'capture')
  t.same(token.details, new Identity(payment.id as string, 'Payment'))
  t.equal(token.targetUrl, `https://shop.example/capture?paywire_token=${token.hash}`)
  t.equal(token.afterUrl, null)
  t.same(await tokenStorage.find(token.hash), token)
})

t.test('hashes are the model\'s 8-character affinity tag and 43 random base64url characters, unique per token', async (t) => {
  const { factory, payment } = await setup('https://shop.example')
  const tag = affinityTag('Payment', payment.id as string)
  const hashes = new Set<string>()
  for (let i = 0; i < 50; i++) {
    const token = factory.buildToken({ gatewayName: 'cash', model: payment, targetPath: 'capture' })
    t.match(token.hash, /^[A-Za-z0-9_-]{51}$/)
    t.equal(token.hash.slice(0, 8), tag, 'every token of a payment starts with its tag')
    hashes.add(token.hash)
  }
  t.equal(hashes.size, 50)
  t.match(factory.buildToken({ gatewayName: 'cash', model: null, targetPath: 'notify' }).hash, /^[A-Za-z0-9_-]{43}$/, 'a token without a model has no tag')
  t.not(affinityTag('Payment', 'other-id'), tag)
})

t.test('details: an Identity is kept, null stays null, an unsaved or unregistered model is an error', async (t) => {
  const { factory, payments } = await setup('https://shop.example')
  const identity = new Identity('p-9', 'Payment')
  t.equal(factory.buildToken({ gatewayName: 'cash', model: identity, targetPath: 'capture' }).details, identity)
  t.equal(factory.buildToken({ gatewayName: 'cash', model: null, targetPath: 'notify' }).details, null)
  t.throws(() => factory.buildToken({ gatewayName: 'cash', model: payments.create(), targetPath: 'capture' }), { code: 'PAYWIRE_ERR_MODEL_NOT_PERSISTED' })
  t.throws(() => factory.buildToken({ gatewayName: 'cash', model: new Date(), targetPath: 'capture' }), { code: 'PAYWIRE_ERR_STORAGE_NOT_REGISTERED' })
})

t.test('relative paths append to the base path; "/x" is relative to the origin', async (t) => {
  const { factory } = await setup('https://user:pw@shop.example:8443/app')
  t.equal(factory.buildUrl('capture', {}), 'https://user:pw@shop.example:8443/app/capture')
  t.equal(factory.buildUrl('pay/capture', {}), 'https://user:pw@shop.example:8443/app/pay/capture')
  t.equal(factory.buildUrl('/payment/capture', {}), 'https://user:pw@shop.example:8443/payment/capture')
  const { factory: slashed } = await setup('https://shop.example/app/')
  t.equal(slashed.buildUrl('capture', {}), 'https://shop.example/app/capture')
  t.equal(slashed.buildUrl('done#result', { a: 1 }), 'https://shop.example/app/done?a=1#result')
})

t.test('the token parameter comes first, then the path\'s query merged with the parameters (parameters win)', async (t) => {
  const { factory } = await setup('https://shop.example')
  const url = factory.buildUrl('capture?b=2&a=1', { a: 'x', c: 3, d: true }, 'HASH')
  t.same(query(url), [[TOKEN_PARAMETER, 'HASH'], ['b', '2'], ['a', 'x'], ['c', '3'], ['d', 'true']])
  t.same(query(factory.buildUrl('capture', { [TOKEN_PARAMETER]: 'forged' }, 'HASH')), [[TOKEN_PARAMETER, 'HASH']],
    'the token cannot be replaced through the parameters')
  t.same(query(factory.buildUrl('capture?paywire_token=old', {}, 'HASH')), [[TOKEN_PARAMETER, 'HASH']])
})

t.test('null, undefined and empty parameters remove a key', async (t) => {
  const { factory } = await setup('https://shop.example')
  const url = factory.buildUrl('https://psp.example/return?keep=1&a=1&b=2&c=3', { a: null, b: '', c: undefined, d: null })
  t.equal(url, 'https://psp.example/return?keep=1')
})

t.test('absolute URLs are used as given: host, query (repeated keys too) and fragment survive', async (t) => {
  const { factory } = await setup('https://shop.example')
  const url = factory.buildUrl('https://other.example:444/cb?x=1&tag=a&tag=b#frag', { y: '2' }, 'HASH')
  t.equal(url, 'https://other.example:444/cb?paywire_token=HASH&x=1&tag=a&tag=b&y=2#frag')
  t.equal(factory.buildUrl('HTTP://other.example/cb', {}), 'http://other.example/cb')
  t.same(query(factory.buildUrl('https://other.example/cb?tag=a&tag=b', { tag: 'c' })), [['tag', 'c']],
    'a parameter replaces every value of its key')
})

t.test('an absolute URL without parameters comes back as the URL parser writes it: unchanged when it already is', async (t) => {
  const { factory } = await setup('https://shop.example')
  const cases: Array<[given: string, built: string]> = [
    ['https://shop.example/payment/done/AbCdEfGh_x-y', 'https://shop.example/payment/done/AbCdEfGh_x-y'],
    ['https://user:pw@shop.example:8443/a;b=c/~d@e', 'https://user:pw@shop.example:8443/a;b=c/~d@e'],
    ['https://shop.example:443/done', 'https://shop.example/done'],
    ['https://Shop.Example/done', 'https://shop.example/done'],
    ['https://shop.example/a/./b/../done', 'https://shop.example/a/done'],
    ['https://shop.example/.well-known/done', 'https://shop.example/.well-known/done'],
    ['https://shop.example/café done', 'https://shop.example/caf%C3%A9%20done'],
    ['https://shop.example/done?', 'https://shop.example/done'],
    ['https://shop.example/done?a=&b=x y', 'https://shop.example/done?b=x+y'],
    ['https://shop.example/done#', 'https://shop.example/done#'],
    ['https://shop.example\\done', 'https://shop.example/done'],
    ['https://shop.example', 'https://shop.example/']
  ]
  for (const [given, built] of cases) {
    t.equal(factory.buildUrl(given, {}), built, given)
    t.equal(factory.buildUrl(given, {}), built, 'the same again')
  }
  t.throws(() => factory.buildUrl('https://exa mple/done', {}), TypeError, 'an URL no parser reads is still an error')
})

t.test('the :token placeholder puts the hash in the path instead of the query', async (t) => {
  const { factory } = await setup('https://shop.example/app/')
  t.equal(TOKEN_PLACEHOLDER, ':token')
  t.equal(factory.buildUrl('pay/:token/capture', { a: 1 }, 'HASH'), 'https://shop.example/app/pay/HASH/capture?a=1')
  t.equal(factory.buildUrl('https://psp.example/:token', {}, 'HASH'), 'https://psp.example/HASH')
  t.equal(factory.buildUrl('pay/:token', {}, 'ONE'), 'https://shop.example/app/pay/ONE')
  t.equal(factory.buildUrl('pay/:token', {}, 'TWO'), 'https://shop.example/app/pay/TWO', 'the same path again, another hash')
  t.equal(factory.buildUrl('pay/:token?lang=de#top', {}, 'HASH'), 'https://shop.example/app/pay/HASH?lang=de#top', 'a query and fragment are kept')
  t.equal(factory.buildUrl('pay/:token?lang=de#top', {}, 'NEXT'), 'https://shop.example/app/pay/NEXT?lang=de#top', 'the same path again: still no template')
  t.equal(factory.buildUrl('https://user:pw@psp.example/:token', {}, 'HASH'), 'https://user:pw@psp.example/HASH', 'so are credentials')
  t.equal(factory.buildUrl('pay/:token', {}, 'HASH'), 'https://shop.example/app/pay/HASH')
  t.equal(factory.buildUrl('pay/:token/capture', {}, 'HASH'), 'https://shop.example/app/pay/HASH/capture', 'a placeholder mid-path keeps what follows it')
  t.equal(factory.buildUrl('pay/:token/capture', {}, 'NEXT'), 'https://shop.example/app/pay/NEXT/capture', 'kept, then reused with another hash')
})

t.test('placeholder URLs follow a base URL function from one origin to the next', async (t) => {
  let origin = 'https://a.example'
  const { factory } = await setup(() => origin)
  t.equal(factory.buildUrl('/payment/capture/:token', {}, 'H1'), 'https://a.example/payment/capture/H1')
  origin = 'https://b.example:8443'
  t.equal(factory.buildUrl('/payment/capture/:token', {}, 'H2'), 'https://b.example:8443/payment/capture/H2')
  origin = 'https://a.example'
  t.equal(factory.buildUrl('/payment/capture/:token', {}, 'H3'), 'https://a.example/payment/capture/H3')
  for (let i = 0; i < 300; i++) {
    origin = `https://shop-${i}.example`
    t.equal(factory.buildUrl('/payment/done/:token', {}, 'H'), `https://shop-${i}.example/payment/done/H`)
    t.equal(factory.buildUrl('/payment/capture/:token', {}, 'C'), `https://shop-${i}.example/payment/capture/C`, 'two paths for one origin')
  }
  t.equal(factory.buildUrl('/payment/done/:token', {}, 'H4'), 'https://shop-299.example/payment/done/H4', 'kept after the others')
})

t.test('after URLs get no token automatically; an existing one is kept, null removes it', async (t) => {
  const { factory, payment } = await setup('https://shop.example')
  const plain = factory.buildToken({ gatewayName: 'cash', model: payment, targetPath: 'capture', afterPath: 'done', afterParameters: { order: 7 } })
  t.equal(plain.afterUrl, 'https://shop.example/done?order=7')
  const kept = factory.buildToken({ gatewayName: 'cash', model: payment, targetPath: 'capture', afterPath: 'https://shop.example/done?paywire_token=AFTER' })
  t.equal(kept.afterUrl, 'https://shop.example/done?paywire_token=AFTER')
  const removed = factory.buildToken({
    gatewayName: 'cash', model: payment, targetPath: 'capture', afterPath: 'https://shop.example/done?paywire_token=AFTER', afterParameters: { paywire_token: null }
  })
  t.equal(removed.afterUrl, 'https://shop.example/done')
  const withAfter = await factory.createToken('cash', payment, 'capture', { a: 1 }, 'done', { b: 2 })
  t.equal(withAfter.targetUrl, `https://shop.example/capture?paywire_token=${withAfter.hash}&a=1`)
  t.equal(withAfter.afterUrl, 'https://shop.example/done?b=2')
})

t.test('without a base URL only absolute paths work', async (t) => {
  const { factory, payment } = await setup()
  t.throws(() => factory.buildUrl('capture', {}), { code: 'PAYWIRE_ERR_BASE_URL_REQUIRED', message: /setBaseUrl\(\)/ })
  await t.rejects(factory.createToken('cash', payment, 'capture'), { code: 'PAYWIRE_ERR_BASE_URL_REQUIRED' })
  t.equal(factory.buildUrl('https://shop.example/capture', {}), 'https://shop.example/capture')
})

t.test('an invalid base URL is refused when the factory is made', async (t) => {
  for (const base of ['shop.example', 'ftp://shop.example', 'https://', '/relative']) {
    t.throws(() => new TokenFactory(new MemoryTokenStorage(), new StorageRegistry(), base), {
      code: 'PAYWIRE_ERR_INVALID_BASE_URL',
      message: `The base URL "${base}" is not an absolute http(s) URL.`
    }, base)
  }
})

t.test('a base URL function is asked for every URL and checked each time', async (t) => {
  let origin: string | undefined = 'https://a.example'
  let calls = 0
  const { factory } = await setup(() => { calls++; return origin })
  t.equal(factory.buildUrl('capture', {}), 'https://a.example/capture')
  origin = 'https://b.example/shop'
  t.equal(factory.buildUrl('capture', {}), 'https://b.example/shop/capture')
  t.equal(calls, 2)
  origin = 'not a url'
  t.throws(() => factory.buildUrl('capture', {}), { code: 'PAYWIRE_ERR_INVALID_BASE_URL' })
  origin = undefined
  t.throws(() => factory.buildUrl('capture', {}), { code: 'PAYWIRE_ERR_BASE_URL_REQUIRED' })
})
