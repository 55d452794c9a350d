import t from 'tap'
import { AMOUNT_FORMAT_ISSUE, NO_DECIMALS_ISSUE, UNSUPPORTED_CURRENCY_ISSUE } from '../../../../simulators/paypal/runtime/amounts.ts'
import { bearer, paymentRequest, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)

const TOTAL_ISSUE = 'Transaction amount details (subtotal, tax, shipping) must add up to specified amount total'
const ITEMS_ISSUE = 'Item amount must add up to specified amount subtotal (or total if amount details not specified)'
const usd = (total: string, rest: Record<string, unknown> = {}): Record<string, unknown> => ({ total, currency: 'USD', ...rest })
const withTransaction = (transaction: Record<string, unknown>): Record<string, unknown> => paymentRequest({ transactions: [transaction] })

// Each case: the body sent and the details PayPal answers with.
const CASES: Array<[string, unknown, Array<{ field: string, issue: string | RegExp }>]> = [
  ['empty body', {}, [
    { field: 'intent', issue: 'Required field missing' },
    { field: 'payer', issue: 'Required field missing' },
    { field: 'transactions', issue: 'Required field missing' }
  ]],
  ['authorize intent', paymentRequest({ intent: 'authorize' }), [{ field: 'intent', issue: /sale' only/ }]],
  ['missing payment method', paymentRequest({ payer: {} }), [{ field: 'payer.payment_method', issue: 'Required field missing' }]],
  ['credit card', paymentRequest({ payer: { payment_method: 'credit_card' } }), [{ field: 'payer.payment_method', issue: /paypal' only/ }]],
  ['missing redirect_urls', paymentRequest({ redirect_urls: undefined }), [{ field: 'redirect_urls', issue: "This field required when payment_method is 'paypal'" }]],
  ['bad redirect urls', paymentRequest({ redirect_urls: { return_url: 'ftp://x.test/' } }), [
    { field: 'redirect_urls.return_url', issue: 'Value is invalid.' },
    { field: 'redirect_urls.cancel_url', issue: 'Required field missing' }
  ]],
  ['empty transactions', paymentRequest({ transactions: [] }), [{ field: 'transactions', issue: 'Required field missing' }]],
  ['two transactions', paymentRequest({ transactions: [{ amount: usd('1') }, { amount: usd('1') }] }), [
    { field: 'transactions', issue: 'Only single payment transaction currently supported' }
  ]],
  ['transaction not an object', paymentRequest({ transactions: ['x'] }), [{ field: 'transactions[0]', issue: 'Value is invalid.' }]],
  ['missing amount', withTransaction({}), [{ field: 'transactions[0].amount', issue: 'Required field missing' }]],
  ['missing currency', withTransaction({ amount: { total: '1' } }), [{ field: 'transactions[0].amount.currency', issue: 'Required field missing' }]],
  ['unknown currency', withTransaction({ amount: { total: '1', currency: 'XYZ' } }), [
    { field: 'transactions[0].amount.currency', issue: UNSUPPORTED_CURRENCY_ISSUE }
  ]],
  ['KWD, a currency PayPal does not take', withTransaction({ amount: { total: '1.000', currency: 'KWD' } }), [
    { field: 'transactions[0].amount.currency', issue: UNSUPPORTED_CURRENCY_ISSUE }
  ]],
  ['KRW, a currency PayPal does not take', withTransaction({ amount: { total: '1000', currency: 'KRW' } }), [
    { field: 'transactions[0].amount.currency', issue: UNSUPPORTED_CURRENCY_ISSUE }
  ]],
  ['JPY total of 8 digits', withTransaction({ amount: { total: '12345678', currency: 'JPY' } }), [
    { field: 'transactions[0].amount.total', issue: AMOUNT_FORMAT_ISSUE }
  ]],
  ['HUF detail of 10 digits', withTransaction({ amount: { total: '100', currency: 'HUF', details: { subtotal: '1234567890' } } }), [
    { field: 'transactions[0].amount.details.subtotal', issue: AMOUNT_FORMAT_ISSUE },
    { field: 'transactions[0].amount', issue: TOTAL_ISSUE }
  ]],
  ['missing total', withTransaction({ amount: { currency: 'USD' } }), [{ field: 'transactions[0].amount.total', issue: 'Required field missing' }]],
  ['number total', withTransaction({ amount: { total: 7, currency: 'USD' } }), [{ field: 'transactions[0].amount.total', issue: AMOUNT_FORMAT_ISSUE }]],
  ['three decimals', withTransaction({ amount: usd('7.001') }), [{ field: 'transactions[0].amount.total', issue: AMOUNT_FORMAT_ISSUE }]],
  ['too long', withTransaction({ amount: usd('10000000.00') }), [{ field: 'transactions[0].amount.total', issue: AMOUNT_FORMAT_ISSUE }]],
  ['zero', withTransaction({ amount: usd('0.00') }), [{ field: 'transactions[0].amount.total', issue: 'Amount cannot be zero' }]],
  ['JPY decimals', withTransaction({ amount: { total: '100.50', currency: 'JPY' } }), [
    { field: 'transactions[0].amount.total', issue: NO_DECIMALS_ISSUE }
  ]],
  ['HUF decimals in details', withTransaction({ amount: { total: '100', currency: 'HUF', details: { subtotal: '100.00' } } }), [
    { field: 'transactions[0].amount.details.subtotal', issue: NO_DECIMALS_ISSUE },
    { field: 'transactions[0].amount', issue: TOTAL_ISSUE }
  ]],
  ['details not an object', withTransaction({ amount: usd('1', { details: 'x' }) }), [{ field: 'transactions[0].amount.details', issue: 'Value is invalid.' }]],
  ['details do not add up', withTransaction({ amount: usd('10', { details: { subtotal: '8', shipping: '1', tax: '0.5' } }) }), [
    { field: 'transactions[0].amount', issue: TOTAL_ISSUE }
  ]],
  ['items do not add up to subtotal', withTransaction({
    amount: usd('10', { details: { subtotal: '9', shipping: '1' } }),
    item_list: { items: [{ name: 'a', quantity: '2', price: '4', currency: 'USD' }] }
  }), [{ field: 'transactions[0]', issue: ITEMS_ISSUE }]],
  ['items do not add up to total', withTransaction({
    amount: usd('10'),
    item_list: { items: [{ name: 'a', quantity: '3', price: '3', currency: 'USD' }] }
  }), [{ field: 'transactions[0]', issue: ITEMS_ISSUE }]],
  ['bad items', withTransaction({
    amount: usd('10'),
    item_list: { items: ['x', { quantity: '1.5', price: '1.001', currency: 'EUR' }] }
  }), [
    { field: 'transactions[0].item_list.items[0]', issue: 'Value is invalid.' },
    { field: 'transactions[0].item_list.items[1].quantity', issue: 'Value is invalid.' },
    { field: 'transactions[0].item_list.items[1].price', issue: AMOUNT_FORMAT_ISSUE },
    { field: 'transactions[0].item_list.items[1].currency', issue: 'Currency of item must match the transaction currency' }
  ]],
  ['item_list not an object', withTransaction({ amount: usd('10'), item_list: 'x' }), [{ field: 'transactions[0].item_list', issue: 'Value is invalid.' }]],
  ['item_list without items', withTransaction({ amount: usd('10'), item_list: {} }), [{ field: 'transactions[0].item_list', issue: 'Value is invalid.' }]],
  ['bad shipping address', withTransaction({
    amount: usd('1'),
    item_list: { items: [{ name: 'a', quantity: '1', price: '1', currency: 'USD' }], shipping_address: { line1: 'l', country_code: 'C2', phone: 5, postal_code: 1 } }
  }), [
    { field: 'transactions[0].item_list.shipping_address.phone', issue: 'Value is invalid.' },
    { field: 'transactions[0].item_list.shipping_address.postal_code', issue: 'Value is invalid.' }
  ]],
  ['over-long texts', paymentRequest({
    note_to_payer: 'n'.repeat(166),
    transactions: [{ amount: usd('1'), description: 'd'.repeat(128), custom: 5, note_to_payee: 'p'.repeat(256) }]
  }), [
    { field: 'transactions[0].description', issue: 'Length is more than maximum allowed' },
    { field: 'transactions[0].custom', issue: 'Value is invalid.' },
    { field: 'transactions[0].note_to_payee', issue: 'Length is more than maximum allowed' },
    { field: 'note_to_payer', issue: 'Length is more than maximum allowed' }
  ]]
]

t.test('create-payment validation answers VALIDATION_ERROR with PayPal details', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  for (const [name, payload, details] of CASES) {
    const response = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: payload as Record<string, unknown> })
    t.equal(response.statusCode, 400, name)
    const body = response.json()
    t.match(body, {
      name: 'VALIDATION_ERROR',
      message: 'Invalid request - see details',
      debug_id: response.headers['paypal-debug-id'],
      information_link: 'https://developer.paypal.com/webapps/developer/docs/api/#VALIDATION_ERROR'
    }, name)
    t.match(body.details, details, name)
    t.equal(body.details.length, details.length, `${name}: no other details`)
  }
  t.equal(app.simulator.counters().paymentsCreated, 0)
})

t.test('valid edge cases are accepted', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const accepted = [
    withTransaction({
      amount: usd('34.07', { details: { subtotal: '30.00', tax: '0.07', shipping: '1.00', handling_fee: '1.00', insurance: '1.00', shipping_discount: '1.00' } })
    }),
    withTransaction({
      amount: usd('9', { details: { subtotal: '10', shipping_discount: '-1' } }),
      item_list: { items: [{ name: 'a', quantity: '1', price: '12', currency: 'USD' }, { name: 'discount', quantity: '1', price: '-2', currency: 'USD' }] }
    }),
    withTransaction({ amount: { total: '9999999', currency: 'JPY' } }),
    withTransaction({ amount: usd('1'), item_list: { shipping_address: { line1: 'Main St 1', country_code: 'US', state: 'CA' } } }),
    withTransaction({ amount: usd('9999999.99') })
  ]
  for (const payload of accepted) {
    const response = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload })
    t.equal(response.statusCode, 201, response.body)
  }
})

t.test('a body that is JSON but not an object is MALFORMED_REQUEST', async (t) => {
  const app = shared
  const response = await app.inject({
    method: 'POST', url: '/v1/payments/payment', headers: { ...await bearer(app), 'content-type': 'application/json' }, payload: '[1]'
  })
  t.equal(response.statusCode, 400)
  t.equal(response.json().name, 'MALFORMED_REQUEST')
})
