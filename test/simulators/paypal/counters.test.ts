import t from 'tap'
import { bearer, createPayment, execute, grantToken, paidPayment, paymentRequest, simulator } from './fixtures/helpers.ts'
import { startReceiver } from './fixtures/receiver.ts'

const CREATE = '/v1/payments/payment'
const ZERO = {
  tokenGrants: 0,
  paymentsCreated: 0,
  paymentsExecuted: 0,
  paymentsDeclined: 0,
  paymentsUpdated: 0,
  refunds: 0,
  reversals: 0,
  webhooksCreated: 0,
  idempotentReplays: 0,
  webhookEvents: 0,
  webhookDeliveryAttempts: 0,
  requestsReceived: 0
}

t.test('every counter starts at zero', async (t) => {
  t.same(simulator(t).simulator.counters(), ZERO)
})

t.test('faulted-before, rate-limited and refused calls count nothing but the request', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const send = async (headers: Record<string, string> = {}, body = paymentRequest()): Promise<number> =>
    (await app.inject({ method: 'POST', url: CREATE, headers: { ...auth, ...headers }, payload: body })).statusCode

  app.simulator.faults.inject({ kind: 'error', path: CREATE })
  app.simulator.faults.inject({ kind: 'rate_limit', path: CREATE })
  t.same([await send(), await send()], [500, 429])
  t.equal(await send({}, paymentRequest({ intent: 'order' })), 400, 'refused by validation')
  const held = app.simulator.faults.hold({ path: CREATE })
  const slow = send({ 'paypal-request-id': 'r1' })
  await held.reached
  t.equal(await send({ 'paypal-request-id': 'r1' }), 409, 'refused while in flight')
  held.release()
  t.equal(await slow, 201)
  t.equal(await send({ 'paypal-request-id': 'r1' }, paymentRequest({ note_to_payer: 'other body' })), 400, 'DUPLICATE_REQUEST_ID')
  t.same(app.simulator.counters(), { ...ZERO, tokenGrants: 1, paymentsCreated: 1, requestsReceived: 7 })
})

t.test('work done before a lost answer counts once; each replay counts as a replay only', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(payment.id)
  const headers = { 'paypal-request-id': 'x1' }
  app.simulator.faults.inject({ kind: 'error', method: 'POST', path: '/v1/payments/payment/*/execute', when: 'after', times: 2 })
  t.equal((await execute(app, auth, payment.id, payerId, headers)).statusCode, 500, 'done, answer lost')
  t.equal((await execute(app, auth, payment.id, payerId, headers)).statusCode, 500, 'replayed, answer lost again')
  t.equal((await execute(app, auth, payment.id, payerId, headers)).statusCode, 200, 'replayed')
  t.equal((await execute(app, auth, payment.id, payerId)).statusCode, 400, 'a new execute is PAYMENT_ALREADY_DONE')
  t.match(app.simulator.counters(), { paymentsCreated: 1, paymentsExecuted: 1, idempotentReplays: 2, webhookEvents: 2 })
})

t.test('declines, refunds, reversals, subscriptions, events and delivery attempts', async (t) => {
  const receiver = await startReceiver(t)
  receiver.statuses.push(500)
  const app = simulator(t, { webhookDelivery: { retryDelayMs: 0 } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await bearer(app)
  const created = await app.inject({
    method: 'POST', url: '/v1/notifications/webhooks', headers: auth, payload: { url: receiver.url, event_types: [{ name: 'PAYMENT.SALE.COMPLETED' }] }
  })
  t.equal(created.statusCode, 201)
  const declined = await createPayment(app, auth)
  const { payerId } = app.simulator.approve(declined.id, { outcome: 'declined' })
  t.equal((await execute(app, auth, declined.id, payerId)).json().name, 'INSTRUMENT_DECLINED')
  const { saleId } = await paidPayment(app, auth)
  t.equal((await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: { amount: { total: '1', currency: 'USD' } } })).statusCode, 201)
  app.simulator.reverseSale(saleId)
  await app.simulator.webhooks.waitForIdle()
  t.same(app.simulator.counters(), {
    ...ZERO,
    tokenGrants: 1,
    webhooksCreated: 1,
    paymentsCreated: 2,
    paymentsExecuted: 2,
    paymentsDeclined: 1,
    refunds: 1,
    reversals: 1,
    // Two approvals (PAYMENTS.PAYMENT.CREATED), one sale completed, one refund, one reversal.
    webhookEvents: 5,
    // Only PAYMENT.SALE.COMPLETED is subscribed to: refused once with 500, then delivered.
    webhookDeliveryAttempts: 2,
    requestsReceived: 7
  })
  t.equal(receiver.received.length, 2)
})

t.test('requests(): every request in arrival order, filtered like fault rules', async (t) => {
  const app = simulator(t)
  t.equal((await grantToken(app)).statusCode, 200)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest(), { 'paypal-request-id': 'c-1' })
  await app.inject({ url: `/v1/payments/payment/${payment.id}?fields=all`, headers: auth })
  await app.inject({ url: '/v1/payments/payment/PAYID-NOPE', headers: auth })
  await app.inject({ url: '/v1/nowhere', headers: auth })
  await app.inject({ url: CREATE, headers: { authorization: 'Bearer expired' } })

  t.equal(app.simulator.requests().length, 7)
  t.same(app.simulator.requests({ method: 'post', path: CREATE }), [{ method: 'POST', path: CREATE, paypalRequestId: 'c-1', statusCode: 201 }])
  t.same(app.simulator.requests({ path: '/v1/payments/payment/*' }).map((request) => [request.path, request.statusCode]), [
    [`/v1/payments/payment/${payment.id}`, 200],
    ['/v1/payments/payment/PAYID-NOPE', 404]
  ])
  t.same(app.simulator.requests({ path: /oauth2/ }).map((request) => request.statusCode), [200, 200])
  t.same(app.simulator.requests({ method: 'GET' }).map((request) => request.statusCode), [200, 404, 404, 401])
  const copy = app.simulator.requests()[0]
  if (copy !== undefined) copy.statusCode = 999
  t.equal(app.simulator.requests()[0]?.statusCode, 200, 'callers get copies')
  t.equal(app.simulator.counters().requestsReceived, 7)
})
