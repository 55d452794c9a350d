import t from 'tap'
import type Stripe from 'stripe'
import { call, KEY, startSimulator } from './helpers.ts'

/* Idempotency-Key (https://docs.stripe.com/idempotency) on the simulated clock. */

t.test('the same key replays the first answer; other parameters are an idempotency_error', async (t) => {
  const { app, stripe, origin } = await startSimulator(t, { now: () => 1_750_000_000_000 })
  const first = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' }, { idempotencyKey: 'k1' })
  const again = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur' }, { idempotencyKey: 'k1' })
  t.equal(again.id, first.id)
  t.equal(app.simulator.counters().paymentIntentsCreated, 1)
  t.equal(app.simulator.counters().idempotentReplays, 1)
  const raw = await call(origin, 'POST', '/v1/payment_intents', { amount: '1000', currency: 'eur' }, { 'idempotency-key': 'k1' })
  t.equal(raw.headers.get('idempotent-replayed'), 'true')
  t.equal(raw.headers.get('original-request'), first.lastResponse.requestId)
  t.equal(raw.headers.get('idempotency-key'), 'k1')
  t.not(raw.headers.get('request-id'), first.lastResponse.requestId, 'a replay has its own request id')

  const other = await stripe.paymentIntents.create({ amount: 2000, currency: 'eur' }, { idempotencyKey: 'k1' }).then(() => { throw new Error('not refused') }, (error: Stripe.errors.StripeError) => error)
  t.match(other, { type: 'StripeIdempotencyError', statusCode: 400, message: /same parameters/ })
  t.match(await stripe.refunds.create({ payment_intent: first.id }, { idempotencyKey: 'k1' }).catch((error: Stripe.errors.StripeError) => error), { type: 'StripeIdempotencyError', message: /same endpoint/ })

  t.test('a declined confirmation is kept and replayed as it was; nothing runs twice', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
    const confirm = async (): Promise<Stripe.errors.StripeError> => await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclined' }, { idempotencyKey: 'k2' }).then(() => { throw new Error('not declined') }, (error: Stripe.errors.StripeError) => error)
    const declined = await confirm()
    const replayed = await confirm()
    t.equal(replayed.statusCode, 402)
    t.equal(replayed.charge, declined.charge)
    t.equal(app.simulator.counters().declines, 1)
  })

  t.test('a refused parameter saves nothing: the key can be used again', async (t) => {
    t.match(await stripe.paymentIntents.create({ amount: 100 } as Stripe.PaymentIntentCreateParams, { idempotencyKey: 'k3' }).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_missing' })
    t.equal((await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k3' })).status, 'requires_payment_method')
  })

  t.test('keys are per API key, and only POSTs take them', async (t) => {
    const twin = await startSimulator(t, { apiKeys: [KEY, 'sk_test_other'], now: () => 1_750_000_000_000 })
    const a = await twin.stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'shared' })
    const b = await call(twin.origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'shared', authorization: 'Bearer sk_test_other' })
    t.not(b.body.id, a.id)
    const read = await call(twin.origin, 'GET', `/v1/payment_intents/${a.id}`, undefined, { 'idempotency-key': 'shared' })
    t.equal(read.headers.get('idempotent-replayed'), null)
  })

  t.test('keys are pruned after 24 hours on the simulated clock', async (t) => {
    const before = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k4' })
    app.simulator.clock.advance(24 * 3_600_000 - 1)
    t.equal((await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k4' })).id, before.id)
    app.simulator.clock.advance(1)
    t.not((await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'k4' })).id, before.id)
  })
})

t.test('a request still running holds its key: a concurrent one gets 409; the key frees when it ends unanswered', async (t) => {
  const { app, origin } = await startSimulator(t)
  app.simulator.faults.inject({ kind: 'hang', method: 'POST', path: '/v1/payment_intents' })
  const abort = new AbortController()
  const hanging = fetch(`${origin}/v1/payment_intents`, { method: 'POST', signal: abort.signal, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'busy' }, body: 'amount=100&currency=eur' }).catch((error: Error) => error)
  await app.simulator.faults.untilHanging()
  t.equal(app.simulator.faults.hanging(), 1)
  const conflict = await call(origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'busy' })
  t.equal(conflict.status, 409)
  t.match(conflict.body, { error: { type: 'invalid_request_error', code: 'idempotency_key_in_use' } })
  abort.abort()
  t.match(await hanging, { name: 'AbortError' })
  await app.simulator.faults.untilNoneHanging()
  const retried = await call(origin, 'POST', '/v1/payment_intents', { amount: '100', currency: 'eur' }, { 'idempotency-key': 'busy' })
  t.equal(retried.status, 200)
  t.equal(app.simulator.counters().paymentIntentsCreated, 1, 'the hung request did nothing')
  t.equal(app.simulator.faults.hanging(), 0)
})
