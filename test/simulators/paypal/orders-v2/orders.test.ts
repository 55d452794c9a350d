import t from 'tap'
import { CANCEL_URL, RETURN_URL, createOrder, orderRequest, ordersApi, paidOrder } from './fixtures.ts'

t.test('create: PAYER_ACTION_REQUIRED with a payer-action link; amounts echoed normalised; minimal answer without Prefer', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  t.match(order, {
    id: /^[0-9A-Z]{17}$/,
    intent: 'CAPTURE',
    status: 'PAYER_ACTION_REQUIRED',
    purchase_units: [{ reference_id: 'default', amount: { currency_code: 'USD', value: '7.00' }, invoice_id: 'INV-1', custom_id: 'payment-1' }]
  })
  const rels = order.links.map((link: { rel: string }) => link.rel)
  t.same(rels, ['self', 'payer-action'])
  t.equal(order.links[1].href, `http://localhost:80/checkoutnow?token=${order.id}`)

  const minimal = await api.app.inject({ method: 'POST', url: '/v2/checkout/orders', headers: api.auth, payload: orderRequest() })
  t.same(Object.keys(minimal.json()).sort(), ['id', 'links', 'status'])
  const plain = await createOrder(api, orderRequest({ payment_source: undefined }))
  t.equal(plain.status, 'CREATED', 'no payment_source: CREATED')
  t.same(plain.links.map((link: { rel: string }) => link.rel), ['self', 'approve', 'update', 'capture'], 'approve, not payer-action')
  t.equal(plain.links[1].href, `http://localhost:80/checkoutnow?token=${plain.id}`)
  t.equal(api.app.simulator.orders.counters().ordersCreated, 3)
})

t.test('create refuses bad bodies: 400 INVALID_REQUEST, or 422 when the numbers disagree, with details, a debug id and information links', async (t) => {
  const api = await ordersApi(t)
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [orderRequest({ intent: 'SALE' }), 'INVALID_PARAMETER_VALUE', '/intent'],
    [orderRequest({ purchase_units: undefined }), 'MISSING_REQUIRED_PARAMETER', '/purchase_units'],
    [orderRequest({}, { amount: { currency_code: 'KWD', value: '1.00' } }), 'CURRENCY_NOT_SUPPORTED', '/amount/currency_code'],
    [orderRequest({}, { amount: { currency_code: 'JPY', value: '500.5' }, items: undefined }), 'DECIMAL_PRECISION', '/amount/value'],
    [orderRequest({}, { amount: { currency_code: 'USD', value: '8.00', breakdown: { item_total: { currency_code: 'USD', value: '7.00' } } } }), 'AMOUNT_MISMATCH', '/amount/value'],
    [orderRequest({}, { items: [{ name: 'Mug', quantity: '1', unit_amount: { currency_code: 'USD', value: '3.50' } }] }), 'ITEM_TOTAL_MISMATCH', '/item_total'],
    [orderRequest({}, { amount: { currency_code: 'USD', value: 'abc' }, items: undefined }), 'INVALID_PARAMETER_SYNTAX', '/amount/value'],
    [orderRequest({}, { invoice_id: 'x'.repeat(128) }), 'INVALID_STRING_LENGTH', '/invoice_id'],
    [orderRequest({ payment_source: { paypal: { experience_context: { return_url: 'not a url', user_action: 'NOW' } } } }), 'INVALID_PARAMETER_SYNTAX', '/return_url']
  ]
  // checkout_orders_v2.json: the schema's issues are 400, the amounts that do not add up 422.
  const UNPROCESSABLE = ['DECIMAL_PRECISION', 'AMOUNT_MISMATCH', 'ITEM_TOTAL_MISMATCH', 'ITEM_TOTAL_REQUIRED']
  cases.push([orderRequest({}, { amount: { currency_code: 'USD', value: '7.00' } }), 'ITEM_TOTAL_REQUIRED', '/item_total'])
  for (const [body, issue, field] of cases) {
    const answer = await api.call('POST', '/v2/checkout/orders', body)
    const unprocessable = UNPROCESSABLE.includes(issue)
    t.equal(answer.statusCode, unprocessable ? 422 : 400, issue)
    const error = answer.json()
    t.match(error, { name: unprocessable ? 'UNPROCESSABLE_ENTITY' : 'INVALID_REQUEST', debug_id: answer.headers['paypal-debug-id'], details: [{ issue, location: 'body', description: String }] })
    t.ok(error.details[0].field.endsWith(field), `${issue} names ${field}`)
    t.match(error.links[0], { rel: 'information_link', href: `https://developer.paypal.com/docs/api/orders/v2/#error-${issue}` })
  }
  t.equal(api.app.simulator.orders.counters().ordersCreated, 0)
})

t.test('approve → capture (Prefer: return=representation): COMPLETED order with its capture; webhooks linked to the order', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  t.equal((await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json().details[0].issue, 'ORDER_NOT_APPROVED')
  const approval = api.app.simulator.orders.approve(order.id)
  t.equal(approval.redirectUrl, `${RETURN_URL}&token=${order.id}&PayerID=${approval.payerId}`)
  t.match((await api.call('GET', `/v2/checkout/orders/${order.id}`)).json(), { status: 'APPROVED', payer: { payer_id: approval.payerId } })
  const captured = (await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json()
  const capture = captured.purchase_units[0].payments.captures[0]
  t.match(captured, { status: 'COMPLETED', payment_source: { paypal: { account_id: approval.payerId } } })
  t.match(capture, { status: 'COMPLETED', amount: { value: '7.00' }, final_capture: true, custom_id: 'payment-1', invoice_id: 'INV-1' })
  t.notOk('supplementary_data' in capture, 'no supplementary_data on a capture inside its order')
  t.match((await api.call('GET', `/v2/payments/captures/${capture.id}`)).json(), { id: capture.id, status: 'COMPLETED', supplementary_data: { related_ids: { order_id: order.id } } })
  const again = await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})
  t.equal(again.statusCode, 422)
  t.match(again.json(), { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'ORDER_ALREADY_CAPTURED' }] })
  t.same(api.app.simulator.webhooks.events().map((event) => [event.event_type, event.resource_type, event.resource_version]),
    [['CHECKOUT.ORDER.APPROVED', 'checkout-order', '2.0'], ['PAYMENT.CAPTURE.COMPLETED', 'capture', '2.0'], ['CHECKOUT.ORDER.COMPLETED', 'checkout-order', '2.0']])
  t.match(api.app.simulator.orders.counters(), { ordersCreated: 1, ordersCaptured: 1 })
})

t.test('decline and "needs another instrument": 422 with a redirect link, the order stays APPROVED; a new approval captures', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  for (const [outcome, issue] of [['declined', 'INSTRUMENT_DECLINED'], ['payer_action_required', 'PAYER_ACTION_REQUIRED']] as const) {
    api.app.simulator.orders.approve(order.id, { outcome })
    const refused = await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})
    t.equal(refused.statusCode, 422)
    t.match(refused.json(), { details: [{ issue }], links: [{ rel: 'information_link' }, { rel: 'redirect', href: `http://localhost:80/checkoutnow?token=${order.id}` }] })
    const current = (await api.call('GET', `/v2/checkout/orders/${order.id}`)).json()
    t.equal(current.status, 'APPROVED')
    t.notOk(current.links.some((link: { rel: string }) => link.rel === 'payer-action'), 'the way back is the 422\'s redirect link')
  }
  api.app.simulator.orders.approve(order.id)
  t.equal((await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json().status, 'COMPLETED')
  t.match(api.app.simulator.orders.counters(), { ordersCaptured: 3, declines: 2 })
  t.equal(api.app.simulator.webhooks.events().filter((event) => event.event_type === 'CHECKOUT.ORDER.APPROVED').length, 1, 'approved once: the order never left APPROVED')
})

t.test('a capture that completes the order DECLINED; a pending one settles with its webhook', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  api.app.simulator.orders.approve(order.id, { outcome: 'capture_declined' })
  const declined = (await api.call('POST', `/v2/checkout/orders/${order.id}/capture`, {})).json()
  t.match(declined, { status: 'COMPLETED', purchase_units: [{ payments: { captures: [{ status: 'DECLINED' }] } }] })
  const pending = await paidOrder(api, orderRequest({}, { invoice_id: 'INV-2' }), 'pending')
  const capture = pending.purchase_units[0].payments.captures[0]
  t.match(capture, { status: 'PENDING', status_details: { reason: 'ECHECK' } })
  t.match(api.app.simulator.orders.settleCapture(capture.id, 'COMPLETED'), { status: 'COMPLETED' })
  t.throws(() => api.app.simulator.orders.settleCapture(capture.id, 'DECLINED'), /not PENDING/)
  t.same(api.app.simulator.webhooks.events().map((event) => event.event_type).filter((type) => type.startsWith('PAYMENT.')),
    ['PAYMENT.CAPTURE.DECLINED', 'PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.COMPLETED'])
})

t.test('cancel: cancel_url with the order id as token; intent checks; another merchant\'s order is 404', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  t.equal(api.app.simulator.orders.cancel(order.id), `${CANCEL_URL}?token=${order.id}`)
  api.app.simulator.orders.approve(order.id)
  t.match((await api.call('POST', `/v2/checkout/orders/${order.id}/authorize`, {})).json(), { details: [{ issue: 'ACTION_DOES_NOT_MATCH_INTENT' }] })
  const missing = await api.call('GET', '/v2/checkout/orders/NOPE')
  t.equal(missing.statusCode, 404)
  t.match(missing.json(), { name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID', location: 'path' }] })
  api.app.simulator.addClient({ clientId: 'other', clientSecret: 'other-secret' })
  const other = { authorization: `Bearer ${api.app.simulator.issueAccessToken('other')}` }
  t.equal((await api.app.inject({ method: 'GET', url: `/v2/checkout/orders/${order.id}`, headers: other })).statusCode, 404)
  t.throws(() => api.app.simulator.orders.approve('NOPE'), /no order/)
})

t.test('an unapproved order expires; a second order with a captured invoice id is DUPLICATE_INVOICE_ID', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z')
  const api = await ordersApi(t, { now: () => now })
  await paidOrder(api)
  const second = await createOrder(api)
  api.app.simulator.orders.approve(second.id)
  t.match((await api.call('POST', `/v2/checkout/orders/${second.id}/capture`, {})).json(), { details: [{ issue: 'DUPLICATE_INVOICE_ID' }] })
  const late = await createOrder(api, orderRequest({}, { invoice_id: 'INV-9' }))
  api.app.simulator.orders.approve(late.id)
  now += 3 * 3600 * 1000 + 1
  t.match((await api.call('POST', `/v2/checkout/orders/${late.id}/capture`, {})).json(), { details: [{ issue: 'ORDER_EXPIRED' }] })
  t.throws(() => api.app.simulator.orders.approve(late.id), /expired/)
})

t.test('control: order and capture views, unknown ids, an outcome override for every later capture', async (t) => {
  const api = await ordersApi(t)
  t.equal(api.app.simulator.orders.order('NOPE'), undefined)
  t.equal(api.app.simulator.orders.capture('NOPE'), undefined)
  t.throws(() => api.app.simulator.orders.settleCapture('NOPE', 'COMPLETED'), /no capture/)
  api.app.simulator.orders.setOutcome('pending')
  const order = await paidOrder(api)
  const captureId = order.purchase_units[0].payments.captures[0].id
  t.match(api.app.simulator.orders.capture(captureId), { status: 'PENDING' })
  t.match(api.app.simulator.orders.order(order.id), { status: 'COMPLETED' })
  api.app.simulator.orders.setOutcome(undefined)
  t.match((await paidOrder(api, orderRequest({}, { invoice_id: 'INV-2' }))).purchase_units[0].payments.captures[0], { status: 'COMPLETED' })
})
