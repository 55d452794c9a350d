import t from 'tap'
import { AMOUNT_FORMAT_ISSUE, UNSUPPORTED_CURRENCY_ISSUE } from '../../../../simulators/paypal/runtime/amounts.ts'
import type { PaypalSimulator } from '../../../../simulators/paypal/index.ts'
import { bearer, CLIENT, createPayment, execute, linkOf, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'

type Auth = { authorization: string }

const ADDRESS = { recipient_name: 'Anna Gruneberg', line1: 'Kathwarinenhof 1', city: 'Flensburg', postal_code: '24939', country_code: 'DE' }

async function patch (app: PaypalSimulator, auth: Auth, paymentId: string, payload: unknown): Promise<{ statusCode: number, json: () => any }> {
  return await app.inject({
    method: 'PATCH', url: `/v1/payments/payment/${paymentId}`, headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(payload)
  })
}

t.test("PayPal's own example: the amount replaced and a shipping address added, before the buyer pays the new total", async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { now: () => now })
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({}, { total: '7', currency: 'EUR' }))
  const { payerId } = app.simulator.approve(payment.id)
  now += 60_000

  const patched = await patch(app, auth, payment.id, [
    { op: 'replace', path: '/transactions/0/amount', value: { total: '18.37', currency: 'EUR', details: { subtotal: '13.37', shipping: '5' } } },
    { op: 'add', path: '/transactions/0/item_list/shipping_address', value: ADDRESS }
  ])
  t.equal(patched.statusCode, 200)
  const body = patched.json()
  t.match(body, {
    id: payment.id,
    state: 'created',
    update_time: '2024-01-01T00:01:00Z',
    transactions: [{
      amount: { total: '18.37', currency: 'EUR', details: { subtotal: '13.37', shipping: '5.00' } },
      item_list: { shipping_address: ADDRESS }
    }]
  })
  t.notOk('related_resources' in body.transactions[0])
  t.same(linkOf(body, 'approval_url'), linkOf(payment, 'approval_url'), 'the buyer keeps the same checkout link')
  t.same((await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })).json(), body, 'a GET shows the same')
  const approvalUrl = new URL(linkOf(payment, 'approval_url'))
  t.match((await app.inject({ url: approvalUrl.pathname + approvalUrl.search })).body, /You are paying <strong>18\.37 EUR<\/strong>/)

  const executed = (await execute(app, auth, payment.id, payerId)).json()
  t.match(executed.transactions[0].related_resources[0].sale, { state: 'completed', amount: { total: '18.37', currency: 'EUR' } })
  t.match(app.simulator.counters(), { paymentsUpdated: 1, paymentsExecuted: 1 })
})

t.test('invoice number and custom: add, replace, remove; paths inside the amount', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({}, { total: '10', currency: 'USD', details: { subtotal: '8', shipping: '2' } }))
  const transaction = async (operations: unknown[]): Promise<any> => {
    const response = await patch(app, auth, payment.id, operations)
    t.equal(response.statusCode, 200, JSON.stringify(operations))
    return response.json().transactions[0]
  }
  t.match(await transaction([{ op: 'add', path: '/transactions/0/invoice_number', value: 'INV-1' }, { op: 'add', path: '/transactions/0/custom', value: 'c-1' }]),
    { invoice_number: 'INV-1', custom: 'c-1' })
  t.match(await transaction([{ op: 'replace', path: '/transactions/0/invoice_number', value: 'INV-2' }]), { invoice_number: 'INV-2', custom: 'c-1' })
  const removed = await transaction([{ op: 'remove', path: '/transactions/0/custom' }])
  t.notOk('custom' in removed)
  t.match(await transaction([
    { op: 'replace', path: '/transactions/0/amount/total', value: '12' },
    { op: 'replace', path: '/transactions/0/amount/details/shipping', value: '4' }
  ]), { amount: { total: '12.00', details: { subtotal: '8.00', shipping: '4.00' } } })
  t.match(await transaction([]), { amount: { total: '12.00' } }, 'an empty patch changes nothing')
  t.equal(app.simulator.counters().paymentsUpdated, 5)
})

t.test('what PayPal refuses: malformed patches, fields it does not let change, invalid results', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({}, { total: '10', currency: 'USD', details: { subtotal: '10' } }))
  const before = (await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })).json()

  const malformed: Array<[string, unknown]> = [
    ['an object, not an array', { op: 'replace', path: '/transactions/0/custom', value: 'x' }],
    ['an operation that is not an object', ['replace']],
    ['move', [{ op: 'move', from: '/transactions/0/custom', path: '/transactions/0/invoice_number' }]],
    ['an unknown op', [{ op: 'upsert', path: '/transactions/0/custom', value: 'x' }]],
    ['redirect_urls cannot change', [{ op: 'replace', path: '/redirect_urls', value: { return_url: 'https://x.test/' } }]],
    ['note_to_payer cannot change', [{ op: 'add', path: '/note_to_payer', value: 'hi' }]],
    ['the description cannot change', [{ op: 'replace', path: '/transactions/0/description', value: 'x' }]],
    ['another transaction', [{ op: 'add', path: '/transactions/1/amount', value: { total: '1', currency: 'USD' } }]],
    ['a path without a leading slash', [{ op: 'add', path: 'transactions/0/custom', value: 'x' }]],
    ['no value', [{ op: 'add', path: '/transactions/0/custom' }]],
    ['replace of nothing', [{ op: 'replace', path: '/transactions/0/invoice_number', value: 'x' }]],
    ['remove of nothing', [{ op: 'remove', path: '/transactions/0/custom' }]],
    ['through a scalar', [{ op: 'add', path: '/transactions/0/amount/total/x', value: '1' }]],
    ['valid then invalid: all or nothing', [{ op: 'add', path: '/transactions/0/custom', value: 'x' }, { op: 'remove', path: '/transactions/0/invoice_number' }]]
  ]
  for (const [name, payload] of malformed) {
    const response = await patch(app, auth, payment.id, payload)
    t.equal(response.statusCode, 400, name)
    t.equal(response.json().name, 'MALFORMED_REQUEST', name)
  }

  const invalid: Array<[string, unknown[], Array<{ field: string, issue: string | RegExp }>]> = [
    ['a currency PayPal does not take', [{ op: 'replace', path: '/transactions/0/amount', value: { total: '10', currency: 'KWD' } }],
      [{ field: 'transactions[0].amount.currency', issue: UNSUPPORTED_CURRENCY_ISSUE }]],
    ['JPY with decimals', [{ op: 'replace', path: '/transactions/0/amount', value: { total: '10.5', currency: 'JPY' } }],
      [{ field: 'transactions[0].amount.total', issue: 'Currency does not support decimals.' }]],
    ['JPY of 8 digits', [{ op: 'replace', path: '/transactions/0/amount', value: { total: '12345678', currency: 'JPY' } }],
      [{ field: 'transactions[0].amount.total', issue: AMOUNT_FORMAT_ISSUE }]],
    ['a total the details do not add up to', [{ op: 'replace', path: '/transactions/0/amount/total', value: '11' }],
      [{ field: 'transactions[0].amount', issue: /must add up/ }]],
    ['no amount left', [{ op: 'remove', path: '/transactions/0/amount' }], [{ field: 'transactions[0].amount', issue: 'Required field missing' }]],
    ['an incomplete shipping address', [{ op: 'add', path: '/transactions/0/item_list/shipping_address', value: { city: 'x'.repeat(65), country_code: 'gb' } }], [
      { field: 'transactions[0].item_list.shipping_address.line1', issue: 'Required field missing' },
      { field: 'transactions[0].item_list.shipping_address.city', issue: 'Length is more than maximum allowed' },
      { field: 'transactions[0].item_list.shipping_address.country_code', issue: 'Value is invalid.' }
    ]],
    ['a shipping address that is not an object', [{ op: 'add', path: '/transactions/0/item_list/shipping_address', value: 'Flensburg' }],
      [{ field: 'transactions[0].item_list.shipping_address', issue: 'Value is invalid.' }]],
    ['an over-long invoice number', [{ op: 'add', path: '/transactions/0/invoice_number', value: 'i'.repeat(128) }],
      [{ field: 'transactions[0].invoice_number', issue: 'Length is more than maximum allowed' }]]
  ]
  for (const [name, operations, details] of invalid) {
    const response = await patch(app, auth, payment.id, operations)
    t.equal(response.statusCode, 400, name)
    t.match(response.json(), { name: 'VALIDATION_ERROR', details }, name)
    t.equal(response.json().details.length, details.length, `${name}: no other details`)
  }

  const notJson = await app.inject({ method: 'PATCH', url: `/v1/payments/payment/${payment.id}`, headers: { ...auth, 'content-type': 'text/plain' }, payload: '[]' })
  t.equal(notJson.statusCode, 415)
  t.same((await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })).json(), before, 'nothing changed')
  t.equal(app.simulator.counters().paymentsUpdated, 0)
})

t.test('items must still add up after the amount changes', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const mugs = { amount: { total: '6', currency: 'USD' }, item_list: { items: [{ name: 'mug', quantity: '2', price: '3', currency: 'USD' }] } }
  const payment = await createPayment(app, auth, paymentRequest({ transactions: [mugs] }))
  const response = await patch(app, auth, payment.id, [{ op: 'replace', path: '/transactions/0/amount', value: { total: '7', currency: 'USD' } }])
  t.match(response.json(), { name: 'VALIDATION_ERROR', details: [{ field: 'transactions[0]', issue: /^Item amount must add up/ }] })
  const withShipping = await patch(app, auth, payment.id, [
    { op: 'replace', path: '/transactions/0/amount', value: { total: '7', currency: 'USD', details: { subtotal: '6', shipping: '1' } } },
    { op: 'add', path: '/transactions/0/item_list/shipping_address', value: ADDRESS }
  ])
  t.equal(withShipping.statusCode, 200)
  t.match(withShipping.json().transactions[0].item_list, { items: [{ name: 'mug', price: '3.00' }], shipping_address: ADDRESS })
})

t.test('only a payment still created can change; another merchant\'s is unknown', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other], now: () => now })
  const auth = await bearer(app)
  const custom = [{ op: 'add', path: '/transactions/0/custom', value: 'x' }]
  const { paymentId } = await paidPayment(app, auth)
  t.equal((await patch(app, auth, paymentId, custom)).json().name, 'PAYMENT_STATE_INVALID', 'executed')
  const declined = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(declined.id, { outcome: 'declined' })
  await execute(app, auth, declined.id, payerId)
  t.equal((await patch(app, auth, declined.id, custom)).json().name, 'PAYMENT_STATE_INVALID', 'failed')
  const unknown = await patch(app, auth, 'PAYID-NOPE', custom)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().name, 'INVALID_RESOURCE_ID')
  const stale = await createPayment(app, auth)
  t.equal((await patch(app, await bearer(app, other), stale.id, custom)).statusCode, 404)
  now += 3 * 3600 * 1000 + 1
  t.equal((await patch(app, auth, stale.id, custom)).json().name, 'PAYMENT_EXPIRED')
  t.equal(app.simulator.counters().paymentsUpdated, 0)
})

t.test('an invoice number another payment already took money for is DUPLICATE_TRANSACTION', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  await paidPayment(app, auth, paymentRequest({ transactions: [{ amount: { total: '5', currency: 'USD' }, invoice_number: 'INV-9' }] }))
  const payment = await createPayment(app, auth)
  const duplicate = await patch(app, auth, payment.id, [{ op: 'add', path: '/transactions/0/invoice_number', value: 'INV-9' }])
  t.equal(duplicate.statusCode, 400)
  t.equal(duplicate.json().name, 'DUPLICATE_TRANSACTION')
  t.equal((await patch(app, auth, payment.id, [{ op: 'add', path: '/transactions/0/invoice_number', value: 'INV-10' }])).statusCode, 200)
})
