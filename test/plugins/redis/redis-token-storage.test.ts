import t from 'tap'
import { Identity, StorageRegistry, Token, TokenFactory } from '../../../plugins/core/engine/index.ts'
import { RedisTokenStorage } from '../../../plugins/redis/index.ts'
import { commandsSentBy, newClient, socketWrites, testRedis, untilExpired } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'token-storage')

function newToken (kind = 'capture', fields: Partial<Token> = {}): Token {
  return Object.assign(new Token(), {
    kind,
    gatewayName: 'cash',
    targetUrl: `https://shop.example/payment/${kind}/x`,
    afterUrl: 'https://shop.example/payment/done/y',
    details: new Identity('8c7d-payment', 'Payment')
  }, fields)
}

const storage = new RedisTokenStorage(client, { keyPrefix: prefix })

function tokenKey (token: Token): string {
  return storage.tokenKey(token.hash)
}

/** A key's remaining lifetime (TTL or PTTL), allowing for the time the test took to ask. */
function inRange (seconds: number, lowest: number, highest: number): boolean {
  return seconds > lowest && seconds <= highest
}

t.test('save then find returns every field of the token', async (t) => {
  const token = newToken('capture')
  await storage.save([token])
  const found = await storage.find(token.hash)
  t.ok(found instanceof Token)
  t.not(found, token, 'a copy read from Redis')
  t.same(found?.toJSON(), token.toJSON())
  t.ok(found?.details instanceof Identity)
  t.equal(found?.details?.id, '8c7d-payment')
  t.equal(found?.details?.modelName, 'Payment')

  const gatewayWide = newToken('notify', { afterUrl: null, details: null })
  await storage.save([gatewayWide])
  t.same((await storage.find(gatewayWide.hash))?.toJSON(), gatewayWide.toJSON(), 'null afterUrl and details survive')
  t.equal(await storage.find(new Token().hash), null, 'unknown hash')
  t.same(JSON.parse(await client.get(tokenKey(token)) as string), token.toJSON(), 'stored as the token JSON')
})

t.test('each kind gets its lifetime on the key', async (t) => {
  const capture = newToken('capture')
  const authorize = newToken('authorize')
  const after = newToken('after')
  const notify = newToken('notify')
  await storage.save([capture, authorize, after, notify])
  t.ok(inRange(await client.ttl(tokenKey(capture)), 3590, 3600), 'capture: one hour')
  t.ok(inRange(await client.ttl(tokenKey(authorize)), 3590, 3600), 'authorize: one hour')
  t.ok(inRange(await client.ttl(tokenKey(after)), 86_390, 86_400), 'the done page outlives the capture: one day')
  t.equal(await client.ttl(tokenKey(notify)), -1, 'notify tokens do not expire')

  const configured = new RedisTokenStorage(client, { keyPrefix: prefix, ttl: { capture: 120, notify: 600, after: 0 } })
  const shortCapture = newToken('capture')
  const expiringNotify = newToken('notify')
  const keptAfter = newToken('after')
  await configured.save([shortCapture, expiringNotify, keptAfter])
  t.ok(inRange(await client.ttl(tokenKey(shortCapture)), 110, 120), 'configured capture lifetime')
  t.ok(inRange(await client.ttl(tokenKey(expiringNotify)), 590, 600), 'configured notify lifetime')
  t.equal(await client.ttl(tokenKey(keptAfter)), -1, '0 keeps a token until it is invalidated')
})

t.test('lifetimes below a second are kept, as in the memory store', async (t) => {
  const quick = new RedisTokenStorage(client, { keyPrefix: prefix, ttl: { capture: 0.25 } })
  const token = newToken('capture')
  await quick.save([token])
  const pttl = await client.pttl(tokenKey(token))
  t.ok(inRange(pttl, 0, 250), `expires within 250 ms (${pttl} ms)`)
  await untilExpired(client, tokenKey(token))
  t.equal(await quick.find(token.hash), null, 'gone once Redis expired it')
})

t.test('save([capture, after]) is one atomic script call in one round trip', async (t) => {
  const capture = newToken('capture')
  const after = newToken('after')
  let writes = 0
  const commands = await commandsSentBy(client, async () => {
    writes = await socketWrites(client, () => storage.save([capture, after]))
  })
  t.same(commands.map((command) => command.name), ['evalsha'], 'both tokens in one script call')
  t.same(commands[0]?.args.slice(1, 4), ['2', tokenKey(capture), tokenKey(after)], 'the key count, then both keys')
  t.equal(writes, 1, 'all commands written at once, before any reply')
  t.ok(await storage.find(capture.hash))
  t.ok(await storage.find(after.hash))

  const none = await commandsSentBy(client, () => storage.save([]))
  t.same(none, [], 'nothing to save costs nothing')
})

t.test('invalidate marks the token used for the after lifetime: true once, then false', async (t) => {
  const token = newToken()
  await storage.save([token])
  t.equal(await storage.invalidate(token.hash), true)
  t.equal(await storage.find(token.hash), null)
  t.match(await client.get(tokenKey(token)), /^used:\{/)
  t.ok(inRange(await client.ttl(tokenKey(token)), 86_390, 86_400), 'remembered as long as the done page lives')
  t.equal(await storage.invalidate(token.hash), false)
})

t.test('concurrent invalidations from two connections: exactly one wins', async (t) => {
  const other = newClient()
  t.teardown(() => other.quit())
  const otherStorage = new RedisTokenStorage(other, { keyPrefix: prefix })
  for (let round = 0; round < 5; round++) {
    const token = newToken()
    await storage.save([token])
    const results = await Promise.all([
      storage.invalidate(token.hash), otherStorage.invalidate(token.hash),
      storage.invalidate(token.hash), otherStorage.invalidate(token.hash)
    ])
    t.equal(results.filter(Boolean).length, 1, `round ${round}: ${results.join(', ')}`)
  }
})

t.test('a token made by the token factory and its payment\'s claim share a hash tag: the claim is one script call', async (t) => {
  const factory = new TokenFactory(storage, new StorageRegistry(), 'https://shop.example')
  const token = factory.buildToken({ gatewayName: 'cash', model: new Identity('8c7d-payment', 'Payment'), targetPath: '/payment/capture/:token' })
  await storage.save([token])
  const sent = await commandsSentBy(client, async () => {
    const claimed = await storage.claim(token.hash, 60_000)
    t.equal(claimed?.claim.key, storage.claimKey(new Identity('8c7d-payment', 'Payment')))
    t.equal(await client.get(claimed!.claim.key), claimed?.claim.id, 'the claim holds the claimer\'s id')
    t.ok(inRange(await client.pttl(claimed!.claim.key), 0, 60_000), 'the claim expires by itself')
  })
  t.equal(sent.filter((command) => command.name === 'evalsha' || command.name === 'eval').length, 1)
  const tag = token.hash.slice(0, 8)
  t.ok(tokenKey(token).includes(`{${tag}}`) && storage.claimKey(new Identity('8c7d-payment', 'Payment')).includes(`{${tag}}`))
})

t.test('concurrent claims from two connections: exactly one gets the payment', async (t) => {
  const other = newClient()
  t.teardown(() => other.quit())
  const otherStorage = new RedisTokenStorage(other, { keyPrefix: prefix })
  const token = newToken('capture', { details: new Identity(`concurrent-${Math.random()}`, 'Payment') })
  await storage.save([token])
  const results = await Promise.allSettled(Array.from({ length: 8 }, (_, index) =>
    (index % 2 === 0 ? storage : otherStorage).claim(token.hash, 60_000)))
  t.equal(results.filter((result) => result.status === 'fulfilled').length, 1)
  for (const result of results) {
    if (result.status === 'rejected') t.equal(result.reason.code, 'PAYWIRE_ERR_PAYMENT_BUSY')
  }
})

t.test('claiming an unknown token answers null and leaves no claim behind', async (t) => {
  const hash = new Token().hash
  t.equal(await storage.claim(hash, 60_000), null)
  t.same(await client.keys(`${prefix}*${hash.slice(0, 8)}*claim*`), [])
})

t.test('a lifetime Redis refuses fails save with the Redis error', async (t) => {
  const absurd = new RedisTokenStorage(client, { keyPrefix: prefix, ttl: { after: 1e17 } })
  await t.rejects(absurd.save([newToken('capture'), newToken('after')]), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', reason: /invalid expire time|not an integer or out of range/ })
})

t.test('a lifetime that is not a number of seconds fails construction with a coded error', async (t) => {
  for (const bad of [-1, Number.NaN, Infinity, '60' as unknown as number]) {
    t.throws(() => new RedisTokenStorage(client, { ttl: { capture: bad } }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"ttl\.capture"/ }, String(bad))
  }
  const partial = new RedisTokenStorage(client, { keyPrefix: prefix, ttl: { capture: undefined } })
  const token = newToken('capture')
  await partial.save([token])
  t.ok(await client.ttl(tokenKey(token)) > 3590, 'an undefined lifetime keeps the default')
})
