/*
 * The storage contract every storage backend passes (docs/consistency.md): versioned
 * compare-and-set writes, the same records accepted and refused everywhere, tokens that
 * are used up once, claims held by one request at a time, and commits that apply all or
 * nothing. Each backend's test file runs it: `backendContract(t, () => make())`.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import {
  Gateway, GetHumanStatus, Identity, Payment, StorageExtension, StorageRegistry, Sync, Token, UnitOfWork,
  type Storage, type StorageBackend, type TokenStorage
} from '../../plugins/core/engine/index.ts'
import { FnAction } from './engine.ts'
import { claimLeaseContract } from './claim-lease-contract.ts'
import { claimRaceContract } from './claim-race-contract.ts'
import { notificationContract } from './notification-contract.ts'
import { outboxContract } from './outbox-contract.ts'

export interface BackendUnderTest {
  backend: StorageBackend
  tokens: TokenStorage
  payments: Storage<Payment>
}

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

async function stored (payments: Storage<Payment>, description: string, number = `ORDER-${Math.random()}`): Promise<Payment> {
  const payment = payments.create()
  Object.assign(payment, { number, description, totalAmount: 1999, currencyCode: 'EUR' })
  await payments.update(payment)
  return payment
}

function tokenFor (payment: Payment, afterUrl: string | null = 'https://shop.example/done/after'): Token {
  const token = new Token()
  token.gatewayName = 'offline'
  token.targetUrl = 'https://shop.example/payment/capture/x'
  token.afterUrl = afterUrl
  token.details = new Identity(payment.id as string, 'Payment')
  return token
}

/** Polls (no fixed sleep) until the check holds; claims and tokens expire on the store's own clock. */
async function until (check: () => Promise<boolean>): Promise<void> {
  while (!await check()) await sleep(5)
}

export function backendContract (t: Test, make: (t: any) => Promise<BackendUnderTest>): void {
  outboxContract(t, make)
  notificationContract(t, make)
  claimRaceContract(t, make)
  claimLeaseContract(t, make)
  t.test('contract: versions start at 1 and grow by one per write', async (t: any) => {
    const { payments } = await make(t)
    const payment = await stored(payments, 'first')
    t.equal(payments.versionOf(payment), 1)
    payment.description = 'second'
    await payments.update(payment)
    t.equal(payments.versionOf(payment), 2)
    const found = await payments.find(payment.id as string)
    t.equal(payments.versionOf(found as Payment), 2)
    t.equal(found?.description, 'second')
    t.equal(payments.versionOf(payments.create()), undefined, 'a model never stored has no version')
  })

  t.test('contract: a copy read before another writer wrote cannot erase what it stored', async (t: any) => {
    const { payments } = await make(t)
    const original = await stored(payments, 'original')
    const first = await payments.find(original.id as string) as Payment
    const second = await payments.find(original.id as string) as Payment
    first.description = 'refund recorded'
    await payments.update(first)
    second.clientId = 'stale writer'
    await t.rejects(payments.update(second), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE', statusCode: 409 })
    const now = await payments.find(original.id as string) as Payment
    t.equal(now.description, 'refund recorded', 'the first writer\'s fact is kept')
    t.equal(now.clientId, '', 'the stale copy wrote nothing')
    now.clientId = 'read again'
    await payments.update(now)
    t.equal((await payments.find(original.id as string))?.clientId, 'read again', 'reading again and retrying works')
  })

  t.test('contract: reads through a gateway never write: a status, a Sync that changes nothing, on a loaded payment or its identity', async (t: any) => {
    const { payments } = await make(t)
    const payment = await stored(payments, 'first')
    payment.description = 'second'
    await payments.update(payment)
    const gateway = new Gateway()
      .addExtension(new StorageExtension(new StorageRegistry().add(Payment, payments)))
      .addAction(new FnAction(GetHumanStatus, (request: GetHumanStatus) => { request.markCaptured() }))
      .addAction(new FnAction(Sync))
    const earlier = await payments.find(payment.id as string) as Payment
    for (const request of [new GetHumanStatus(earlier), new Sync(earlier), new GetHumanStatus(payments.identify(payment)), new Sync(payments.identify(payment))]) {
      await gateway.execute(request)
      t.equal(payments.versionOf(await payments.find(payment.id as string) as Payment), 2, `${request.constructor.name}: the version stays 2`)
    }
    earlier.clientId = 'a writer that read before the reads'
    await payments.update(earlier)
    t.equal(payments.versionOf(earlier), 3, 'a writer holding a copy read before them is not refused')
    earlier.description = 'changed by the caller'
    await gateway.execute(new Sync(earlier))
    t.equal((await payments.find(payment.id as string))?.description, 'changed by the caller', 'a model the caller changed is still saved')
  })

  t.test('contract: a payment as just written or read is not written again, down to its details, until they change', async (t: any) => {
    const { payments } = await make(t)
    const payment = payments.create()
    // A date and nested values: the backend keeps them as JSON (PostgreSQL's jsonb in its own key order).
    Object.assign(payment, { number: `ORDER-${Math.random()}`, details: { status: 'pending', at: new Date(0), provider: { ids: ['a'], fee: 0.5 } } })
    await payments.update(payment)
    const gateway = new Gateway()
      .addExtension(new StorageExtension(new StorageRegistry().add(Payment, payments)))
      .addAction(new FnAction(Sync))
    const read = await payments.find(payment.id as string) as Payment
    for (const [model, name] of [[payment, 'as written'], [read, 'as read']] as const) {
      await gateway.execute(new Sync(model))
      t.equal(payments.versionOf(model), 1, `${name}: not written`)
    }
    ;(read.details.provider as { ids: string[] }).ids.push('b')
    await gateway.execute(new Sync(read))
    t.equal(payments.versionOf(read), 2, 'a change deep in the details is written')
    t.same((await payments.find(payment.id as string))?.details, { status: 'pending', at: new Date(0).toISOString(), provider: { ids: ['a', 'b'], fee: 0.5 } })
  })

  t.test('contract: a model never read cannot replace a stored record with its id', async (t: any) => {
    const { payments } = await make(t)
    const original = await stored(payments, 'original')
    const impostor = payments.create()
    Object.assign(impostor, { id: original.id, description: 'blind write' })
    await t.rejects(payments.update(impostor), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
    t.equal((await payments.find(original.id as string))?.description, 'original')
    const fresh = payments.create()
    fresh.id = `chosen-${Math.random()}`
    await payments.update(fresh)
    t.equal(payments.versionOf(fresh), 1, 'a new model with an id of its own is created')
  })

  t.test('contract: findMany and findBy give models that write against what they read', async (t: any) => {
    const { payments } = await make(t)
    const number = `ORDER-${Math.random()}`
    const original = await stored(payments, 'original', number)
    const [many] = await payments.findMany([original.id as string])
    const [byNumber] = await payments.findBy({ number })
    t.equal(payments.versionOf(many as Payment), 1)
    t.equal(payments.versionOf(byNumber as Payment), 1)
    ;(many as Payment).description = 'via findMany'
    await payments.update(many as Payment)
    ;(byNumber as Payment).description = 'via findBy'
    await t.rejects(payments.update(byNumber as Payment), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  })

  t.test('contract: delete is a compare-and-set for models read from the storage', async (t: any) => {
    const { payments } = await make(t)
    const original = await stored(payments, 'original')
    const stale = await payments.find(original.id as string) as Payment
    original.description = 'changed'
    await payments.update(original)
    await t.rejects(payments.delete(stale), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
    t.ok(await payments.find(original.id as string), 'still there')
    await payments.delete(original)
    t.equal(await payments.find(original.id as string), null)
  })

  t.test('contract: records no storage can keep as given are refused before anything is written', async (t: any) => {
    const { payments } = await make(t)
    const refused: Array<[string, (payment: Payment) => void]> = [
      ['a NUL character', (payment) => { payment.description = 'a\u0000b' }],
      ['a lone surrogate', (payment) => { payment.description = 'emoji cut \uD83D' }],
      ['a lone surrogate in a key', (payment) => { payment.details = { '\uDE00': 1 } }],
      ['NaN', (payment) => { payment.totalAmount = Number.NaN }],
      ['deep nesting', (payment) => {
        let deep: Record<string, unknown> = {}
        const root = deep
        for (let level = 0; level < 40; level++) deep = (deep.next = {}) as Record<string, unknown>
        payment.details = root
      }]
    ]
    for (const [what, spoil] of refused) {
      const payment = payments.create()
      payment.number = `REFUSED-${Math.random()}`
      spoil(payment)
      await t.rejects(payments.update(payment), { code: 'PAYWIRE_ERR_RECORD_NOT_STORABLE', statusCode: 400 }, what)
      t.equal(payment.id, undefined, `${what}: no id given`)
      t.same(await payments.findBy({ number: payment.number }), [], `${what}: nothing stored`)
    }
    const fine = await stored(payments, 'emoji 💶 and ünïcödé')
    t.equal((await payments.find(fine.id as string))?.description, 'emoji 💶 and ünïcödé', 'paired surrogates are fine')
  })

  t.test('contract: a token is used up once, and remembered as used with its after URL', async (t: any) => {
    const { payments, tokens } = await make(t)
    const payment = await stored(payments, 'paid')
    const token = tokenFor(payment)
    await tokens.save([token])
    t.same((await tokens.find(token.hash))?.toJSON(), token.toJSON())
    t.equal(await tokens.findUsed(token.hash), null, 'a live token is not used')
    // Which of the two wins is up to the store (a pool sends them on two connections): exactly one does.
    t.same((await Promise.all([tokens.invalidate(token.hash), tokens.invalidate(token.hash)])).sort(), [false, true], 'exactly one caller uses it')
    t.equal(await tokens.find(token.hash), null, 'a used token is never found')
    t.same(await tokens.findUsed(token.hash), { afterUrl: token.afterUrl })
    await t.rejects(tokens.claim(token.hash, 1000), { code: 'PAYWIRE_ERR_TOKEN_USED', statusCode: 410, afterUrl: token.afterUrl, targetUrl: token.targetUrl },
      'claim() reports the URL a used token was made for, so a route can tell another route\'s link')
    t.equal(await tokens.claim('A'.repeat(51), 1000), null, 'an unknown token: null')
    t.equal(await tokens.findUsed('A'.repeat(51)), null)
  })

  t.test('contract: one claim per payment, whether taken through a token or the payment', async (t: any) => {
    const { payments, tokens } = await make(t)
    const payment = await stored(payments, 'claimed')
    const token = tokenFor(payment)
    await tokens.save([token])
    const claimed = await tokens.claim(token.hash, 10_000)
    t.same(claimed?.token.toJSON(), token.toJSON())
    const identity = new Identity(payment.id as string, 'Payment')
    await t.rejects(tokens.claimModel(identity, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY', statusCode: 409 })
    await t.rejects(tokens.claim(token.hash, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
    const stranger = { key: claimed!.claim.key, id: 'not-the-holder' }
    t.equal(await tokens.renewClaim(stranger, 10_000), false, 'only the holder renews')
    await tokens.releaseClaim(stranger)
    await t.rejects(tokens.claimModel(identity, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' }, 'only the holder releases')
    t.equal(await tokens.renewClaim(claimed!.claim, 10_000), true)
    await tokens.releaseClaim(claimed!.claim)
    const again = await tokens.claimModel(identity, 10_000)
    t.equal(again.key, claimed!.claim.key, 'the payment\'s claim is the one its tokens take')
    await tokens.releaseClaim(again)
    const other = await stored(payments, 'other payment')
    const otherClaim = await tokens.claimModel(new Identity(other.id as string, 'Payment'), 10_000)
    t.not(otherClaim.key, again.key, 'another payment has another claim')
  })

  t.test('contract: a claim nobody renews expires, and its late holder can no longer renew it', async (t: any) => {
    const { payments, tokens } = await make(t)
    const payment = await stored(payments, 'expiring')
    const identity = new Identity(payment.id as string, 'Payment')
    const first = await tokens.claimModel(identity, 40)
    let second: Awaited<ReturnType<TokenStorage['claimModel']>> | undefined
    await until(async () => {
      second = await tokens.claimModel(identity, 10_000).catch(() => undefined)
      return second !== undefined
    })
    t.equal(await tokens.renewClaim(first, 10_000), false)
    await tokens.releaseClaim(first)
    await t.rejects(tokens.claimModel(identity, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' }, 'the late holder did not release its successor\'s claim')
  })

  t.test('contract: a token without a model claims itself', async (t: any) => {
    const { tokens } = await make(t)
    const token = new Token()
    token.gatewayName = 'offline'
    token.targetUrl = 'https://shop.example/payment/notify/x'
    await tokens.save([token])
    const claimed = await tokens.claim(token.hash, 10_000)
    t.ok(claimed)
    await t.rejects(tokens.claim(token.hash, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
    await tokens.releaseClaim(claimed!.claim)
  })

  t.test('contract: a commit writes the models, uses the token up and releases the claim, together', async (t: any) => {
    const { payments, tokens, backend } = await make(t)
    const payment = await stored(payments, 'before')
    const other = await stored(payments, 'other before')
    const token = tokenFor(payment)
    await tokens.save([token])
    const claimed = await tokens.claim(token.hash, 10_000)
    const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim: claimed!.claim, claimTtlMs: 10_000 })
    const copy = await payments.find(payment.id as string) as Payment
    copy.description = 'captured'
    other.description = 'other after'
    unit.save(copy, payments)
    unit.save(other, payments)
    unit.invalidateToken(token.hash)
    await unit.commit()
    t.equal(unit.written, 2)
    t.equal((await payments.find(payment.id as string))?.description, 'captured')
    t.equal((await payments.find(other.id as string))?.description, 'other after')
    t.equal(payments.versionOf(copy), 2, 'the model knows its new version')
    t.same(await tokens.findUsed(token.hash), { afterUrl: token.afterUrl })
    const next = await tokens.claimModel(new Identity(payment.id as string, 'Payment'), 10_000)
    t.ok(next, 'the claim was released')
  })

  t.test('contract: a commit with one stale model writes nothing at all', async (t: any) => {
    const { payments, tokens, backend } = await make(t)
    const payment = await stored(payments, 'before')
    const other = await stored(payments, 'other before')
    const token = tokenFor(payment)
    await tokens.save([token])
    const claimed = await tokens.claim(token.hash, 10_000)
    const staleOther = await payments.find(other.id as string) as Payment
    other.description = 'written meanwhile'
    await payments.update(other)
    const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim: claimed!.claim, claimTtlMs: 10_000 })
    const copy = await payments.find(payment.id as string) as Payment
    copy.description = 'captured'
    staleOther.description = 'stale'
    unit.save(copy, payments)
    unit.save(staleOther, payments)
    unit.invalidateToken(token.hash)
    await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
    t.equal((await payments.find(payment.id as string))?.description, 'before', 'the fresh model was not written either')
    t.equal((await payments.find(other.id as string))?.description, 'written meanwhile')
    t.ok(await tokens.find(token.hash), 'the token is still usable')
    await t.rejects(tokens.claimModel(new Identity(payment.id as string, 'Payment'), 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' },
      'the claim is still held, for the retry')
  })

  t.test('contract: a commit whose token another request used up is refused whole', async (t: any) => {
    const { payments, tokens, backend } = await make(t)
    const payment = await stored(payments, 'before')
    const token = tokenFor(payment)
    await tokens.save([token])
    const identity = new Identity(payment.id as string, 'Payment')
    const claim = await tokens.claimModel(identity, 10_000)
    t.equal(await tokens.invalidate(token.hash), true, 'another request used the token')
    const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
    const copy = await payments.find(payment.id as string) as Payment
    copy.description = 'charged again'
    unit.save(copy, payments)
    unit.invalidateToken(token.hash)
    await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT', statusCode: 409 })
    const now = await payments.find(payment.id as string) as Payment
    t.equal(now.description, 'before', 'nothing was written')
    t.equal(payments.versionOf(now), 1)
    t.equal(await tokens.renewClaim(claim, 10_000), true, 'the claim is still the request\'s, for it to release')
    await tokens.releaseClaim(claim)
  })

  t.test('contract: a request that lost its claim commits nothing', async (t: any) => {
    const { payments, tokens, backend } = await make(t)
    const payment = await stored(payments, 'before')
    const identity = new Identity(payment.id as string, 'Payment')
    const lost = await tokens.claimModel(identity, 40)
    await until(async () => (await tokens.claimModel(identity, 10_000).catch(() => undefined)) !== undefined)
    const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim: lost, claimTtlMs: 10_000 })
    const copy = await payments.find(payment.id as string) as Payment
    copy.description = 'late'
    unit.save(copy, payments)
    await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CLAIM_LOST' })
    t.equal((await payments.find(payment.id as string))?.description, 'before')
  })

  t.test('contract: a checkpoint writes and keeps the claim', async (t: any) => {
    const { payments, tokens, backend } = await make(t)
    const payment = await stored(payments, 'before')
    const identity = new Identity(payment.id as string, 'Payment')
    const claim = await tokens.claimModel(identity, 10_000)
    const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
    const copy = await payments.find(payment.id as string) as Payment
    copy.description = 'request id stored'
    unit.save(copy, payments)
    await unit.checkpoint()
    t.equal((await payments.find(payment.id as string))?.description, 'request id stored')
    await t.rejects(tokens.claimModel(identity, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
    copy.description = 'done'
    unit.save(copy, payments)
    await unit.commit()
    t.equal((await payments.find(payment.id as string))?.description, 'done', 'the second write builds on the checkpoint\'s version')
    await tokens.releaseClaim(await tokens.claimModel(identity, 10_000))
  })
}
