import t from 'tap'
import { call } from '../fixtures/wire.ts'
import { startReceiver } from '../fixtures/receiver.ts'
import { createOrder, orderRequest, ordersApi, paidOrder } from './fixtures.ts'

const AUTHORIZE = orderRequest({ intent: 'AUTHORIZE' })

t.test('authorize → partial capture → final capture; the authorization tells what was captured', async (t) => {
  const api = await ordersApi(t)
  const order = await paidOrder(api, AUTHORIZE)
  const authorization = order.purchase_units[0].payments.authorizations[0]
  t.match(order, { status: 'COMPLETED' })
  t.match(authorization, { status: 'CREATED', amount: { value: '7.00' }, expiration_time: String })
  t.match((await api.call('GET', `/v2/payments/authorizations/${authorization.id}`)).json(), { supplementary_data: { related_ids: { order_id: order.id } } })
  t.same(authorization.links.map((link: { rel: string }) => link.rel), ['self', 'capture', 'void', 'reauthorize', 'up'])
  t.match((await api.call('POST', `/v2/checkout/orders/${order.id}/authorize`, {})).json(), { details: [{ issue: 'ORDER_ALREADY_AUTHORIZED' }] })

  const url = `/v2/payments/authorizations/${authorization.id}/capture`
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '9.00' } })).json(), { details: [{ issue: 'MAX_CAPTURE_AMOUNT_EXCEEDED' }] })
  t.match((await api.call('POST', url, { amount: { currency_code: 'EUR', value: '1.00' } })).json(), { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'CURRENCY_MISMATCH' }] })
  const part = await api.call('POST', url, { amount: { currency_code: 'USD', value: '2.00' }, final_capture: false })
  t.equal(part.statusCode, 201)
  t.match(part.json(), { status: 'COMPLETED', amount: { value: '2.00' }, final_capture: false, supplementary_data: { related_ids: { order_id: order.id, authorization_id: authorization.id } } })
  t.match((await api.call('GET', `/v2/payments/authorizations/${authorization.id}`)).json(), { status: 'PARTIALLY_CAPTURED' })
  t.match((await api.call('POST', url, {})).json(), { amount: { value: '5.00' }, final_capture: true })
  t.match((await api.call('GET', `/v2/payments/authorizations/${authorization.id}`)).json(), { status: 'CAPTURED' })
  t.match((await api.call('POST', url, {})).json(), { details: [{ issue: 'AUTHORIZATION_ALREADY_CAPTURED' }] })
  t.match((await api.call('POST', `/v2/payments/authorizations/${authorization.id}/void`, {})).json(), { details: [{ issue: 'PREVIOUSLY_CAPTURED' }] })
  t.match(api.app.simulator.orders.counters(), { ordersAuthorized: 1, authorizationsCaptured: 2 })
  t.equal((await api.call('GET', `/v2/checkout/orders/${order.id}`)).json().purchase_units[0].payments.captures.length, 2)
})

t.test('void: 204 (minimal) or the voided authorization; then neither capture nor void again', async (t) => {
  const api = await ordersApi(t)
  const authorization = (await paidOrder(api, AUTHORIZE)).purchase_units[0].payments.authorizations[0]
  const voided = await api.app.inject({ method: 'POST', url: `/v2/payments/authorizations/${authorization.id}/void`, headers: api.auth })
  t.equal(voided.statusCode, 204)
  t.match((await api.call('POST', `/v2/payments/authorizations/${authorization.id}/void`)).json(), { details: [{ issue: 'PREVIOUSLY_VOIDED' }] })
  t.match((await api.call('POST', `/v2/payments/authorizations/${authorization.id}/capture`, {})).json(), { details: [{ issue: 'AUTHORIZATION_VOIDED' }] })
  const second = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }, { invoice_id: 'INV-2' }))).purchase_units[0].payments.authorizations[0]
  t.match((await api.call('POST', `/v2/payments/authorizations/${second.id}/void`)).json(), { id: second.id, status: 'VOIDED' })
  const pending = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }, { invoice_id: 'INV-3' }), 'pending')).purchase_units[0].payments.authorizations[0]
  t.equal(pending.status, 'PENDING')
  t.match((await api.call('POST', `/v2/payments/authorizations/${pending.id}/void`)).json(), { details: [{ issue: 'CANNOT_BE_VOIDED' }] })
  t.match((await api.call('POST', `/v2/payments/authorizations/${pending.id}/capture`, {})).json(), { details: [{ issue: 'AUTHORIZATION_DENIED' }] })
  t.same(api.app.simulator.webhooks.events().map((event) => event.event_type).filter((type) => type.startsWith('PAYMENT.AUTHORIZATION')),
    ['PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED', 'PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED', 'PAYMENT.AUTHORIZATION.CREATED'])
  t.equal(api.app.simulator.orders.counters().authorizationsVoided, 2)
})

t.test('refunds: partial, the rest, then nothing; a reversal takes back what was left', async (t) => {
  const api = await ordersApi(t)
  const capture = (await paidOrder(api)).purchase_units[0].payments.captures[0]
  const url = `/v2/payments/captures/${capture.id}/refund`
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '8.00' } })).json(), { details: [{ issue: 'REFUND_AMOUNT_EXCEEDED' }] })
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '0' } })).json(), { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'CANNOT_BE_ZERO_OR_NEGATIVE' }] })
  const part = await api.call('POST', url, { amount: { currency_code: 'USD', value: '2.50' }, note_to_payer: 'Sorry', invoice_id: 'R-1' })
  t.equal(part.statusCode, 201)
  t.match(part.json(), { status: 'COMPLETED', amount: { value: '2.50' }, note_to_payer: 'Sorry', invoice_id: 'R-1', seller_payable_breakdown: { total_refunded_amount: { value: '2.50' } } })
  t.match((await api.call('GET', `/v2/payments/captures/${capture.id}`)).json(), { status: 'PARTIALLY_REFUNDED' })
  t.match((await api.call('GET', `/v2/payments/refunds/${part.json().id}`)).json(), { id: part.json().id })
  t.equal((await api.call('GET', '/v2/payments/refunds/NOPE')).statusCode, 404)
  t.match((await api.call('POST', url)).json(), { amount: { value: '4.50' } })
  t.match((await api.call('POST', url)).json(), { details: [{ issue: 'CAPTURE_FULLY_REFUNDED' }] })
  const upLink = capture.links.find((link: { rel: string }) => link.rel === 'up').href as string
  const order = (await api.call('GET', new URL(upLink).pathname)).json()
  t.equal(order.purchase_units[0].payments.refunds.length, 2)

  const other = (await paidOrder(api, orderRequest({}, { invoice_id: 'INV-2' }))).purchase_units[0].payments.captures[0]
  await api.call('POST', `/v2/payments/captures/${other.id}/refund`, { amount: { currency_code: 'USD', value: '1.00' } })
  t.match(api.app.simulator.orders.reverseCapture(other.id), { amount: { value: '6.00' } })
  t.throws(() => api.app.simulator.orders.reverseCapture(other.id), /only a completed/)
  t.match(api.app.simulator.orders.counters(), { refunds: 3, reversals: 1 })
  t.same(api.app.simulator.webhooks.events().map((event) => event.event_type).filter((type) => /REFUNDED|REVERSED/.test(type)),
    ['PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED'])
  const declined = await createOrder(api, orderRequest({}, { invoice_id: 'INV-3' }))
  api.app.simulator.orders.approve(declined.id, { outcome: 'capture_declined' })
  const denied = (await api.call('POST', `/v2/checkout/orders/${declined.id}/capture`, {})).json().purchase_units[0].payments.captures[0]
  t.match((await api.call('POST', `/v2/payments/captures/${denied.id}/refund`)).json(), { details: [{ issue: 'REFUND_NOT_ALLOWED' }] })
})

t.test('PayPal-Request-Id: replayed within the Orders window (6 h), forgotten after it', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z')
  const api = await ordersApi(t, { now: () => now })
  const headers = { 'paypal-request-id': 'order-1' }
  const first = await api.call('POST', '/v2/checkout/orders', orderRequest(), headers)
  const replay = await api.call('POST', '/v2/checkout/orders', orderRequest(), headers)
  t.equal(replay.statusCode, 200)
  t.equal(replay.json().id, first.json().id)
  t.match((await api.call('POST', '/v2/checkout/orders', orderRequest({ intent: 'AUTHORIZE' }), headers)).json(), { name: 'DUPLICATE_REQUEST_ID' })
  api.app.simulator.orders.approve(first.json().id)
  const captureHeaders = { 'paypal-request-id': 'capture-1' }
  const captured = await api.call('POST', `/v2/checkout/orders/${first.json().id}/capture`, {}, captureHeaders)
  t.equal((await api.call('POST', `/v2/checkout/orders/${first.json().id}/capture`, {}, captureHeaders)).body, captured.body)
  now += 6 * 3600 * 1000 + 1
  t.equal((await api.call('POST', '/v2/checkout/orders', orderRequest(), headers)).statusCode, 201, 'a new order after the window')
  t.match((await api.call('POST', `/v2/checkout/orders/${first.json().id}/capture`, {}, captureHeaders)).json(), { details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] })
  t.match(api.app.simulator.counters(), { idempotentReplays: 2 })
  t.match(api.app.simulator.orders.counters(), { ordersCreated: 2, ordersCaptured: 1 })
})

t.test('faults and holds apply to v2 calls: an `after` fault does the work, the retry replays it', async (t) => {
  const api = await ordersApi(t)
  await api.app.listen({ port: 0, host: '127.0.0.1' })
  const order = await createOrder(api)
  api.app.simulator.orders.approve(order.id)
  const path = `/v2/checkout/orders/${order.id}/capture`
  const headers = { ...api.auth, prefer: 'return=representation', 'paypal-request-id': 'cap-1' }
  api.app.simulator.faults.inject({ kind: 'error', status: 503, path: '/v2/checkout/orders/*/capture', when: 'after' })
  t.equal((await call(api.app, 'POST', path, headers, {}).answer).status, 503)
  t.equal(api.app.simulator.orders.counters().ordersCaptured, 1, 'the work was done')
  const held = api.app.simulator.faults.hold({ path: '/v2/checkout/orders/*/capture' })
  const retry = call(api.app, 'POST', path, headers, {})
  await held.reached
  held.release()
  const answer = await retry.answer
  t.equal(answer.status, 200)
  t.equal(JSON.parse(answer.body).status, 'COMPLETED')
  t.equal(api.app.simulator.orders.counters().ordersCaptured, 1, 'replayed, not captured twice')
})

t.test('the payer-action page: review, approve (redirect with token and PayerID), decline, another instrument, cancel', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  const page = await api.app.inject({ method: 'GET', url: `/checkoutnow?token=${order.id}` })
  t.equal(page.statusCode, 200)
  t.match(page.body, '7.00 USD')
  for (const decision of ['decline', 'needs_instrument', 'approve', 'approve_pending', 'cancel']) t.match(page.body, `value="${decision}"`)
  const post = async (fields: Record<string, string>) => await api.app.inject({
    method: 'POST', url: '/checkoutnow', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString()
  })
  const cancel = await post({ token: order.id, decision: 'cancel' })
  t.equal(cancel.headers.location, `https://shop.test/cancel?token=${order.id}`)
  t.equal((await post({ token: order.id, decision: 'nope' })).statusCode, 400)
  t.equal((await post({ token: 'NOPE', decision: 'approve' })).statusCode, 404)
  t.equal((await api.app.inject({ method: 'GET', url: '/checkoutnow' })).statusCode, 404)
  const declined = await post({ token: order.id, decision: 'decline' })
  t.match(declined.headers.location, `token=${order.id}&PayerID=`)
  t.match((await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json(), { details: [{ issue: 'INSTRUMENT_DECLINED' }] })
  t.match((await api.app.inject({ method: 'GET', url: `/checkoutnow?token=${order.id}` })).body, 'Choose how to pay')
  await post({ token: order.id, decision: 'approve' })
  await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})
  t.equal((await api.app.inject({ method: 'GET', url: `/checkoutnow?token=${order.id}` })).statusCode, 400, 'a paid order cannot be approved again')
  const plain = await createOrder(api, orderRequest({ payment_source: undefined }, { invoice_id: 'INV-2' }))
  const done = await post({ token: plain.id, decision: 'approve' })
  t.equal(done.statusCode, 200, 'no return URL: the page says so')
  t.equal(api.app.simulator.orders.cancel(plain.id), undefined)
})

t.test('v2 webhooks are delivered signed like v1 ones, with resource_version 2.0', async (t) => {
  const receiver = await startReceiver(t)
  const api = await ordersApi(t)
  await api.app.listen({ port: 0, host: '127.0.0.1' })
  const subscription = api.app.simulator.webhooks.subscribe({ url: receiver.url, clientId: 'test-client' })
  await paidOrder(api)
  await api.app.simulator.webhooks.waitForIdle()
  t.same(receiver.received.map((delivery) => delivery.event.event_type), ['CHECKOUT.ORDER.APPROVED', 'PAYMENT.CAPTURE.COMPLETED', 'CHECKOUT.ORDER.COMPLETED'])
  for (const delivery of receiver.received) {
    const expected = await api.app.simulator.webhooks.sign(delivery.body, {
      webhookId: subscription.id, transmissionId: String(delivery.headers['paypal-transmission-id']), transmissionTime: String(delivery.headers['paypal-transmission-time'])
    })
    t.equal(delivery.headers['paypal-transmission-sig'], expected['paypal-transmission-sig'])
    t.equal(delivery.event.resource_version, '2.0')
  }
})
