import t from 'tap'
import { startReceiver } from '../fixtures/receiver.ts'
import { createOrder, orderRequest, ordersApi, paidOrder } from './fixtures.ts'

const DAY = 24 * 3600 * 1000

t.test('INSTRUMENT_DECLINED: 422 with a redirect link back to checkout, the order stays APPROVED; a new choice captures', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  api.app.simulator.orders.approve(order.id, { outcome: 'declined' })
  for (let attempt = 0; attempt < 2; attempt++) {
    const refused = await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})
    t.equal(refused.statusCode, 422)
    t.match(refused.json(), {
      details: [{ issue: 'INSTRUMENT_DECLINED', description: 'The instrument presented  was either declined by the processor or bank, or it can\'t be used for this payment.' }],
      links: [{ rel: 'information_link' }, { rel: 'redirect', method: 'GET', href: `http://localhost:80/checkoutnow?token=${order.id}` }]
    })
    t.equal((await api.call('GET', `/v2/checkout/orders/${order.id}`)).json().status, 'APPROVED', 'still APPROVED, refused again until the buyer chooses')
  }
  api.app.simulator.orders.approve(order.id)
  t.equal((await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json().status, 'COMPLETED')
  t.same(api.app.simulator.webhooks.events().map((event) => event.event_type), ['CHECKOUT.ORDER.APPROVED', 'PAYMENT.CAPTURE.COMPLETED', 'CHECKOUT.ORDER.COMPLETED'])
})

t.test('void of a captured authorization: PREVIOUSLY_CAPTURED; authorize sends CHECKOUT.ORDER.COMPLETED', async (t) => {
  const api = await ordersApi(t)
  const authorization = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }))).purchase_units[0].payments.authorizations[0]
  await api.call('POST', `/v2/payments/authorizations/${authorization.id}/capture`, {})
  t.match((await api.call('POST', `/v2/payments/authorizations/${authorization.id}/void`)).json(), {
    details: [{ issue: 'PREVIOUSLY_CAPTURED', description: 'Authorization has been previously captured and hence cannot be voided.' }]
  })
  t.ok(api.app.simulator.webhooks.events().some((event) => event.event_type === 'CHECKOUT.ORDER.COMPLETED'))
})

t.test('reauthorize: not within the honor period, once from day 4 to 29, up to 115 % / +75 USD, not a reauthorization; expiry voids at day 29', async (t) => {
  const api = await ordersApi(t, { accessTokenTtlSeconds: 90 * 24 * 3600 })
  const receiver = await startReceiver(t)
  await api.app.listen({ port: 0, host: '127.0.0.1' })
  api.app.simulator.webhooks.subscribe({ url: receiver.url, clientId: 'test-client', eventTypes: ['PAYMENT.AUTHORIZATION.VOIDED', 'PAYMENT.AUTHORIZATION.CREATED'] })
  const authorization = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }))).purchase_units[0].payments.authorizations[0]
  const url = `/v2/payments/authorizations/${authorization.id}/reauthorize`
  t.match((await api.call('POST', url, {})).json(), { details: [{ issue: 'REAUTHORIZATION_TOO_SOON' }] })
  api.app.simulator.clock.advance(3 * DAY + 1)
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '8.06' } })).json(), { details: [{ issue: 'MAX_CAPTURE_AMOUNT_EXCEEDED' }] })
  const renewed = await api.call('POST', url, { amount: { currency_code: 'USD', value: '8.05' } }, { 'paypal-request-id': 'reauth-1' })
  t.equal(renewed.statusCode, 201)
  t.match(renewed.json(), { status: 'CREATED', amount: { value: '8.05' }, expiration_time: authorization.expiration_time })
  t.same(renewed.json().links.map((link: { rel: string }) => link.rel), ['self', 'capture', 'up'], 'no void, no reauthorize on a reauthorization')
  t.equal((await api.call('POST', url, { amount: { currency_code: 'USD', value: '8.05' } }, { 'paypal-request-id': 'reauth-1' })).statusCode, 200, 'replayed')
  t.match((await api.call('POST', url, {})).json(), { details: [{ issue: 'REAUTHORIZATION_TOO_SOON' }] }, 'only once')
  t.match((await api.call('POST', `/v2/payments/authorizations/${renewed.json().id}/reauthorize`, {})).json(), { details: [{ issue: 'REAUTHORIZATION_NOT_SUPPORTED' }] })
  t.match((await api.call('POST', `/v2/payments/authorizations/${renewed.json().id}/void`)).json(), { details: [{ issue: 'CANNOT_BE_VOIDED' }] })
  t.match(api.app.simulator.orders.counters(), { reauthorizations: 1 })

  api.app.simulator.clock.advance(26 * DAY)
  t.match(api.app.simulator.orders.authorization(authorization.id), { status: 'VOIDED' })
  t.match((await api.call('POST', `/v2/payments/authorizations/${renewed.json().id}/capture`, {})).json(), { details: [{ issue: 'AUTHORIZATION_VOIDED' }] })
  t.match((await api.call('POST', url, {})).json(), { details: [{ issue: 'AUTHORIZATION_VOIDED' }] })
  await api.app.simulator.webhooks.waitForIdle()
  t.same(receiver.received.map((delivery) => delivery.event.event_type),
    ['PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED', 'PAYMENT.AUTHORIZATION.VOIDED'])
  t.equal(receiver.received[0]?.headers['paypal-auth-version'], 'v2', 'deliveries carry Paypal-Auth-Version')
  t.throws(() => api.app.simulator.clock.advance(-1), /only moves forward/)
  t.equal(api.app.simulator.orders.authorization('NOPE'), undefined)
})

t.test('an injected clock expires authorizations when they are next looked at; a captured one stays', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z')
  const api = await ordersApi(t, { now: () => now, accessTokenTtlSeconds: 90 * 24 * 3600 })
  const open = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }))).purchase_units[0].payments.authorizations[0]
  const captured = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }, { invoice_id: 'INV-2' }))).purchase_units[0].payments.authorizations[0]
  await api.call('POST', `/v2/payments/authorizations/${captured.id}/capture`, {})
  now += 29 * DAY + 1
  t.equal((await api.call('GET', `/v2/payments/authorizations/${open.id}`)).json().status, 'VOIDED')
  t.equal((await api.call('GET', `/v2/payments/authorizations/${captured.id}`)).json().status, 'CAPTURED')
})

t.test('refunds PENDING, FAILED, CANCELLED: only COMPLETED moves money; a pending one settles later with PAYMENT.CAPTURE.REFUNDED', async (t) => {
  const api = await ordersApi(t)
  const capture = (await paidOrder(api)).purchase_units[0].payments.captures[0]
  const url = `/v2/payments/captures/${capture.id}/refund`
  const { orders } = api.app.simulator
  orders.queueRefundOutcome('PENDING')
  orders.queueRefundOutcome('FAILED')
  orders.queueRefundOutcome('CANCELLED')
  const pending = (await api.call('POST', url, { amount: { currency_code: 'USD', value: '3.00' }, custom_id: 'R-1' })).json()
  t.match(pending, { status: 'PENDING', status_details: { reason: 'ECHECK' }, custom_id: 'R-1', seller_payable_breakdown: { total_refunded_amount: { value: '0.00' } } })
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } })).json(), { status: 'FAILED', status_details: { reason: 'ECHECK' } })
  const cancelled = (await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } })).json()
  t.equal(cancelled.status, 'CANCELLED')
  t.notOk('status_details' in cancelled)
  t.equal(orders.capture(capture.id)?.status, 'COMPLETED', 'nothing refunded yet')
  t.match((await api.call('POST', url, { amount: { currency_code: 'USD', value: '4.01' } })).json(), { details: [{ issue: 'REFUND_AMOUNT_EXCEEDED' }] }, 'the pending 3.00 is held')
  t.match(orders.settleRefund(pending.id, 'COMPLETED'), { status: 'COMPLETED', seller_payable_breakdown: { total_refunded_amount: { value: '3.00' } } })
  t.equal(orders.capture(capture.id)?.status, 'PARTIALLY_REFUNDED')
  t.throws(() => orders.settleRefund(pending.id, 'FAILED'), /not PENDING/)
  orders.queueRefundOutcome('PENDING', 2)
  const second = (await api.call('POST', url, {})).json()
  t.match(second, { status: 'PENDING', amount: { value: '4.00' } })
  t.match((await api.call('POST', url, {})).json(), { details: [{ issue: 'REFUND_AMOUNT_EXCEEDED' }] }, 'all held by the pending refund')
  t.match(orders.settleRefund(second.id, 'FAILED'), { status: 'FAILED' })
  t.equal(orders.capture(capture.id)?.status, 'PARTIALLY_REFUNDED', 'a failed refund moves nothing')
  t.match(orders.refund(second.id), { status: 'FAILED' })
  t.equal(orders.refund('NOPE'), undefined)
  t.throws(() => orders.settleRefund('NOPE', 'COMPLETED'), /no refund/)
  t.throws(() => orders.queueRefundOutcome('COMPLETED' as never), /PENDING, FAILED or CANCELLED/)
  t.throws(() => orders.queueRefundOutcome('PENDING', 0), /positive count/)
  const refunded = api.app.simulator.webhooks.events().filter((event) => event.event_type === 'PAYMENT.CAPTURE.REFUNDED')
  t.same(refunded.map((event) => (event.resource as { status: string }).status), ['PENDING', 'FAILED', 'CANCELLED', 'COMPLETED', 'PENDING', 'FAILED'])
  t.match(orders.reverseCapture(capture.id, { amountMinor: 100 }), { amount: { value: '1.00' } })

  const pendingCapture = (await paidOrder(api, orderRequest({}, { invoice_id: 'INV-2' }), 'pending')).purchase_units[0].payments.captures[0]
  t.match((await api.call('POST', `/v2/payments/captures/${pendingCapture.id}/refund`)).json(), {
    details: [{ issue: 'PENDING_CAPTURE', description: 'Cannot initiate a refund as the capture is pending. Capture is typically pending when the payer has funded the transaction using e-check/bank funded.' }]
  })
  api.app.simulator.orders.settleCapture(pendingCapture.id, 'DECLINED')
  t.ok(api.app.simulator.webhooks.events().some((event) => event.event_type === 'PAYMENT.CAPTURE.DENIED'), 'a pending capture that bounces is DENIED')
})

t.test('PayPal-Request-Id: 45 days on Payments v2, 6 hours on Orders v2 (the same id 7 h later is no second refund)', async (t) => {
  const api = await ordersApi(t, { accessTokenTtlSeconds: 90 * 24 * 3600 })
  const capture = (await paidOrder(api)).purchase_units[0].payments.captures[0]
  const url = `/v2/payments/captures/${capture.id}/refund`
  const headers = { 'paypal-request-id': 'refund-1' }
  const first = await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } }, headers)
  api.app.simulator.clock.advance(7 * 3600 * 1000)
  const later = await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } }, headers)
  t.equal(later.statusCode, 200)
  t.equal(later.json().id, first.json().id)
  api.app.simulator.clock.advance(44 * DAY)
  t.equal((await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } }, headers)).statusCode, 200, 'still within 45 days')
  api.app.simulator.clock.advance(DAY)
  t.equal((await api.call('POST', url, { amount: { currency_code: 'USD', value: '1.00' } }, headers)).statusCode, 201, 'forgotten after 45 days')
  t.equal(api.app.simulator.orders.counters().refunds, 2)
  const orderHeaders = { 'paypal-request-id': 'order-1' }
  const order = await api.call('POST', '/v2/checkout/orders', orderRequest({}, { invoice_id: 'INV-9' }), orderHeaders)
  api.app.simulator.clock.advance(6 * 3600 * 1000 + 1)
  t.not((await api.call('POST', '/v2/checkout/orders', orderRequest({}, { invoice_id: 'INV-9' }), orderHeaders)).json().id, order.json().id)
})
