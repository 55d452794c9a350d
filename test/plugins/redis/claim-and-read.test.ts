/*
 * A token route's payment read with its token: the claim script answers the payment's record
 * read under the claim it took, the done page's read answers the token and the record in one
 * script, and the payment's RedisStorage takes that copy instead of reading it again (ReadCache).
 */
import t from 'tap'
import { Payment, Token, affinityTag, type Storage } from '../../../plugins/core/engine/index.ts'
import { generateTokenHash } from '../../../plugins/core/engine/random.ts'
import { RedisStorageBackend, RedisTokenStorage } from '../../../plugins/redis/index.ts'
import { commandsSentBy, socketWrites, testRedis } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'claim-and-read')

function setup (keyPrefix = `${prefix}${Math.random().toString(36).slice(2)}:`) {
  const backend = new RedisStorageBackend(client, { keyPrefix })
  const payments = backend.createStorage(Payment)
  return { backend, payments, tokens: backend.createTokenStorage() as RedisTokenStorage, keyPrefix }
}

async function saved (payments: Storage<Payment>, number = 'ORDER-1'): Promise<Payment> {
  const payment = Object.assign(payments.create(), { number, totalAmount: 1999, currencyCode: 'EUR' })
  await payments.update(payment)
  return payment
}

/** A token as the token factory makes it: its hash starts with its payment's tag (ownTag false: a hand-made one). */
function tokenOf (payments: Storage<Payment>, payment: Payment, kind = 'capture', ownTag = true): Token {
  const hash = ownTag ? generateTokenHash(affinityTag('Payment', payment.id as string)) : new Token().hash
  return Object.assign(new Token(hash), { kind, gatewayName: 'cash', targetUrl: `https://shop.example/payment/${kind}/x`, details: payments.identify(payment) })
}

t.test('a claim reads the token\'s payment under the claim it takes; the storage takes that copy and sends nothing', async (t) => {
  const { payments, tokens } = setup()
  const payment = await saved(payments)
  payment.description = 'second version'
  await payments.update(payment)
  const token = tokenOf(payments, payment)
  await tokens.save([token])

  const claimed = await tokens.claim(token.hash, 10_000)
  t.equal(claimed?.reads?.size, 1, 'the record came with the claim')
  let found: Payment | null = null
  const sent = await commandsSentBy(client, async () => { found = await payments.find(token.details!, { reads: claimed!.reads }) })
  t.same(sent, [], 'no second read')
  t.match(found, { id: payment.id, number: 'ORDER-1', description: 'second version' })
  t.equal(payments.versionOf(found!), 2, 'with the version the commit compares against')
  t.equal(claimed?.reads?.size, 0, 'taken once')
  const again = await commandsSentBy(client, async () => { await payments.find(token.details!, { reads: claimed!.reads }) })
  t.same(again.map((command) => command.name), ['get'], 'a second load reads Redis')
  await tokens.releaseClaim(claimed!.claim)
})

t.test('a token whose payment is not stored: the claim read "nothing there", and the storage answers none without asking', async (t) => {
  const { payments, tokens } = setup()
  const payment = Object.assign(payments.create(), { number: 'NEVER-SAVED' })
  payments.assignId!(payment)
  const token = tokenOf(payments, payment)
  await tokens.save([token])
  const claimed = await tokens.claim(token.hash, 10_000)
  let found: Payment | null | undefined
  t.same(await commandsSentBy(client, async () => { found = await payments.find(token.details!, { reads: claimed!.reads }) }), [])
  t.equal(found, null)
  await tokens.releaseClaim(claimed!.claim)
})

t.test('a claim that does not take the claim, or finds the token used or gone, reads no record', async (t) => {
  const { payments, tokens } = setup()
  const payment = await saved(payments)
  const token = tokenOf(payments, payment)
  await tokens.save([token])
  const held = await tokens.claim(token.hash, 10_000)
  await t.rejects(tokens.claim(token.hash, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  await tokens.releaseClaim(held!.claim)
  await tokens.invalidate(token.hash)
  await t.rejects(tokens.claim(token.hash, 10_000), { code: 'PAYWIRE_ERR_TOKEN_USED' })
  t.equal(await tokens.claim(new Token().hash, 10_000), null)
})

t.test('a token not made by the token factory claims its payment elsewhere: nothing read with the first claim is handed on', async (t) => {
  const { payments, tokens } = setup()
  const payment = await saved(payments)
  const token = tokenOf(payments, payment, 'capture', false)
  await tokens.save([token])
  const claimed = await tokens.claim(token.hash, 10_000)
  t.equal(claimed?.claim.key, tokens.claimKey(token.details!), 'the payment\'s own claim')
  t.equal(claimed?.reads, undefined)
  // What the script read at the key it made (the token's tag) is no record of this payment: a storage would never take it.
  const { reads } = await tokens.findAndRead(token.hash)
  t.same(await commandsSentBy(client, async () => { t.equal((await payments.find(token.details!, { reads }))?.number, 'ORDER-1') }).then((sent) => sent.map((command) => command.name)), ['get'])
  await tokens.releaseClaim(claimed!.claim)
})

t.test('the done page\'s read: the token and its payment in one round trip, nothing written', async (t) => {
  const { payments, tokens } = setup()
  const payment = await saved(payments)
  const after = tokenOf(payments, payment, 'after')
  await tokens.save([after])
  const ttlBefore = await client.pttl(tokens.tokenKey(after.hash))
  let read = null as unknown as Awaited<ReturnType<RedisTokenStorage['findAndRead']>>
  const sent = await commandsSentBy(client, async () => {
    t.equal(await socketWrites(client, async () => { read = await tokens.findAndRead(after.hash) }), 1, 'one round trip')
  })
  t.same(sent.map((command) => command.name), ['evalsha'], 'one script')
  t.same(read.token?.toJSON(), after.toJSON())
  t.same(await commandsSentBy(client, async () => { t.equal((await payments.find(after.details!, { reads: read.reads }))?.number, 'ORDER-1') }), [])
  t.ok(await client.pttl(tokens.tokenKey(after.hash)) <= ttlBefore, 'the token\'s lifetime runs on: not written again')
  t.same(await client.keys(`${tokens.keyPrefix}*:claim`), [], 'no claim taken')
  t.same(await client.get(tokens.tokenKey(after.hash)), JSON.stringify(after), 'the token as stored')

  t.same(await tokens.findAndRead(new Token().hash), { token: null }, 'an unknown token')
  await tokens.invalidate(after.hash)
  t.same(await tokens.findAndRead(after.hash), { token: null }, 'a used token is no live token, as find() says')
  const notify = Object.assign(new Token(), { kind: 'notify', gatewayName: 'cash', targetUrl: 'https://shop.example/payment/notify/x', details: null })
  await tokens.save([notify])
  const gatewayWide = await tokens.findAndRead(notify.hash)
  t.same(gatewayWide.token?.toJSON(), notify.toJSON())
  t.equal(gatewayWide.reads, undefined, 'a token naming no payment: the token alone')
})

t.test('tokens of a backend that keeps no records (payments elsewhere) read the token alone', async (t) => {
  const { payments } = setup()
  const payment = await saved(payments)
  const tokensOnly = new RedisStorageBackend(client, { keyPrefix: `${prefix}tokens-only:` }).createTokenStorage()
  const token = tokenOf(payments, payment)
  await tokensOnly.save([token])
  const claimed = await tokensOnly.claim(token.hash, 10_000)
  t.equal(claimed?.reads, undefined)
  t.equal((await tokensOnly.findAndRead(token.hash)).reads, undefined)
  await tokensOnly.releaseClaim(claimed!.claim)

  // A token storage made by hand reads records by default; under another key prefix than the records', none is ever taken.
  const byHand = new RedisTokenStorage(client, { keyPrefix: `${prefix}by-hand:` })
  await byHand.save([token])
  const { reads } = await byHand.findAndRead(token.hash)
  t.equal(reads?.size, 1)
  const sent = await commandsSentBy(client, async () => { t.equal((await payments.find(token.details!, { reads }))?.number, 'ORDER-1') })
  t.same(sent.map((command) => command.name), ['get'], 'read from the records\' own key')
})
