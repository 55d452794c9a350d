import t from 'tap'
import { canonicalJson } from '../../../../simulators/paypal/runtime/idempotency.ts'
import { bearer, CLIENT, createPayment, execute, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'

t.test('canonicalJson ignores key order only', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] }), '{"a":[{"c":"x","d":null}],"b":1}')
  t.not(canonicalJson({ a: [1, 2] }), canonicalJson({ a: [2, 1] }))
})

t.test('same PayPal-Request-Id and body: the stored answer, 200 instead of 201, work done once', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const send = async (payload: Record<string, unknown>, requestId = 'create-1'): Promise<{ statusCode: number, json: () => any, headers: Record<string, unknown> }> =>
    await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: { ...auth, 'paypal-request-id': requestId }, payload })

  const first = await send(paymentRequest())
  t.equal(first.statusCode, 201)
  const replay = await send({ ...paymentRequest() })
  t.equal(replay.statusCode, 200)
  t.same(replay.json(), first.json(), 'same payment, same body')
  t.not(replay.headers['paypal-debug-id'], first.headers['paypal-debug-id'], 'each answer has its own debug id')
  const reordered = Object.fromEntries(Object.entries(paymentRequest()).reverse())
  t.equal((await send(reordered)).json().id, first.json().id, 'key order does not matter')
  t.same(app.simulator.counters(), { ...app.simulator.counters(), paymentsCreated: 1, idempotentReplays: 2 })

  const different = await send(paymentRequest({}, { total: '8', currency: 'USD' }))
  t.equal(different.statusCode, 400)
  t.match(different.json(), { name: 'DUPLICATE_REQUEST_ID', message: 'The value of PayPal-Request-Id header has already been used.' })

  t.equal((await send(paymentRequest(), 'create-2')).statusCode, 201, 'another id is another payment')
  const noHeader = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: paymentRequest() })
  t.equal(noHeader.statusCode, 201)
  t.equal((await send(paymentRequest(), '')).statusCode, 201, 'an empty id is no id')
  t.equal((await send(paymentRequest(), '')).statusCode, 201)
  t.equal(app.simulator.counters().paymentsCreated, 5)
})

t.test('the key is per client, method and path', async (t) => {
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other] })
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest(), { 'paypal-request-id': 'same' })
  await createPayment(app, await bearer(app, other), paymentRequest(), { 'paypal-request-id': 'same' })
  const { payerId } = app.simulator.approve(payment.id)
  t.equal((await execute(app, auth, payment.id, payerId, { 'paypal-request-id': 'same' })).statusCode, 200)
  t.equal(app.simulator.counters().paymentsCreated, 2)
  t.equal(app.simulator.counters().idempotentReplays, 0)
})

t.test('refused calls are not remembered: the same id works once the cause is fixed', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const payment = await createPayment(app, auth)
  const headers = { 'paypal-request-id': 'execute-1' }
  const early = await execute(app, auth, payment.id, 'ANYPAYER12345', headers)
  t.equal(early.json().name, 'PAYMENT_NOT_APPROVED_FOR_EXECUTION')
  const { payerId } = app.simulator.approve(payment.id)
  t.equal((await execute(app, auth, payment.id, payerId, headers)).statusCode, 200)
  const replay = await execute(app, auth, payment.id, payerId, headers)
  t.equal(replay.statusCode, 200)
  t.equal(replay.json().state, 'approved', 'a replay, not PAYMENT_ALREADY_DONE')
  t.equal(app.simulator.counters().paymentsExecuted, 1, 'paid once')
})

t.test('refund replay', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth)
  const refund = async (): Promise<{ statusCode: number, json: () => any }> => await app.inject({
    method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: { ...auth, 'paypal-request-id': 'refund-1' }, payload: { amount: { total: '1', currency: 'USD' } }
  })
  const first = await refund()
  const second = await refund()
  t.equal(first.statusCode, 201)
  t.equal(second.statusCode, 200)
  t.equal(second.json().id, first.json().id)
  t.equal(app.simulator.counters().refunds, 1)
  t.equal(app.simulator.sale(saleId)?.state, 'partially_refunded')
})

t.test('no body is a body too: a full refund retried without one is replayed', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth)
  const refund = async (): Promise<{ statusCode: number, json: () => any }> =>
    await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: { ...auth, 'paypal-request-id': 'full-1' } })
  t.equal((await refund()).statusCode, 201)
  t.equal((await refund()).statusCode, 200)
  t.match(app.simulator.counters(), { refunds: 1, idempotentReplays: 1 })
})

t.test('a duplicate while the first call still runs is 409', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const headers = { ...auth, 'paypal-request-id': 'slow-1' }
  const held = app.simulator.faults.hold({ method: 'POST', path: '/v1/payments/payment' })
  const slow = app.inject({ method: 'POST', url: '/v1/payments/payment', headers, payload: paymentRequest() })
  // The hold catches the call after its id is reserved: once reached, the first call is in flight.
  await held.reached
  const concurrent = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers, payload: paymentRequest() })
  t.equal(concurrent.statusCode, 409)
  t.match(concurrent.json(), { name: 'RESOURCE_CONFLICT', message: 'The server has detected a conflict while processing this request.' })
  held.release()
  t.equal((await slow).statusCode, 201)
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/payment', headers, payload: paymentRequest() })).statusCode, 200)
  t.equal(app.simulator.counters().paymentsCreated, 1)
})

t.test('ids are forgotten after the retention period', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { now: () => now, idempotencyRetentionSeconds: 60 })
  const token = app.simulator.issueAccessToken()
  const send = async (): Promise<number> => (await app.inject({
    method: 'POST', url: '/v1/payments/payment', headers: { authorization: `Bearer ${token}`, 'paypal-request-id': 'r' }, payload: paymentRequest()
  })).statusCode
  t.equal(await send(), 201)
  now += 60_000
  t.equal(await send(), 200, 'still remembered at the limit')
  now += 1
  t.equal(await send(), 201, 'a new payment after it')
})
