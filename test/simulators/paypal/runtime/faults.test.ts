import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { bearer, createPayment, grantToken, paymentRequest, simulator } from '../fixtures/helpers.ts'

t.test('fail before the work: 500 INTERNAL_SERVICE_ERROR, nothing done', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'error', method: 'post', path: '/v1/payments/payment', times: 2 })
  t.equal(app.simulator.faults.remaining(), 2)
  for (let attempt = 0; attempt < 2; attempt++) {
    const failed = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: paymentRequest() })
    t.equal(failed.statusCode, 500)
    t.same(failed.json(), {
      name: 'INTERNAL_SERVICE_ERROR',
      message: 'An internal service error has occurred',
      debug_id: failed.headers['paypal-debug-id'],
      information_link: 'https://developer.paypal.com/webapps/developer/docs/api/#INTERNAL_SERVICE_ERROR'
    })
  }
  t.equal(app.simulator.counters().paymentsCreated, 0)
  t.equal(app.simulator.faults.remaining(), 0)
  await createPayment(app, auth)
  t.equal(app.simulator.counters().paymentsCreated, 1, 'the fault is used up')
})

t.test('503 and the token endpoint', async (t) => {
  const app = simulator(t, { faults: [{ kind: 'error', status: 503, path: '/v1/oauth2/token' }] })
  const failed = await grantToken(app)
  t.equal(failed.statusCode, 503)
  t.match(failed.json(), { name: 'SERVICE_UNAVAILABLE', message: 'Service Unavailable.' })
  t.equal((await grantToken(app)).statusCode, 200)
  t.equal(app.simulator.counters().tokenGrants, 1)
})

t.test('fail after the work: done and stored, the answer lost', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'error', path: '/v1/payments/payment', when: 'after' })
  const headers = { ...auth, 'paypal-request-id': 'lost-1' }
  const lost = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers, payload: paymentRequest() })
  t.equal(lost.statusCode, 500)
  t.equal(lost.json().name, 'INTERNAL_SERVICE_ERROR')
  t.match(lost.headers['content-type'], /^application\/json/)
  t.equal(app.simulator.counters().paymentsCreated, 1, 'the payment exists')

  const retried = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers, payload: paymentRequest() })
  t.equal(retried.statusCode, 200, 'a safe retry gets the stored payment')
  t.match(retried.json(), { id: /^PAYID-/, state: 'created' })
  t.equal(app.simulator.counters().paymentsCreated, 1)

  const naive = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: paymentRequest() })
  t.equal(naive.statusCode, 201)
  t.equal(app.simulator.counters().paymentsCreated, 2, 'a retry without PayPal-Request-Id does it twice')
})

t.test('delay after the work stalls a real client until it gives up; the work is kept', async (t) => {
  const app = simulator(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'delay', path: '/v1/payments/payment', delayMs: 60_000, when: 'after' })
  const headers = { ...auth, 'content-type': 'application/json', 'paypal-request-id': 'timeout-1' }
  const body = JSON.stringify(paymentRequest())
  const clientTimeout = new AbortController()
  let answered = false
  const stalled = fetch(`${app.listeningOrigin}/v1/payments/payment`, { method: 'POST', headers, body, signal: clientTimeout.signal })
    .finally(() => { answered = true })
  while (app.simulator.counters().paymentsCreated === 0) await nextTurn()
  t.notOk(answered, 'the payment exists but the client has no answer yet')
  clientTimeout.abort()
  await t.rejects(stalled, { name: 'AbortError' })
  const retry = await fetch(`${app.listeningOrigin}/v1/payments/payment`, { method: 'POST', headers, body })
  t.equal(retry.status, 200, 'the retry with the same PayPal-Request-Id gets the stored payment')
  t.equal(app.simulator.counters().paymentsCreated, 1)
})

t.test('delay before the work still does it', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'delay', path: '/v1/payments/payment', delayMs: 5 })
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: paymentRequest() })).statusCode, 201)
  app.simulator.faults.inject({ kind: 'delay', path: '/v1/payments/payment', delayMs: 5, when: 'after' })
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: auth, payload: paymentRequest() })).statusCode, 201)
  t.equal(app.simulator.counters().paymentsCreated, 2)
})

t.test('429 RATE_LIMIT_REACHED, with Retry-After when asked', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'rate_limit', path: '/v1/payments/payment/*', retryAfterSeconds: 3 })
  app.simulator.faults.inject({ kind: 'rate_limit', path: /^\/v1\/payments\/payment\/PAYID-/ })
  const limited = await app.inject({ url: '/v1/payments/payment/PAYID-X?fields=all', headers: auth })
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['retry-after'], '3')
  t.match(limited.json(), { name: 'RATE_LIMIT_REACHED', message: 'Too many requests. Blocked due to rate limiting.' })
  const second = await app.inject({ url: '/v1/payments/payment/PAYID-Y', headers: auth })
  t.equal(second.statusCode, 429)
  t.notOk('retry-after' in second.headers)
  t.equal((await app.inject({ url: '/v1/payments/payment/PAYID-Z', headers: auth })).statusCode, 404)
})

t.test('matching: method, segment wildcard, clear', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  app.simulator.faults.inject({ kind: 'error', method: 'POST', path: '/v1/payments/sale/*/refund' })
  t.equal((await app.inject({ url: '/v1/payments/payment', headers: auth })).statusCode, 200, 'other path untouched')
  t.equal((await app.inject({ url: '/v1/payments/sale/ABC/refund', headers: auth })).statusCode, 404, 'GET is not POST')
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/sale/A/B/refund', headers: auth, payload: {} })).statusCode, 404, '* is one segment')
  t.equal(app.simulator.faults.remaining(), 1)
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/sale/ABC/refund', headers: auth, payload: {} })).statusCode, 500)
  app.simulator.faults.inject({ kind: 'error', path: '*', times: 5 })
  app.simulator.faults.clear()
  t.equal(app.simulator.faults.remaining(), 0)
  t.throws(() => app.simulator.faults.inject({ kind: 'error', path: '/x', times: 0 }), /positive integer/)
})
