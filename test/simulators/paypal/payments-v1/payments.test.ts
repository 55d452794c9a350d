import t from 'tap'
import {
  bearer, CLIENT, createPayment, execute, linkOf, paidPayment, paymentRequest, simulator
} from '../fixtures/helpers.ts'
import type { CreatedPayment } from '../fixtures/helpers.ts'

t.test('create answers 201 with normalised amounts and PayPal links', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const response = await app.inject({
    method: 'POST',
    url: '/v1/payments/payment',
    headers: { ...auth, host: 'paypal.local:8089' },
    payload: paymentRequest({ note_to_payer: 'Thanks' }, { total: '7', currency: 'USD' })
  })
  t.equal(response.statusCode, 201)
  const payment = response.json()
  t.match(payment, {
    id: /^PAYID-[A-Z0-9]{24}$/,
    intent: 'sale',
    state: 'created',
    payer: { payment_method: 'paypal' },
    transactions: [{ amount: { total: '7.00', currency: 'USD' } }],
    note_to_payer: 'Thanks',
    create_time: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/
  })
  t.notOk('related_resources' in payment.transactions[0], 'never before execution')
  t.same(payment.links.map((link: { rel: string, method: string }) => [link.rel, link.method]),
    [['self', 'GET'], ['approval_url', 'REDIRECT'], ['execute', 'POST']])
  t.equal(linkOf(payment, 'self'), `http://paypal.local:8089/v1/payments/payment/${payment.id}`)
  t.match(linkOf(payment, 'approval_url'), /^http:\/\/paypal\.local:8089\/cgi-bin\/webscr\?cmd=_express-checkout&token=EC-[A-Z0-9]{17}$/)
  t.equal(linkOf(payment, 'execute'), `http://paypal.local:8089/v1/payments/payment/${payment.id}/execute`)
  t.equal(app.simulator.counters().paymentsCreated, 1)
})

t.test('publicUrl wins over the Host header', async (t) => {
  const app = simulator(t, { publicUrl: 'https://sandbox.example.test/' })
  const payment = await createPayment(app, await bearer(app))
  t.equal(linkOf(payment, 'self'), `https://sandbox.example.test/v1/payments/payment/${payment.id}`)
  t.equal(app.simulator.baseUrl(), 'https://sandbox.example.test')
})

t.test('JPY amounts stay without decimals, details and items are echoed normalised', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({
    transactions: [{
      amount: { total: '1500', currency: 'JPY', details: { subtotal: '1200', shipping: '300' } },
      item_list: { items: [{ name: 'Tea', quantity: '2', price: '600', currency: 'JPY' }] },
      soft_descriptor: 'A very long soft descriptor indeed'
    }]
  }))
  t.same(payment.transactions[0]?.amount, { total: '1500', currency: 'JPY', details: { subtotal: '1200', shipping: '300' } })
  t.match(payment.transactions[0], { item_list: { items: [{ price: '600', quantity: '2' }] }, soft_descriptor: 'A very long soft descr' })
  const { saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '500', currency: 'JPY' }))
  t.match(app.simulator.sale(saleId), { amount: { total: '500', currency: 'JPY' }, transaction_fee: { value: '55', currency: 'JPY' } })
})

t.test('show and ownership', async (t) => {
  const other = { clientId: 'other-client', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other] })
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)
  const shown = await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })
  t.equal(shown.statusCode, 200)
  t.equal(shown.json().id, payment.id)

  const foreign = await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: await bearer(app, other) })
  t.equal(foreign.statusCode, 404, 'another merchant cannot see it')
  const unknown = await app.inject({ url: '/v1/payments/payment/PAYID-NOPE', headers: auth })
  t.equal(unknown.statusCode, 404)
  t.same(unknown.json(), {
    name: 'INVALID_RESOURCE_ID',
    message: 'The requested resource ID was not found',
    debug_id: unknown.headers['paypal-debug-id'],
    information_link: 'https://developer.paypal.com/webapps/developer/docs/api/#INVALID_RESOURCE_ID',
    details: []
  })
})

t.test('approve then execute: approved payment with a completed sale', async (t) => {
  const app = simulator(t, { buyer: { email: 'ada@example.test', firstName: 'Ada' } })
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({
    transactions: [{ amount: { total: '10', currency: 'EUR' }, invoice_number: 'INV-1', custom: 'order-1' }]
  }))
  const approval = app.simulator.approve(payment.id)
  t.match(approval.payerId, /^[A-Z0-9]{13}$/)
  const approved = (await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })).json()
  t.equal(approved.state, 'created', 'approval alone does not change the state')
  t.match(approved.payer, { status: 'VERIFIED', payer_info: { email: 'ada@example.test', first_name: 'Ada', last_name: 'Buyer', payer_id: approval.payerId } })

  const executed = await execute(app, auth, payment.id, approval.payerId)
  t.equal(executed.statusCode, 200)
  const body = executed.json()
  t.equal(body.state, 'approved')
  t.same(body.links.map((link: { rel: string }) => link.rel), ['self'])
  const sale = body.transactions[0].related_resources[0].sale
  t.match(sale, {
    id: /^[A-Z0-9]{17}$/,
    state: 'completed',
    amount: { total: '10.00', currency: 'EUR' },
    payment_mode: 'INSTANT_TRANSFER',
    parent_payment: payment.id,
    invoice_number: 'INV-1',
    custom: 'order-1',
    transaction_fee: { value: '0.59', currency: 'EUR' }
  })
  t.notOk('reason_code' in sale)
  t.same(sale.links.map((link: { rel: string }) => link.rel), ['self', 'refund', 'parent_payment'])
  t.equal(app.simulator.counters().paymentsExecuted, 1)
})

t.test('execute errors', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)

  const early = await execute(app, auth, payment.id, 'ABCDEFGHIJKLM')
  t.equal(early.statusCode, 400)
  t.match(early.json(), { name: 'PAYMENT_NOT_APPROVED_FOR_EXECUTION', message: 'Payer has not approved payment', debug_id: early.headers['paypal-debug-id'] })

  const { payerId } = app.simulator.approve(payment.id)
  const wrongPayer = await execute(app, auth, payment.id, 'WRONGPAYER123')
  t.equal(wrongPayer.statusCode, 400)
  t.match(wrongPayer.json(), { name: 'INVALID_PAYER_ID', message: 'Payer ID is invalid' })

  const missingPayer = await app.inject({ method: 'POST', url: `/v1/payments/payment/${payment.id}/execute`, headers: auth, payload: {} })
  t.match(missingPayer.json(), { name: 'VALIDATION_ERROR', details: [{ field: 'payer_id', issue: 'Required field missing' }] })

  t.equal((await execute(app, auth, payment.id, payerId)).statusCode, 200)
  const again = await execute(app, auth, payment.id, payerId)
  t.equal(again.statusCode, 400)
  t.match(again.json(), { name: 'PAYMENT_ALREADY_DONE', message: 'Payment has been done already for this cart.' })

  const unknown = await execute(app, auth, 'PAYID-UNKNOWN', payerId)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().name, 'INVALID_RESOURCE_ID')
  t.equal(app.simulator.counters().paymentsExecuted, 1, 'refused executes moved no money')
})

t.test('a declined instrument fails the payment', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(payment.id, { outcome: 'declined' })
  const declined = await execute(app, auth, payment.id, payerId)
  t.equal(declined.statusCode, 400)
  t.match(declined.json(), {
    name: 'INSTRUMENT_DECLINED',
    message: "The instrument presented was either declined by the processor or bank, or it can't be used for this payment."
  })
  t.match(app.simulator.payment(payment.id), { state: 'failed', failure_reason: 'UNABLE_TO_COMPLETE_TRANSACTION' })
  const retry = await execute(app, auth, payment.id, payerId)
  t.match(retry.json(), { name: 'PAYMENT_STATE_INVALID' })
  t.throws(() => app.simulator.approve(payment.id), /current state of the payment/, 'a failed payment cannot be approved again')
})

t.test('pending eCheck sales and the execute-outcome switch', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const pending = await paidPayment(app, auth, paymentRequest(), 'pending')
  t.match(app.simulator.sale(pending.saleId), { state: 'pending', reason_code: 'ECHECK', payment_mode: 'ECHECK', clearing_time: /Z$/ })
  t.equal(app.simulator.payment(pending.paymentId)?.state, 'approved', 'approved is not money received')

  app.simulator.setExecuteOutcome('declined')
  const payment = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(payment.id)
  t.equal((await execute(app, auth, payment.id, payerId)).json().name, 'INSTRUMENT_DECLINED', 'the switch overrides the buyer')
  app.simulator.setExecuteOutcome(undefined)
  const normal = await paidPayment(app, auth)
  t.equal(app.simulator.sale(normal.saleId)?.state, 'completed')

  const custom = simulator(t, { pendingReasonCode: 'PAYMENT_REVIEW' })
  const customAuth = await bearer(custom)
  const review = await paidPayment(custom, customAuth, paymentRequest(), 'pending')
  t.match(custom.simulator.sale(review.saleId), { state: 'pending', reason_code: 'PAYMENT_REVIEW', payment_mode: 'INSTANT_TRANSFER' })
})

t.test('unexecuted payments expire', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { now: () => now, paymentTtlSeconds: 3600 })
  const auth = await bearer(app)
  const approvedLate = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(approvedLate.id)
  const neverApproved = await createPayment(app, auth)
  now += 3_600_001
  const expired = await execute(app, auth, approvedLate.id, payerId)
  t.equal(expired.statusCode, 400)
  t.match(expired.json(), { name: 'PAYMENT_EXPIRED', message: 'The payment is expired.' })
  t.throws(() => app.simulator.approve(neverApproved.id), /The payment is expired/)
})

t.test('a payment never executed still reads created, before and after it expires, as at PayPal', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { now: () => now, paymentTtlSeconds: 3600 })
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(payment.id)
  const read = async (): Promise<string> => (await app.inject({ url: `/v1/payments/payment/${payment.id}`, headers: auth })).json().state
  t.equal(await read(), 'created', 'approved by the buyer, not executed')
  now += 3_600_000
  t.equal(await read(), 'created', 'at the limit')
  now += 1
  t.equal(await read(), 'created', 'expired, yet still created')
  t.equal((await execute(app, auth, payment.id, payerId)).json().name, 'PAYMENT_EXPIRED')
  t.equal(await read(), 'created', 'a refused execute changes nothing')
  t.equal(app.simulator.payment(payment.id)?.state, 'created')
})

t.test('an invoice number already paid is DUPLICATE_TRANSACTION', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const withInvoice = paymentRequest({ transactions: [{ amount: { total: '5', currency: 'USD' }, invoice_number: 'INV-9' }] })
  await createPayment(app, auth, withInvoice)
  await createPayment(app, auth, withInvoice)
  await paidPayment(app, auth, withInvoice)
  const duplicate = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: withInvoice })
  t.equal(duplicate.statusCode, 400)
  t.match(duplicate.json(), { name: 'DUPLICATE_TRANSACTION' })
})

t.test('list shows executed payments, newest first, paged', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  await createPayment(app, auth)
  const paid = []
  for (let index = 0; index < 3; index++) paid.push((await paidPayment(app, auth)).paymentId)
  const list = async (query: string): Promise<{ payments: CreatedPayment[], count: number, next_id?: string }> =>
    (await app.inject({ url: `/v1/payments/payment${query}`, headers: auth })).json()

  const all = await list('')
  t.same(all.payments.map((payment) => payment.id), [...paid].reverse(), 'created-only payments are not history')
  t.equal(all.count, 3)
  t.notOk('next_id' in all)
  const first = await list('?count=2')
  t.same(first.payments.map((payment) => payment.id), [paid[2], paid[1]])
  t.equal(first.next_id, paid[0])
  t.same((await list(`?count=2&start_id=${first.next_id ?? ''}`)).payments.map((payment) => payment.id), [paid[0]])
  t.same((await list('?start_index=2')).payments.map((payment) => payment.id), [paid[0]])
  const bad = await app.inject({ url: '/v1/payments/payment?count=21&start_index=x', headers: auth })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { name: 'VALIDATION_ERROR', details: [{ field: 'count' }, { field: 'start_index' }] })
})
