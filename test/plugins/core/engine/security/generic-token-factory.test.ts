import t from 'tap'
import {
  DEFAULT_TOKEN_PATHS, GenericTokenFactory, Identity, MemoryStorage, MemoryTokenStorage, Payment, StorageRegistry, Token, TokenFactory,
  type TokenPaths
} from '../../../../../plugins/core/engine/index.ts'

/** Records every save() call with the hashes it stored together. */
class SaveCountingTokenStorage extends MemoryTokenStorage {
  readonly saves: string[][] = []

  override async save (tokens: readonly Token[]): Promise<void> {
    this.saves.push(tokens.map((token) => token.hash))
    await super.save(tokens)
  }
}

async function setup (paths?: TokenPaths) {
  const tokenStorage = new SaveCountingTokenStorage()
  const payments = new MemoryStorage(Payment)
  const payment = payments.create()
  await payments.update(payment)
  const factory = new GenericTokenFactory(new TokenFactory(tokenStorage, new StorageRegistry().add(Payment, payments), 'https://shop.example'), paths)
  return { factory, tokenStorage, payment, identity: new Identity(payment.id as string, 'Payment') }
}

t.test('the default paths include cancel, sync and done', async (t) => {
  t.same(DEFAULT_TOKEN_PATHS, {
    capture: 'capture', authorize: 'authorize', refund: 'refund', cancel: 'cancel', payout: 'payout', notify: 'notify', sync: 'sync', done: 'done'
  })
  const { factory } = await setup()
  t.same(factory.paths, DEFAULT_TOKEN_PATHS)
})

for (const kind of ['capture', 'authorize', 'payout'] as const) {
  const method = `create${kind[0]?.toUpperCase()}${kind.slice(1)}Token` as 'createCaptureToken' | 'createAuthorizeToken' | 'createPayoutToken'
  t.test(`${method}() makes the after token first, then the ${kind} token whose after URL is the after token's URL; one save`, async (t) => {
    const { factory, tokenStorage, payment, identity } = await setup()
    const token = await factory[method]('cash', payment, 'done', { order: 'A-1' })
    t.equal(token.kind, kind)
    t.equal(token.targetUrl, `https://shop.example/${kind}?paywire_token=${token.hash}`)
    t.same(token.details, identity)
    t.equal(tokenStorage.saves.length, 1, 'both tokens stored in one save() call')
    const [afterHash, targetHash] = tokenStorage.saves[0] as [string, string]
    t.equal(targetHash, token.hash)
    const after = await tokenStorage.find(afterHash)
    t.equal(after?.kind, 'after')
    t.equal(after?.gatewayName, 'cash')
    t.same(after?.details, identity)
    t.equal(after?.targetUrl, `https://shop.example/done?paywire_token=${afterHash}&order=A-1`)
    t.equal(after?.afterUrl, null)
    t.equal(token.afterUrl, after?.targetUrl)
  })
}

t.test('an after path may be a configured path name, a path or an absolute URL', async (t) => {
  const { factory, payment } = await setup({ ...DEFAULT_TOKEN_PATHS, done: 'payment/done' })
  t.match((await factory.createCaptureToken('cash', payment, 'done')).afterUrl, /^https:\/\/shop\.example\/payment\/done\?paywire_token=/)
  t.match((await factory.createCaptureToken('cash', payment, 'thanks')).afterUrl, /^https:\/\/shop\.example\/thanks\?paywire_token=/)
  t.match((await factory.createCaptureToken('cash', payment, 'https://other.example/r?x=1')).afterUrl,
    /^https:\/\/other\.example\/r\?paywire_token=[\w-]{51}&x=1$/)
  t.match((await factory.createCaptureToken('cash', payment, 'toString')).afterUrl, /^https:\/\/shop\.example\/toString\?/,
    'only configured names are names')
})

for (const kind of ['refund', 'cancel', 'sync'] as const) {
  const method = `create${kind[0]?.toUpperCase()}${kind.slice(1)}Token` as 'createRefundToken' | 'createCancelToken' | 'createSyncToken'
  t.test(`${method}() makes an after token only when given an after path`, async (t) => {
    const { factory, tokenStorage, payment } = await setup()
    const alone = await factory[method]('cash', payment)
    t.equal(alone.kind, kind)
    t.equal(alone.targetUrl, `https://shop.example/${kind}?paywire_token=${alone.hash}`)
    t.equal(alone.afterUrl, null)
    t.same(tokenStorage.saves, [[alone.hash]])

    const withAfter = await factory[method]('cash', payment, 'done')
    t.equal(tokenStorage.saves.length, 2)
    const [afterHash] = tokenStorage.saves[1] as [string, string]
    t.equal(withAfter.afterUrl, `https://shop.example/done?paywire_token=${afterHash}`)
  })
}

t.test('createNotifyToken() with a model points at it; without one it is gateway-wide', async (t) => {
  const { factory, tokenStorage, payment, identity } = await setup()
  const forPayment = await factory.createNotifyToken('cash', payment)
  t.equal(forPayment.kind, 'notify')
  t.same(forPayment.details, identity)
  t.equal(forPayment.targetUrl, `https://shop.example/notify?paywire_token=${forPayment.hash}`)
  t.equal(forPayment.afterUrl, null)
  const gatewayWide = await factory.createNotifyToken('cash')
  t.equal(gatewayWide.details, null)
  t.equal(gatewayWide.gatewayName, 'cash')
  t.same(tokenStorage.saves, [[forPayment.hash], [gatewayWide.hash]])
})

t.test('createToken() passes through to the token factory', async (t) => {
  const { factory, payment } = await setup()
  const token = await factory.createToken('cash', payment, 'custom', { a: 1 }, 'back', { b: 2 })
  t.equal(token.targetUrl, `https://shop.example/custom?paywire_token=${token.hash}&a=1`)
  t.equal(token.afterUrl, 'https://shop.example/back?b=2')
})

t.test('a path name that is not configured is a coded error listing the configured ones', async (t) => {
  const { factory, payment } = await setup({ capture: 'pay', done: 'done' })
  const message = /^The token path "(\w+)" is not configured\. Configured paths: capture, done\. Use setGenericTokenFactoryPaths\(\)/
  for (const create of [
    () => factory.createAuthorizeToken('cash', payment, 'done'),
    () => factory.createPayoutToken('cash', payment, 'done'),
    () => factory.createRefundToken('cash', payment),
    () => factory.createCancelToken('cash', payment),
    () => factory.createSyncToken('cash', payment),
    () => factory.createNotifyToken('cash')
  ]) {
    await t.rejects(create(), { code: 'PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED', message })
  }
  t.throws(() => factory.getPath('constructor'), { code: 'PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED' }, 'inherited names are not paths')
  t.equal(factory.getPath('capture'), 'pay')
})

t.test('the paths are copied: changing the given object later changes nothing', async (t) => {
  const paths: TokenPaths = { capture: 'capture', done: 'done' }
  const { factory } = await setup(paths)
  paths.capture = 'elsewhere'
  t.equal(factory.getPath('capture'), 'capture')
})
