import t from 'tap'
import Stripe from 'stripe'
import { call, KEY, startSimulator } from './helpers.ts'

/* The fault gate: outages, rate limits, hangs, and work done with its answer lost. */

t.test('faults', async (t) => {
  const { app, stripe, origin, port } = await startSimulator(t, { faults: [{ kind: 'error', status: 503, method: 'POST', path: '/v1/payment_intents' }] })

  t.test('error: 5xx api_error before any work, N times, then normal again', async (t) => {
    const down = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }).catch((error: Stripe.errors.StripeError) => error)
    t.match(down, { type: 'StripeAPIError', statusCode: 503, message: 'An unknown error occurred' })
    t.equal(app.simulator.counters().paymentIntentsCreated, 0)
    app.simulator.faults.inject({ kind: 'error', path: '/v1/payment_intents/*', times: 2 })
    const intent = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
    t.equal(app.simulator.faults.remaining(), 2)
    t.match(await stripe.paymentIntents.retrieve(intent.id).catch((error: Stripe.errors.StripeError) => error), { statusCode: 500 })
    t.match(await stripe.paymentIntents.retrieve(intent.id).catch((error: Stripe.errors.StripeError) => error), { statusCode: 500 })
    t.equal((await stripe.paymentIntents.retrieve(intent.id)).id, intent.id)
    app.simulator.faults.inject({ kind: 'rate_limit', path: /^\/v1\/charges/ })
    t.match(await stripe.charges.list().catch((error: Stripe.errors.StripeError) => error), { type: 'StripeRateLimitError', statusCode: 429, code: 'rate_limit' })
    app.simulator.faults.inject({ kind: 'error', method: 'GET', path: '/v1/refunds' })
    t.equal((await call(origin, 'POST', '/v1/refunds', {})).status, 400, 'another method is not caught')
    t.equal((await call(origin, 'GET', '/v1/refunds/re_x/y')).status, 404, 'another shape of path is not caught')
    app.simulator.faults.clear()
    t.equal(app.simulator.faults.remaining(), 0)
    t.equal((await call(origin, 'GET', '/v1/refunds')).status, 200)
  })

  t.test('an error answer keeps its idempotency key free', async (t) => {
    app.simulator.faults.inject({ kind: 'error', path: '/v1/payment_intents' })
    t.equal((await call(origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'e1' })).status, 500)
    t.equal((await call(origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'e1' })).status, 200)
  })

  t.test('lose: the work is done and kept for its key, the connection is cut; a retry replays it', async (t) => {
    const before = app.simulator.counters().paymentIntentsCreated
    app.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/payment_intents' })
    const lost = await fetch(`${origin}/v1/payment_intents`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'l1' }, body: 'amount=100&currency=eur' }).catch((error: Error) => error)
    t.type(lost, Error, 'no answer')
    t.equal(app.simulator.counters().paymentIntentsCreated, before + 1, 'the PaymentIntent was created')
    const retry = await call(origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'l1' })
    t.equal(retry.headers.get('idempotent-replayed'), 'true')
    t.equal(app.simulator.counters().paymentIntentsCreated, before + 1)

    // The SDK retries a closed connection even with maxNetworkRetries 0, with the key it sent: the work runs once.
    app.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/payment_intents' })
    const callsBefore = app.simulator.calls()['POST /v1/payment_intents'] as number
    const viaSdk = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
    t.equal(viaSdk.lastResponse.headers['idempotent-replayed'], 'true')
    t.equal(app.simulator.calls()['POST /v1/payment_intents'], callsBefore + 2)
    t.equal(app.simulator.counters().paymentIntentsCreated, before + 2)
  })

  t.test('hang: the client times out, nothing is done', async (t) => {
    const before = app.simulator.counters().paymentIntentsCreated
    app.simulator.faults.inject({ kind: 'hang', path: '/v1/payment_intents' })
    const impatient = new Stripe(KEY, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0, timeout: 150 })
    const timedOut = impatient.paymentIntents.create({ amount: 100, currency: 'eur' }).catch((error: Stripe.errors.StripeError) => error)
    await app.simulator.faults.untilHanging()
    t.match(await timedOut, { type: 'StripeConnectionError' })
    await app.simulator.faults.untilNoneHanging()
    t.equal(app.simulator.counters().paymentIntentsCreated, before)
  })

  t.test('calls are counted per route', async (t) => {
    const calls = app.simulator.calls()
    t.ok((calls['POST /v1/payment_intents'] ?? 0) >= 6)
    t.equal(calls['GET /v1/payment_intents/:id'], 3)
    t.equal(calls['GET /v1/refunds/re_x/y'], 1, 'unknown paths as sent')
  })
})

t.test('close() ends a hanging request', async (t) => {
  const { app, origin } = await startSimulator(t)
  app.simulator.faults.inject({ kind: 'hang', path: '/v1/payment_intents' })
  const pending = call(origin, 'POST', '/v1/payment_intents', { amount: '1', currency: 'eur' }).catch((error: Error) => error)
  await app.simulator.faults.untilHanging()
  await app.close()
  t.type(await pending, Error)
  await app.simulator.faults.untilNoneHanging()
  await app.simulator.webhooks.waitForIdle()
})
