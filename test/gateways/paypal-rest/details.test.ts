import t from 'tap'
import {
  awaitsBuyer, createBody, link, paypalStatus, recordOf, relatedResources, renewRequestId, requestIdFor, saleOf, uniqueRequestId
} from '../../../gateways/paypal-rest/details.ts'
import { PaymentDetails } from '../../../gateways/paypal-rest/index.ts'
import { ArrayObject, Payment } from '../../../plugins/core/index.ts'

const sale = (state: string) => ({ transactions: [{ related_resources: [{ sale: { id: 'S1', state } }] }] })

t.test('one record for both kinds of models: a Payment\'s details bag or the REST details record', async (t) => {
  const bag = new ArrayObject({ id: 'PAYID-1' })
  t.equal(recordOf(bag), bag.data)
  const details = new PaymentDetails()
  t.equal(recordOf(details), details)
  t.equal(recordOf(new Payment()), undefined, 'a Payment is converted first, not read directly')
  t.equal(recordOf({ id: 'PAYID-1' }), undefined)
  t.equal(recordOf(null), undefined)
})

t.test('what PayPal receives on create: its own fields, never Paywire\'s bookkeeping', async (t) => {
  const record = {
    intent: 'sale',
    payer: { payment_method: 'paypal' },
    transactions: [{ amount: { total: '1.00', currency: 'EUR' } }],
    redirect_urls: { return_url: 'https://a', cancel_url: 'https://b' },
    note_to_payer: 'Thanks',
    application_context: { brand_name: 'Shop' },
    paywire_key: 'k',
    paywire_request_ids: {},
    error: { name: 'X' },
    local: { secret: 1 },
    state: 'created'
  }
  const body = createBody(record)
  t.same(Object.keys(body), ['intent', 'payer', 'transactions', 'redirect_urls', 'note_to_payer', 'application_context'])
  body.transactions[0].amount.total = '2.00'
  t.equal(record.transactions[0]?.amount.total, '1.00', 'a copy: changing the body leaves the record alone')
})

t.test('PayPal-Request-Ids: derived from a key stored with the payment and the operation, stable across calls', async (t) => {
  const record: Record<string, any> = {}
  const create = requestIdFor(record, 'create')
  t.match(create, /^[0-9a-f-]{36}-create$/)
  t.equal(requestIdFor(record, 'create'), create, 'the same operation gets the same id')
  t.equal(requestIdFor(record, 'execute'), `${record.paywire_key as string}-execute`)
  t.same(record.paywire_request_ids, { create, execute: `${record.paywire_key as string}-execute` })
  t.not(requestIdFor({}, 'create'), create, 'another payment, another id')
  const reloaded = JSON.parse(JSON.stringify(record))
  t.equal(requestIdFor(reloaded, 'create'), create, 'kept across a storage round trip (another process)')
})

t.test('a refused id is never sent again; ids unique per call where one operation runs many times', async (t) => {
  const record: Record<string, any> = {}
  const first = requestIdFor(record, 'execute')
  const renewed = renewRequestId(record, 'execute')
  t.match(renewed, new RegExp(`^${record.paywire_key as string}-execute-[0-9a-f]{12}$`))
  t.not(renewed, first)
  t.equal(requestIdFor(record, 'execute'), renewed, 'the new id is the one a retry sends')
  t.same(record.paywire_refused_request_ids, [first])
  const fresh: Record<string, any> = {}
  t.match(renewRequestId(fresh, 'execute'), /-execute-[0-9a-f]{12}$/, 'nothing to retire on a first call')
  t.notOk('paywire_refused_request_ids' in fresh)
  const ids = new Set(Array.from({ length: 100 }, () => uniqueRequestId(record, 'refund')))
  t.equal(ids.size, 100)
  t.ok([...ids].every((id) => id.length <= 64), 'short enough for PayPal\'s header')
})

t.test('links and related resources', async (t) => {
  const record = { links: [{ rel: 'self', href: 'https://api/1' }, { rel: 'approval_url', href: 'https://www/approve' }, { rel: 'broken' }] }
  t.equal(link(record, 'approval_url'), 'https://www/approve')
  t.equal(link(record, 'broken'), undefined)
  t.equal(link(record, 'execute'), undefined)
  t.equal(link({}, 'self'), undefined)
  t.same(relatedResources({}), [])
  t.same(relatedResources({ transactions: [{}, { related_resources: [{ refund: { id: 'R' } }, { sale: { id: 'S' } }] }] }), [{ refund: { id: 'R' } }, { sale: { id: 'S' } }])
  t.same(saleOf({ transactions: [{ related_resources: [{ refund: { id: 'R' } }, { sale: { id: 'S' } }] }] }), { id: 'S' })
  t.equal(saleOf({ transactions: [{ related_resources: [] }] }), undefined)
})

t.test('the status table of the README', async (t) => {
  const table: Array<[Record<string, unknown>, string]> = [
    [{}, 'new'],
    [{ state: null }, 'new'],
    [{ state: 'created' }, 'pending'],
    [{ state: 'approved', ...sale('completed') }, 'captured'],
    [{ state: 'approved', ...sale('pending') }, 'pending'],
    [{ state: 'approved', ...sale('refunded') }, 'refunded'],
    [{ state: 'approved', ...sale('partially_refunded') }, 'refunded'],
    [{ state: 'approved', ...sale('denied') }, 'failed'],
    [{ state: 'approved' }, 'unknown'],
    [{ state: 'approved', ...sale('reversed') }, 'unknown'],
    [{ state: 'approved', transactions: [{ related_resources: [{ sale: { state: 'completed', reason_code: 'CHARGEBACK' } }] }] }, 'refunded'],
    [{ state: 'approved', transactions: [{ related_resources: [{ sale: { state: 'completed', reason_code: 'REFUND' } }] }] }, 'captured'],
    [{ state: 'approved', transactions: [{ related_resources: [{ sale: { state: 'partially_refunded', reason_code: 'BUYER_COMPLAINT' } }] }] }, 'refunded'],
    [{ state: 'failed' }, 'failed'],
    [{ state: 'failed', ...sale('completed') }, 'failed'],
    [{ state: 'canceled' }, 'canceled'],
    [{ state: 'cancelled', ...sale('completed') }, 'canceled'],
    [{ state: 'expired' }, 'expired'],
    [{ state: 'in_progress' }, 'unknown']
  ]
  for (const [record, status] of table) t.equal(paypalStatus(record), status, JSON.stringify(record))
})

t.test('capture acts only before the buyer approved and the shop executed', async (t) => {
  t.ok(awaitsBuyer({}))
  t.ok(awaitsBuyer({ state: null }))
  t.ok(awaitsBuyer({ state: 'created' }))
  for (const state of ['approved', 'failed', 'cancelled', 'canceled', 'expired']) t.notOk(awaitsBuyer({ state }), state)
})
