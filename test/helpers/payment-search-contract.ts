/*
 * The operator search and the sweeper's pick (PaymentSearch) as every backend answers them:
 * real payments made through the offline gateway (and one through the Stripe gateway on its
 * simulator, for provider ids), so the facets come from the gateways' own readers in the
 * commit path. Each backend's test file runs it: `paymentSearchContract(t, (t) => makeBackend(t))`.
 */
import { setImmediate as tick } from 'node:timers/promises'
import {
  Authorize, Cancel, Capture, Payment, PaywireBuilder, Refund, isPaymentSearch,
  type AbstractStorage, type Paywire, type PaymentFacets, type PaymentQuery, type PaymentSearch, type StorageBackend
} from '../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../gateways/offline/index.ts'
import { pay, startStripeShop, storedPayment } from '../gateways/stripe/fixtures/shop.ts'

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

const MINUTE = 60_000
/** The payments' creation times: fixed, so the order is known (the storage keeps a createdAt it is given). */
const T0 = Date.parse('2026-01-05T10:00:00.000Z')
const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString()

export interface Shop {
  paywire: Paywire
  payments: AbstractStorage<Payment>
  search: PaymentSearch
  /** A payment through an offline gateway, created at T0 + `minute`, then taken through `steps`. */
  make: (minute: number, options?: Partial<Payment> & { steps?: Step[], paid?: boolean }) => Promise<Payment>
  ids: (query: Omit<PaymentQuery, 'first'> & { first?: number }) => Promise<string[]>
}

type Step = 'capture' | 'authorize' | 'cancel' | 'refund'

export async function searchShop (t: any, backend: StorageBackend): Promise<Shop> {
  const paywire = new PaywireBuilder()
    .setStorageBackend(backend)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .addGateway('till', { factory: 'offline' })
    .setAttention({ pendingAfterMs: 10 * MINUTE })
    .getPaywire()
  t.teardown(() => paywire.close())
  const payments = paywire.getStorage(Payment) as AbstractStorage<Payment>
  if (!isPaymentSearch(payments)) throw new Error('the Payment storage does not implement PaymentSearch')
  const search = payments
  const make: Shop['make'] = async (minute, { steps = [], paid = true, ...fields } = {}) => {
    const payment = Object.assign(payments.create(), {
      gatewayName: 'cash', number: `ORDER-${minute}`, totalAmount: 1000, currencyCode: 'EUR', createdAt: at(minute), details: { paid }
    }, fields)
    await payments.update(payment)
    for (const step of steps) {
      const Request = { capture: Capture, authorize: Authorize, cancel: Cancel, refund: Refund }[step]
      await paywire.executeExclusive(payment.gatewayName, payment, (model) => new Request(model))
    }
    // As stored: the steps wrote it again (its updatedAt moved).
    return await payments.find(payment.id as string) as Payment
  }
  const ids: Shop['ids'] = async (query) => {
    const found: string[] = []
    let after: string | undefined
    do {
      const page = await search.searchPayments({ first: 50, ...query, ...(after === undefined ? {} : { after }) })
      found.push(...page.ids)
      after = page.endCursor
    } while (after !== undefined)
    return found
  }
  return { paywire, payments, search, make, ids }
}

/** Waits (no sleep: a tick at a time) until the clock is past `iso`, so the next write's updatedAt is later. */
async function clockPast (iso: string | undefined): Promise<void> {
  const time = Date.parse(iso as string)
  while (Date.now() <= time) await tick()
}

export function paymentSearchContract (t: Test, make: (t: any) => Promise<StorageBackend>): void {
  t.test('search: every filter alone and combined, newest first', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const captured = await shop.make(1, { steps: ['capture'], totalAmount: 500 })
    const pending = await shop.make(2, { steps: ['capture'], paid: false, totalAmount: 2500 })
    const authorized = await shop.make(3, { steps: ['authorize'], currencyCode: 'USD', totalAmount: 1000 })
    const canceled = await shop.make(4, { steps: ['authorize', 'cancel'], gatewayName: 'till', totalAmount: 7000 })
    // The updated bounds below tell the two 'till' payments apart by their last write: not in one millisecond.
    await clockPast((await shop.payments.find(canceled.id as string))?.updatedAt)
    const refunded = await shop.make(5, { steps: ['capture', 'refund'], gatewayName: 'till', currencyCode: 'USD', totalAmount: 1500 })
    const fresh = await shop.make(6)
    const id = (payment: Payment) => payment.id as string
    const all = [fresh, refunded, canceled, authorized, pending, captured].map(id)

    t.same(await shop.ids({}), all, 'no filter: every payment, newest first')
    t.same(await shop.ids({ status: ['captured'] }), [id(captured)])
    t.same(await shop.ids({ status: ['new'] }), [id(fresh)], 'a payment only saved, never run, is searchable as new')
    t.same(await shop.ids({ status: ['pending', 'refunded', 'canceled'] }), [id(refunded), id(canceled), id(pending)], 'any of several statuses')
    t.same(await shop.ids({ status: [] }), [], 'no status at all matches nothing')
    t.same(await shop.ids({ gatewayName: 'till' }), [id(refunded), id(canceled)])
    t.same(await shop.ids({ gatewayName: 'nowhere' }), [])
    t.same(await shop.ids({ currencyCode: 'USD' }), [id(refunded), id(authorized)])
    t.same(await shop.ids({ createdFrom: at(2), createdTo: at(4) }), [id(canceled), id(authorized), id(pending)], 'created bounds are inclusive')
    t.same(await shop.ids({ createdFrom: at(5) }), [id(fresh), id(refunded)])
    t.same(await shop.ids({ createdTo: '2026-01-05T10:01:00Z' }), [id(captured)], 'times in any ISO 8601 form')
    const updated = (await shop.payments.find(id(refunded)))?.updatedAt as string
    t.same(await shop.ids({ updatedFrom: updated, gatewayName: 'till' }), [id(refunded)], 'updated bounds: the refund was the later write')
    t.same(await shop.ids({ updatedTo: at(0) }), [], 'nothing was updated before it was created')
    t.same(await shop.ids({ amountMin: 1000, amountMax: 2500 }), [id(fresh), id(refunded), id(authorized), id(pending)], 'amount bounds are inclusive')
    t.same(await shop.ids({ amountMin: 7000 }), [id(canceled)])
    t.same(await shop.ids({ amountMax: 500 }), [id(captured)])
    t.same(await shop.ids({ gatewayName: 'cash', currencyCode: 'EUR', status: ['captured', 'pending', 'new'], amountMin: 600 }),
      [id(fresh), id(pending)], 'every given filter must match')
    t.same(await shop.ids({ status: ['refunded'], createdTo: at(4) }), [], 'a status set and a range that do not meet')
  })

  t.test('search: needsAttention and attentionDue by a fixed clock', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const first = await shop.make(1, { steps: ['capture'], paid: false })
    await clockPast(first.updatedAt)
    const second = await shop.make(2, { steps: ['capture'], paid: false, gatewayName: 'till' })
    const done = await shop.make(3, { steps: ['capture'] })
    const firstDue = new Date(Date.parse(first.updatedAt as string) + 10 * MINUTE)
    const later = new Date(Date.parse(second.updatedAt as string) + 10 * MINUTE)

    t.same(await shop.ids({ needsAttention: true, now: new Date(firstDue.getTime() - 1) }), [], 'pending, but not for long enough yet')
    t.same(await shop.ids({ needsAttention: true, now: firstDue }), [first.id], 'due at its attentionAt exactly')
    t.same(await shop.ids({ needsAttention: true, now: later }), [second.id, first.id])
    t.same(await shop.ids({ needsAttention: false, now: firstDue }), [done.id, second.id], 'the others')
    t.same(await shop.ids({ needsAttention: true, now: later, gatewayName: 'cash' }), [first.id])

    t.same(await shop.search.attentionDue(new Date(firstDue.getTime() - 1), 10), [])
    const due = await shop.search.attentionDue(later, 10)
    t.same(due.map((facets) => facets.id), [first.id, second.id], 'the longest due first')
    t.match(due[0], {
      id: first.id,
      gatewayName: 'cash',
      status: 'pending',
      currencyCode: 'EUR',
      totalAmount: 1000,
      createdAt: at(1),
      updatedAt: first.updatedAt,
      attentionAt: firstDue.toISOString(),
      attentionReason: 'pending',
      providerIds: []
    })
    t.same((await shop.search.attentionDue(later, 1)).map((facets) => facets.id), [first.id], 'at most limit')
  })

  t.test('search: deferAttention keeps a payment out of the due ones until its time; a later write brings its own attention back', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const payment = await shop.make(1, { steps: ['capture'], paid: false })
    const other = await shop.make(2, { steps: ['capture'], paid: false })
    const done = await shop.make(3, { steps: ['capture'] })
    const id = payment.id as string
    const farFuture = new Date('2100-01-01T00:00:00Z')
    const dueIds = async (now: Date) => (await shop.search.attentionDue(now, 10)).map((facets) => facets.id)
    const facetsAt = async (now: Date) => (await shop.search.attentionDue(now, 10)).find((facets) => facets.id === id) as PaymentFacets
    const read = await facetsAt(farFuture)
    const until = new Date(Date.parse(read.attentionAt as string) + 60 * MINUTE)
    const early = new Date(until.getTime() - 1)

    t.equal(await shop.search.deferAttention(id, until.toISOString(), read), true, 'deferred')
    t.same(await dueIds(early), [other.id], 'not due before its time')
    t.same(await shop.ids({ needsAttention: true, now: early }), [other.id], 'nor searched as needing attention')
    t.same(await dueIds(until), [other.id, id], 'due at its time, after the payments due longer')
    const deferred = await facetsAt(until)
    t.match(deferred, { attentionAt: until.toISOString(), attentionDeferrals: 1, attentionReason: 'pending', updatedAt: read.updatedAt, status: 'pending' })
    t.equal(await shop.search.deferAttention(id, '2026-01-05T13:00:00+01:00', read), false, 'a read the storage no longer holds (its attentionAt moved): not deferred')
    const later = new Date(until.getTime() + 60 * MINUTE)
    t.equal(await shop.search.deferAttention(id, later.toISOString(), deferred), true, 'deferred again, from what was read')
    t.match(await facetsAt(later), { attentionAt: later.toISOString(), attentionDeferrals: 2 }, 'the deferrals counted')
    t.same(await dueIds(until), [other.id])

    t.equal(await shop.search.deferAttention(done.id as string, later.toISOString(), { updatedAt: done.updatedAt as string }), false, 'no attention: nothing to defer')
    t.equal(await shop.search.deferAttention(done.id as string, later.toISOString(), { updatedAt: done.updatedAt as string, attentionAt: read.attentionAt }), false)
    t.equal(await shop.search.deferAttention('unknown', later.toISOString(), read), false, 'an unknown payment')
    t.equal(await shop.search.deferAttention('a\u0000b', later.toISOString(), read), false, 'an id no payment can have')

    // A write after the deferral (as a webhook's would be): its facets carry the attention its rule gives.
    const stale = await facetsAt(later)
    await clockPast(stale.updatedAt)
    await shop.payments.update(await shop.payments.find(id) as Payment)
    const written = await shop.payments.find(id) as Payment
    const back = await facetsAt(farFuture)
    t.equal(back.attentionAt, new Date(Date.parse(written.updatedAt as string) + 10 * MINUTE).toISOString(), 'due by its own rule again')
    t.equal(back.attentionDeferrals, undefined, 'its deferrals start again')
    t.same(await dueIds(new Date(back.attentionAt as string)), [other.id, id])
    t.equal(await shop.search.deferAttention(id, farFuture.toISOString(), stale), false, 'a deferral read before the write never hides its attention')
    t.equal(await shop.search.deferAttention(id, farFuture.toISOString(), { ...back, updatedAt: stale.updatedAt }), false, 'nor one read of another write')
    t.equal((await facetsAt(farFuture)).attentionAt, back.attentionAt)

    await t.rejects(shop.search.deferAttention(id, 'soon', back), { code: 'PAYWIRE_ERR_VALIDATION', field: 'until' })
    await t.rejects(shop.search.deferAttention(id, 5 as never, back), { code: 'PAYWIRE_ERR_VALIDATION', field: 'until' })
  })

  t.test('search: a status change moves the payment between filters; a delete removes it', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const payment = await shop.make(1, { steps: ['capture'], paid: false })
    const other = await shop.make(2, { steps: ['capture'] })
    const farFuture = new Date('2100-01-01T00:00:00Z')
    t.same(await shop.ids({ status: ['pending'] }), [payment.id])
    t.same((await shop.search.attentionDue(farFuture, 10)).map((facets) => facets.id), [payment.id])

    payment.details.paid = true
    await shop.payments.update(payment)
    t.same(await shop.ids({ status: ['pending'] }), [payment.id], 'a direct write keeps the facets current')
    await shop.paywire.executeExclusive('cash', payment, (model) => new Capture(model))
    t.same(await shop.ids({ status: ['pending'] }), [], 'no longer pending')
    t.same(await shop.ids({ status: ['captured'] }), [other.id, payment.id], 'captured now')
    t.same(await shop.search.attentionDue(farFuture, 10), [], 'nothing left to learn: no attention')
    t.same(await shop.ids({ needsAttention: false, now: farFuture }), [other.id, payment.id])

    const stored = await shop.payments.find(payment.id as string) as Payment
    await shop.payments.delete(stored)
    t.same(await shop.ids({}), [other.id], 'a deleted payment is found by no search')
    t.same(await shop.ids({ status: ['captured'] }), [other.id])
  })

  t.test('search: pages by cursor stay stable while payments are added between them', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const made: Payment[] = []
    for (const minute of [10, 20, 30, 40, 50]) made.push(await shop.make(minute))
    // Two payments created at the same time: the id orders them.
    const twins = [await shop.make(35), await shop.make(35)].sort((a, b) => (a.id as string) < (b.id as string) ? 1 : -1)
    const expected = [made[4], made[3], ...twins, made[2], made[1], made[0]].map((payment) => payment?.id)

    const first = await shop.search.searchPayments({ first: 3 })
    t.same(first.ids, expected.slice(0, 3))
    t.type(first.endCursor, 'string')
    // Added between pages: a newer payment (before the cursor: never shown on later pages) and an older one (found in order).
    await shop.make(60)
    const older = await shop.make(5)
    const second = await shop.search.searchPayments({ first: 3, after: first.endCursor })
    t.same(second.ids, expected.slice(3, 6))
    const third = await shop.search.searchPayments({ first: 3, after: second.endCursor })
    t.same(third.ids, [...expected.slice(6), older.id])
    t.equal(third.endCursor, undefined, 'the last page has no endCursor')
    const exact = await shop.search.searchPayments({ first: 8, createdTo: at(50) })
    t.same(exact.ids, [...expected, older.id])
    t.equal(exact.endCursor, undefined, 'a page that holds exactly the rest is the last')
    t.same((await shop.search.searchPayments({ first: 2, status: ['new'], after: first.endCursor })).ids, expected.slice(3, 5), 'a cursor with an index filter')
  })

  t.test('search: bad queries are refused with the field they name', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const refuse = async (query: PaymentQuery, field: string) => {
      await t.rejects(shop.search.searchPayments(query), { code: 'PAYWIRE_ERR_VALIDATION', field }, field)
    }
    await refuse({ first: 0 }, 'first')
    await refuse({ first: 1001 }, 'first')
    await refuse({ first: 1.5 }, 'first')
    await refuse({ first: 1, amountMin: 10, amountMax: 5 }, 'amountMin')
    await refuse({ first: 1, amountMin: -1 }, 'amountMin')
    await refuse({ first: 1, amountMax: 0.5 }, 'amountMax')
    await refuse({ first: 1, createdFrom: 'yesterday' }, 'createdFrom')
    await refuse({ first: 1, createdFrom: at(2), createdTo: at(1) }, 'createdFrom')
    await refuse({ first: 1, updatedFrom: at(2), updatedTo: at(1) }, 'updatedFrom')
    await refuse({ first: 1, updatedTo: 'not a date' }, 'updatedTo')
    await refuse({ first: 1, status: ['paid' as 'captured'] }, 'status')
    await refuse({ first: 1, after: 'not-a-cursor' }, 'after')
    await refuse({ first: 1, after: Buffer.from('["yesterday","x"]').toString('base64url') }, 'after')
    await refuse({ first: 1, now: new Date('nope') }, 'now')
    await t.rejects(shop.search.attentionDue(new Date('nope'), 1), { code: 'PAYWIRE_ERR_VALIDATION', field: 'now' })
    await t.rejects(shop.search.attentionDue(new Date(), 0), { code: 'PAYWIRE_ERR_VALIDATION', field: 'limit' })
  })

  t.test('search: reindexPayments() gives payments written before the search their facets', async (t: any) => {
    const shop = await searchShop(t, await make(t))
    const indexed = await shop.make(1, { steps: ['capture'] })
    // As an older Paywire wrote them: no facets.
    const facetsOf = shop.payments.facetsOf
    shop.payments.facetsOf = undefined
    const old = await shop.make(2, { details: { status: 'pending' } })
    const older = await shop.make(3, { details: { status: 'refunded', refunded_amount: 100 }, gatewayName: 'till' })
    const noGateway = await shop.make(4, { gatewayName: '' })
    shop.payments.facetsOf = facetsOf
    t.same(await shop.ids({}), [indexed.id], 'only the payment written with facets is found')

    t.same(await shop.paywire.reindexPayments(), { payments: 4, indexed: 3 }, 'every payment read; the one naming no gateway is no payment to search')
    t.same(await shop.ids({}), [older.id, old.id, indexed.id])
    t.same(await shop.ids({ status: ['pending'] }), [old.id])
    t.same(await shop.ids({ gatewayName: 'till', status: ['refunded'] }), [older.id])
    t.notOk((await shop.ids({})).includes(noGateway.id as string))
    t.equal((await shop.search.attentionDue(new Date('2100-01-01T00:00:00Z'), 10))[0]?.id, old.id, 'its attention too')
  })

  t.test('search: a Stripe payment is found by any of its provider ids', async (t: any) => {
    const shop = await startStripeShop(t, { backend: await make(t) })
    const paid = await pay(shop, { totalAmount: 4200 })
    await pay(shop, { totalAmount: 100 })
    const { details } = await storedPayment(shop, paid.id)
    const search = shop.app.paywire.getStorage(Payment) as unknown as PaymentSearch
    for (const providerId of [details.id as string, details.latest_charge.id as string, paid.sessionId]) {
      t.same((await search.searchPayments({ first: 5, providerId })).ids, [paid.id], providerId.slice(0, 3))
    }
    t.same((await search.searchPayments({ first: 5, providerId: 'pi_unknown' })).ids, [])
    t.same((await search.searchPayments({ first: 5, providerId: details.id, status: ['captured'], gatewayName: 'stripe-shop', amountMin: 4200 })).ids, [paid.id])
  })
}
