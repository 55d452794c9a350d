import Fastify from 'fastify'
import t from 'tap'
import {
  Capture, MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, Payment, PaywireBuilder, UnitOfWork,
  describeWrites, facetsOfWrite, paymentFacets, paymentSearchOf, reindexPayments
} from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory, OfflineStateReader } from '../../../../../gateways/offline/index.ts'
import { paywire } from '../../../../../plugins/core/index.ts'
import type { AttentionOptions } from '../../../../../plugins/core/engine/reconcile/attention.ts'
import type { PaymentState } from '../../../../../plugins/core/engine/requests/payment-state.ts'

const reader = new OfflineStateReader()

t.test('the attention thresholds are checked, a misspelt one named with the right name', async (t) => {
  const builder = new PaywireBuilder()
  t.throws(() => builder.setAttention({ pendingAfter: 1000 } as never), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /attention\.pendingAfter.*did you mean pendingAfterMs\?/ })
  t.throws(() => builder.setAttention({ expiryWarningMs: 0 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /attention\.expiryWarningMs.*whole number/ })
  t.throws(() => builder.setAttention({ pendingAfterMs: 1.5 }), { code: 'PAYWIRE_ERR_INVALID_OPTION' })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => { await app.register(paywire, { baseUrl: 'https://shop.example', attention: { expiryWarnMs: 5 } } as never) }, { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /attention\.expiryWarnMs.*did you mean expiryWarningMs\?/ })
})

t.test('the plugin\'s attention option sets when a pending payment gets a look', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, {
    baseUrl: 'https://shop.example', attention: { pendingAfterMs: 1000 }, gateways: { cash: { factory: 'offline' } }, configure: (builder) => { builder.addGatewayFactory('offline', new OfflineGatewayFactory()) }
  })
  await app.ready()
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { gatewayName: 'cash', totalAmount: 100, currencyCode: 'EUR', details: { paid: false } })
  await storage.update(payment)
  await app.paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  const [due] = await (storage as MemoryStorage<Payment>).attentionDue(new Date('2100-01-01T00:00:00Z'), 1)
  t.equal(Date.parse(due?.attentionAt as string) - Date.parse(due?.updatedAt as string), 1000)
})

t.test('facets need a record with its times, a gateway and a reading', async (t) => {
  const storage = new MemoryStorage(Payment)
  const record = { gatewayName: 'cash', totalAmount: 1.5, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', details: { status: 'pending' } }
  t.match(paymentFacets('p1', record, 'cash', { status: 'pending' }), {
    createdAt: '2026-01-01T00:00:00.000Z', totalAmount: 0, currencyCode: '', providerIds: [], attentionReason: 'pending'
  }, 'times normalized; an amount that is no integer counts 0')
  t.equal(paymentFacets('p1', { ...record, createdAt: 'soon' }, 'cash', { status: 'new' }), undefined, 'a time that is no time')
  t.equal(paymentFacets('p1', { ...record, updatedAt: undefined }, 'cash', { status: 'new' }), undefined, 'no updatedAt')
  const write = storage.stage(Object.assign(new Payment(), record))
  t.equal(facetsOfWrite(write, () => reader)?.status, 'pending')
  t.equal(facetsOfWrite({ ...write, record: { ...write.record, gatewayName: '' } }, () => reader), undefined, 'no gateway named')
  t.equal(facetsOfWrite(write, () => undefined)?.status, 'unknown', 'a gateway without a reader')
  t.equal(facetsOfWrite({ ...write, record: { ...write.record, details: 'none' } }, () => reader)?.status, 'unknown', 'not a record the gateway reads')
  t.equal(facetsOfWrite(write, () => { throw new Error('the gateway cannot be built') })?.status, 'unknown', 'a gateway that fails to build')
  t.equal(facetsOfWrite(storage.stageDelete(Object.assign(new Payment(), { id: 'p1' })), () => reader), undefined, 'a delete')
})

t.test('facet times are the records\' times as toISOString() writes them, whatever form they were stored in', async (t) => {
  const times = [
    '2026-11-28T12:34:56.789Z', '2026-01-01T00:00:00Z', '2026-01-01T01:00:00+01:00', '2026-01-01', 'Sat, 28 Nov 2026 12:00:00 GMT',
    '2024-02-29T00:00:00.000Z', '2025-02-29T00:00:00.000Z', '2026-02-30T23:59:59.999Z', '2026-04-31T00:00:00.000Z', '2026-12-31T23:59:59.999Z',
    '2026-01-01T24:00:00.000Z', '1900-02-29T00:00:00.000Z', '2000-02-29T00:00:00.000Z', '0000-02-29T00:00:00.000Z', '9999-12-31T23:59:59.999Z',
    '+010000-01-01T00:00:00.000Z', '2026-06-15T10:00:00.5Z'
  ]
  // Every day of a leap year and of another, as a storage stamps them.
  for (const year of [2024, 2026]) {
    for (let day = 0; day < 366; day++) times.push(new Date(Date.UTC(year, 0, 1 + day, 23, 59, 59, 999)).toISOString())
  }
  for (const time of times) {
    const facets = paymentFacets('p1', { createdAt: time, updatedAt: time }, 'cash', { status: 'captured' })
    const iso = new Date(time).toISOString()
    if (facets?.createdAt !== iso || facets.updatedAt !== iso) t.fail(`${time}: ${String(facets?.createdAt)}, not ${iso}`)
  }
  t.pass(`${times.length} times`)
})

t.test('a unit made without a describer takes the facets from its storage', async (t) => {
  const backend = new MemoryStorageBackend()
  const tokens = new MemoryTokenStorage()
  const storage = new MemoryStorage(Payment)
  storage.facetsOf = (write) => facetsOfWrite(write, () => reader)
  const payment = Object.assign(new Payment(), { gatewayName: 'cash', details: { status: 'captured' } })
  const unit = new UnitOfWork({ backend, tokenStorage: tokens })
  unit.save(payment, storage)
  await unit.commit()
  t.same((await storage.searchPayments({ first: 5, status: ['captured'] })).ids, [payment.id])
  const plain = new MemoryStorage(Payment)
  const other = new UnitOfWork({ backend, tokenStorage: tokens })
  other.save(Object.assign(new Payment(), { gatewayName: 'cash' }), plain)
  await other.commit()
  t.same((await plain.searchPayments({ first: 5 })).ids, [], 'a storage nobody gave facetsOf indexes nothing')
})

t.test('a payment its gateway cannot read is searchable as unknown; one naming no gateway has no facets', async (t) => {
  const shop = new PaywireBuilder().addGatewayFactory('offline', new OfflineGatewayFactory()).addGateway('cash', { factory: 'offline' }).getPaywire()
  t.teardown(() => shop.close())
  const storage = shop.getStorage(Payment) as MemoryStorage<Payment>
  const elsewhere = Object.assign(new Payment(), { gatewayName: 'elsewhere' })
  await storage.update(elsewhere)
  const unreadable = Object.assign(new Payment(), { gatewayName: 'cash', details: 'not an object' as never })
  await storage.update(unreadable)
  const fresh = Object.assign(new Payment(), { gatewayName: 'cash' })
  await storage.update(fresh)
  await storage.update(new Payment())
  t.same(new Set((await storage.searchPayments({ first: 5, status: ['unknown'] })).ids), new Set([elsewhere.id, unreadable.id]))
  t.same((await storage.searchPayments({ first: 5, status: ['new'] })).ids, [fresh.id])
  t.equal((await storage.searchPayments({ first: 5 })).ids.length, 3, 'a record without a gateway is no payment to search')
})

t.test('in the commit path, a payment its gateway cannot read gets unknown facets and makes no event', async (t) => {
  const storage = new MemoryStorage(Payment)
  const write = storage.stage(Object.assign(new Payment(), { gatewayName: 'gone' }))
  const facets = new Map()
  t.same(describeWrites([write], undefined, () => undefined, new Date(), { facets }), [])
  t.equal(facets.get(write)?.status, 'unknown')
})

t.test('a search on a storage without PaymentSearch is refused, never a scan', async (t) => {
  const storage = new MemoryStorage(Payment)
  t.equal(paymentSearchOf(storage, 'Payment'), storage)
  t.throws(() => paymentSearchOf({ findBy: async () => [] }, 'Payment'), { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED', statusCode: 501, message: /Payment storage does not implement PaymentSearch/ })
})

t.test('reindexPayments() refuses a storage it cannot index with, before reading anything', async (t) => {
  const storage = new MemoryStorage(Payment)
  await t.rejects(reindexPayments(storage), { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' }, 'no facetsOf: no Paywire set it up')
  storage.facetsOf = () => undefined
  const noIndex = Object.assign(Object.create(storage) as MemoryStorage<Payment>, { indexPayment: undefined })
  await t.rejects(reindexPayments(noIndex), { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' }, 'a search without indexPayment')
  await t.rejects(reindexPayments({ findBy: async () => [] } as never), { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' }, 'no search at all')
})

t.test('reindexPayments() reads every page; a query time that is no string is refused', async (t) => {
  const shop = new PaywireBuilder().addGatewayFactory('offline', new OfflineGatewayFactory()).addGateway('cash', { factory: 'offline' }).getPaywire()
  t.teardown(() => shop.close())
  const storage = shop.getStorage(Payment) as MemoryStorage<Payment>
  const facetsOf = storage.facetsOf
  storage.facetsOf = undefined
  for (let index = 0; index < 101; index++) await storage.update(Object.assign(new Payment(), { gatewayName: 'cash' }))
  storage.facetsOf = facetsOf
  t.same(await shop.reindexPayments(), { payments: 101, indexed: 101 })
  t.equal((await storage.searchPayments({ first: 200 })).ids.length, 101)
  await t.rejects(storage.searchPayments({ first: 1, createdFrom: new Date() as never }), { code: 'PAYWIRE_ERR_VALIDATION', field: 'createdFrom' })
})

t.test('facets hold the same fields in the same order for every kind of reading: amounts, provider ids once each, the earliest attention', async (t) => {
  // Stored as JSON by some backends: the order of the fields is part of what is written.
  const record = { createdAt: '2026-11-28T12:00:00.000Z', updatedAt: '2026-11-28T12:30:00.000Z', currencyCode: 'EUR', totalAmount: 1999 }
  const cases: Array<[PaymentState, AttentionOptions | undefined, string]> = [
    [{ status: 'new' }, undefined,
      '{"id":"p1","gatewayName":"cash","status":"new","currencyCode":"EUR","totalAmount":1999,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[]}'],
    [{ status: 'pending', amounts: { captured: 0, refunded: 0, reversed: 0 }, providerIds: { order: 'O-1', capture: '', again: 'O-1', other: 'C-2' }, refundsPending: 1 }, undefined,
      '{"id":"p1","gatewayName":"cash","status":"pending","currencyCode":"EUR","totalAmount":1999,"amounts":{"captured":0,"refunded":0,"reversed":0},"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":["O-1","C-2"],"attentionAt":"2026-11-28T12:30:00.000Z","attentionReason":"refund_pending"}'],
    [{ status: 'pending' }, { pendingAfterMs: 1000 },
      '{"id":"p1","gatewayName":"cash","status":"pending","currencyCode":"EUR","totalAmount":1999,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[],"attentionAt":"2026-11-28T12:30:01.000Z","attentionReason":"pending"}'],
    [{ status: 'authorized', authorizationExpiresAt: '2026-12-01T00:00:00.000Z', disputes: [{ id: 'd', state: 'won' }] }, { expiryWarningMs: 60000 },
      '{"id":"p1","gatewayName":"cash","status":"authorized","currencyCode":"EUR","totalAmount":1999,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[],"attentionAt":"2026-11-30T23:59:00.000Z","attentionReason":"authorization_expiring"}'],
    [{ status: 'authorized', authorizationExpiresAt: '2026-11-28T12:00:00.000Z', providerCallFailedAt: '2026-11-28T11:00:00.000Z', disputes: [{ id: 'd', state: 'open' }] }, undefined,
      '{"id":"p1","gatewayName":"cash","status":"authorized","currencyCode":"EUR","totalAmount":1999,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[],"attentionAt":"2026-11-27T12:00:00.000Z","attentionReason":"authorization_expiring"}'],
    [{ status: 'captured', disputes: [{ id: 'd', state: 'open' }], refundsPending: 2 }, undefined,
      '{"id":"p1","gatewayName":"cash","status":"captured","currencyCode":"EUR","totalAmount":1999,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[],"attentionAt":"2026-11-28T12:30:00.000Z","attentionReason":"refund_pending"}']
  ]
  for (const [state, attention, json] of cases) t.equal(JSON.stringify(paymentFacets('p1', record, 'cash', state, attention)), json, state.status)
  t.equal(JSON.stringify(paymentFacets('p1', { ...record, totalAmount: 1.5, currencyCode: '' }, 'cash', { status: 'new', providerIds: {} })),
    '{"id":"p1","gatewayName":"cash","status":"new","currencyCode":"","totalAmount":0,"createdAt":"2026-11-28T12:00:00.000Z","updatedAt":"2026-11-28T12:30:00.000Z","providerIds":[]}', 'no currency, an amount that is no integer, no provider ids')
})
