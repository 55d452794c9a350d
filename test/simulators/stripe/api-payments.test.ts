import t from 'tap'
import type Stripe from 'stripe'
import { call, startSimulator } from './helpers.ts'

/*
 * The official SDK drives PaymentIntents and Charges: it must parse every answer, and every
 * state follows Stripe's lifecycle (https://docs.stripe.com/payments/paymentintents/lifecycle).
 */

const DAY = 86_400_000

t.test('PaymentIntents and Charges through the official SDK', async (t) => {
  const { app, stripe, origin } = await startSimulator(t)

  t.test('create without a payment method waits for one; confirm with pm_card_visa captures at once', async (t) => {
    const created = await stripe.paymentIntents.create({ amount: 2000, currency: 'EUR', metadata: { order: '42' }, description: 'Order 42' })
    t.match(created, { object: 'payment_intent', status: 'requires_payment_method', amount: 2000, currency: 'eur', livemode: false, metadata: { order: '42' }, latest_charge: null, capture_method: 'automatic_async' })
    t.match(created.id, /^pi_/)
    t.match(created.client_secret, new RegExp(`^${created.id}_secret_`))
    t.ok(Number.isInteger(created.created))
    const confirmed = await stripe.paymentIntents.confirm(created.id, { payment_method: 'pm_card_visa', expand: ['latest_charge'] })
    t.equal(confirmed.status, 'succeeded')
    t.equal(confirmed.amount_received, 2000)
    t.match(confirmed.payment_method, /^pm_/)
    t.not(confirmed.payment_method, 'pm_card_visa', 'a test PaymentMethod makes a new PaymentMethod')
    const charge = confirmed.latest_charge as Stripe.Charge
    t.match(charge, { object: 'charge', status: 'succeeded', paid: true, captured: true, amount_captured: 2000, amount_refunded: 0, refunded: false, disputed: false, failure_code: null, payment_intent: created.id, outcome: { type: 'authorized' }, payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242' } } })
    t.notOk('capture_before' in (charge.payment_method_details?.card ?? {}), 'no capture window for an automatic capture')
    const again = await stripe.charges.retrieve(charge.id, { expand: ['payment_intent'] })
    t.equal((again.payment_intent as Stripe.PaymentIntent).id, created.id)
    const listed = await stripe.charges.list({ payment_intent: created.id })
    t.same(listed.data.map((item) => item.id), [charge.id])
    t.equal(listed.has_more, false)
  })

  t.test('create with confirm and a payment method in one call', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_mastercard', confirm: true, capture_method: 'automatic' })
    t.equal(intent.status, 'succeeded')
    const charge = await stripe.charges.retrieve(intent.latest_charge as string)
    t.equal(charge.payment_method_details?.card?.brand, 'mastercard')
  })

  t.test('a payment method without confirm waits for confirmation, and the intent keeps it', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 500, currency: 'usd', payment_method: 'pm_card_visa' })
    t.equal(intent.status, 'requires_confirmation')
    const confirmed = await stripe.paymentIntents.confirm(intent.id)
    t.equal(confirmed.status, 'succeeded')
    t.equal(confirmed.payment_method, intent.payment_method, 'the attached PaymentMethod is the one charged')
  })

  t.test('declines answer 402 card_error with the decline code; the intent keeps last_payment_error and can be paid again', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 900, currency: 'eur' })
    const cases: Array<[string, string, string]> = [
      ['pm_card_chargeDeclined', 'card_declined', 'generic_decline'],
      ['pm_card_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
      ['pm_card_chargeDeclinedLostCard', 'card_declined', 'lost_card'],
      ['pm_card_chargeDeclinedStolenCard', 'card_declined', 'stolen_card'],
      ['pm_card_chargeDeclinedExpiredCard', 'expired_card', 'expired_card'],
      ['pm_card_chargeDeclinedIncorrectCvc', 'incorrect_cvc', 'incorrect_cvc'],
      ['pm_card_chargeDeclinedProcessingError', 'processing_error', 'processing_error']
    ]
    for (const [pm, code, declineCode] of cases) {
      const error = await stripe.paymentIntents.confirm(intent.id, { payment_method: pm }).then(() => { throw new Error('not declined') }, (caught: Stripe.errors.StripeCardError) => caught)
      t.equal(error.type, 'StripeCardError', pm)
      t.equal(error.statusCode, 402)
      t.equal(error.code, code)
      t.equal(error.decline_code, declineCode)
      t.equal(error.doc_url, `https://docs.stripe.com/error-codes/${code.replaceAll('_', '-')}`)
      t.equal(error.payment_intent?.status, 'requires_payment_method')
      t.match(error.charge, /^ch_/)
      const failed = await stripe.charges.retrieve(error.charge as string)
      t.match(failed, { status: 'failed', paid: false, captured: false, failure_code: code, outcome: { type: 'issuer_declined', reason: declineCode } })
    }
    const after = await stripe.paymentIntents.retrieve(intent.id)
    t.match(after, { status: 'requires_payment_method', payment_method: null, last_payment_error: { type: 'card_error', code: 'processing_error' } })
    const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' })
    t.equal(paid.status, 'succeeded')
    t.equal(paid.last_payment_error, null)
    t.equal((await stripe.charges.list({ payment_intent: intent.id, limit: 100 })).data.length, cases.length + 1, 'one charge per attempt')
  })

  t.test('manual capture: authorize, capture part, the rest released', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 3000, currency: 'eur', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true })
    t.match(intent, { status: 'requires_capture', amount_capturable: 3000, amount_received: 0 })
    const held = await stripe.charges.retrieve(intent.latest_charge as string)
    t.match(held, { captured: false, amount_captured: 0, paid: true, status: 'succeeded' })
    t.ok((held.payment_method_details?.card?.capture_before as number) >= held.created + 7 * 86_400, 'capture_before: seven days on')
    const tooMuch = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 3001 }).catch((error: Stripe.errors.StripeError) => error)
    t.match(tooMuch, { type: 'StripeInvalidRequestError', code: 'amount_too_large', param: 'amount_to_capture' })
    const zero = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 0 }).catch((error: Stripe.errors.StripeError) => error)
    t.match(zero, { type: 'StripeInvalidRequestError', param: 'amount_to_capture' })
    const captured = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 1200, metadata: { captured_by: 'test' } })
    t.match(captured, { status: 'succeeded', amount_received: 1200, amount_capturable: 0, metadata: { captured_by: 'test' } })
    const charge = await stripe.charges.retrieve(intent.latest_charge as string)
    t.match(charge, { captured: true, amount_captured: 1200, amount_refunded: 1800, refunded: false })
    const twice = await stripe.paymentIntents.capture(intent.id).catch((error: Stripe.errors.StripeError) => error)
    t.match(twice, { code: 'payment_intent_unexpected_state', statusCode: 400 })
  })

  t.test('cancel: a held authorization is released; a succeeded intent cannot be canceled', async (t) => {
    const held = await stripe.paymentIntents.create({ amount: 800, currency: 'eur', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true })
    const canceled = await stripe.paymentIntents.cancel(held.id, { cancellation_reason: 'requested_by_customer' })
    t.match(canceled, { status: 'canceled', cancellation_reason: 'requested_by_customer', amount_capturable: 0 })
    t.ok(canceled.canceled_at)
    t.match(await stripe.charges.retrieve(held.latest_charge as string), { refunded: true, amount_refunded: 800 })
    const open = await stripe.paymentIntents.create({ amount: 800, currency: 'eur' })
    t.match(await stripe.paymentIntents.cancel(open.id), { status: 'canceled', cancellation_reason: null })
    const confirmCanceled = await stripe.paymentIntents.confirm(open.id, { payment_method: 'pm_card_visa' }).catch((error: Stripe.errors.StripeError) => error)
    t.match(confirmCanceled, { code: 'payment_intent_unexpected_state' })
    const paid = await stripe.paymentIntents.create({ amount: 800, currency: 'eur', payment_method: 'pm_card_visa', confirm: true })
    const refused = await stripe.paymentIntents.cancel(paid.id).catch((error: Stripe.errors.StripeError) => error)
    t.match(refused, { code: 'payment_intent_unexpected_state', message: /status of succeeded/ })
    const badReason = await stripe.paymentIntents.cancel(open.id, { cancellation_reason: 'bored' as 'abandoned' }).catch((error: Stripe.errors.StripeError) => error)
    t.match(badReason, { type: 'StripeInvalidRequestError', param: 'cancellation_reason' })
  })

  t.test('an authorization not captured within seven days is canceled automatically', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 700, currency: 'eur', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true })
    app.simulator.clock.advance(7 * DAY - 1000)
    t.equal((await stripe.paymentIntents.retrieve(intent.id)).status, 'requires_capture', 'still capturable just before')
    app.simulator.clock.advance(1000)
    const expired = await stripe.paymentIntents.retrieve(intent.id)
    t.match(expired, { status: 'canceled', cancellation_reason: 'automatic' })
    t.match(await stripe.charges.retrieve(intent.latest_charge as string), { refunded: true, amount_refunded: 700, captured: false })
    const types = app.simulator.events().filter((event) => (event.data.object as { id: string }).id === intent.id || (event.data.object as { id: string }).id === intent.latest_charge).map((event) => event.type)
    t.same(types.slice(-2), ['charge.expired', 'payment_intent.canceled'])
  })

  t.test('3D Secure: requires_action with a redirect, then the challenge passes or fails', async (t) => {
    const intent = await stripe.paymentIntents.create({ amount: 1100, currency: 'eur', payment_method: 'pm_card_authenticationRequired', confirm: true, return_url: 'https://shop.example/back' })
    t.match(intent, { status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: `${origin}/3ds/${intent.id}`, return_url: 'https://shop.example/back' } } })
    t.match(app.simulator.payments.authenticate(intent.id, true), { status: 'succeeded' })
    t.match(await stripe.charges.retrieve((await stripe.paymentIntents.retrieve(intent.id)).latest_charge as string), { payment_method_details: { card: { three_d_secure: { result: 'authenticated' } } } })

    const failing = await stripe.paymentIntents.create({ amount: 1100, currency: 'eur', payment_method: 'pm_card_threeDSecure2Required', confirm: true })
    t.equal(failing.next_action?.redirect_to_url?.return_url, null)
    t.match(app.simulator.payments.authenticate(failing.id, false), { status: 'requires_payment_method', last_payment_error: { code: 'payment_intent_authentication_failure', type: 'invalid_request_error' } })
    t.throws(() => app.simulator.payments.authenticate(failing.id, true), /no 3D Secure challenge/)

    const declinedAfter = await stripe.paymentIntents.create({ amount: 1100, currency: 'eur', payment_method: 'pm_card_authenticationRequiredChargeDeclinedInsufficientFunds', confirm: true })
    t.match(app.simulator.payments.authenticate(declinedAfter.id, true), { status: 'requires_payment_method', last_payment_error: { decline_code: 'insufficient_funds' } })
  })

  t.test('processing: the next confirmation waits, then settles either way', async (t) => {
    app.simulator.payments.processNext(2)
    const clearing = await stripe.paymentIntents.create({ amount: 1300, currency: 'eur', payment_method: 'pm_card_visa', confirm: true })
    t.match(clearing, { status: 'processing', processing: { type: 'card' } })
    t.match(await stripe.charges.retrieve(clearing.latest_charge as string), { status: 'pending', paid: false, captured: false })
    t.match(app.simulator.payments.settle(clearing.id, 'succeeded'), { status: 'succeeded', amount_received: 1300, processing: null })
    t.match(await stripe.charges.retrieve(clearing.latest_charge as string), { status: 'succeeded', paid: true, captured: true, amount_captured: 1300 })

    const bouncing = await stripe.paymentIntents.create({ amount: 1300, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, capture_method: 'manual' })
    t.equal(bouncing.status, 'processing')
    t.match(app.simulator.payments.settle(bouncing.id, 'failed'), { status: 'requires_payment_method', last_payment_error: { code: 'card_declined', charge: bouncing.latest_charge } })
    t.match(await stripe.charges.retrieve(bouncing.latest_charge as string), { status: 'failed', failure_code: 'card_declined', outcome: { type: 'issuer_declined' } })
    t.throws(() => app.simulator.payments.settle(bouncing.id, 'succeeded'), /not processing/)

    app.simulator.payments.processNext()
    const held = await stripe.paymentIntents.create({ amount: 1300, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, capture_method: 'manual' })
    t.match(app.simulator.payments.settle(held.id, 'succeeded'), { status: 'requires_capture', amount_capturable: 1300 })
    t.match(await stripe.charges.retrieve(held.latest_charge as string), { captured: false, paid: true })
    t.match(await stripe.paymentIntents.cancel(held.id), { status: 'canceled' })
  })

  t.test('parameter errors name the parameter', async (t) => {
    const missing = await stripe.paymentIntents.create({ currency: 'eur' } as Stripe.PaymentIntentCreateParams).catch((error: Stripe.errors.StripeError) => error)
    t.match(missing, { type: 'StripeInvalidRequestError', code: 'parameter_missing', param: 'amount', message: 'Missing required param: amount.' })
    t.match(await stripe.paymentIntents.create({ amount: 100 } as Stripe.PaymentIntentCreateParams).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_missing', param: 'currency' })
    t.match(await stripe.paymentIntents.create({ amount: 0, currency: 'eur' }).catch((error: Stripe.errors.StripeError) => error), { param: 'amount' })
    t.match(await stripe.paymentIntents.create({ amount: 10, currency: 'euro' }).catch((error: Stripe.errors.StripeError) => error), { param: 'currency' })
    t.match(await stripe.paymentIntents.create({ amount: 10, currency: 'eur', shipping_rate: 'x' } as Stripe.PaymentIntentCreateParams).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_unknown', param: 'shipping_rate' })
    t.match(await stripe.paymentIntents.retrieve('pi_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, code: 'resource_missing', message: 'No such payment_intent: \'pi_nope\'' })
    t.match(await stripe.charges.retrieve('ch_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, code: 'resource_missing' })
    t.match(await stripe.paymentIntents.create({ amount: 10, currency: 'eur', payment_method: 'pm_card_unknown' }).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, code: 'resource_missing', param: 'payment_method' })
    const open = await stripe.paymentIntents.create({ amount: 10, currency: 'eur' })
    t.match(await stripe.paymentIntents.confirm(open.id).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_missing', param: 'payment_method' })
    t.match(await stripe.paymentIntents.retrieve(open.id, { expand: ['customer'] }).catch((error: Stripe.errors.StripeError) => error), { param: 'expand', message: 'This property cannot be expanded (customer).' })
    const raw = await call(origin, 'POST', '/v1/payment_intents', { amount: 'ten', currency: 'eur' })
    t.match(raw.body, { error: { code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid integer: ten' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', confirm: 'maybe' })).body, { error: { param: 'confirm' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', 'metadata[k]': 'x'.repeat(501) })).body, { error: { param: 'metadata[k]' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', [`metadata[${'k'.repeat(41)}]`]: 'v' })).body, { error: { param: `metadata[${'k'.repeat(41)}]` } })
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`metadata[k${i}]`, 'v']))
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', ...many })).body, { error: { param: 'metadata', message: /at most 50 keys/ } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', 'metadata[k][x]': 'v' })).body, { error: { param: 'metadata[k]' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', metadata: 'v' })).body, { error: { param: 'metadata' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { 'amount[x]': '10', currency: 'eur' })).body, { error: { param: 'amount', message: /must be a string/ } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', payment_method_types: 'card' })).body, { error: { param: 'payment_method_types' } })
    t.match((await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', 'payment_method_types[0][x]': 'card' })).body, { error: { param: 'payment_method_types[0]' } })
    const emptied = await call(origin, 'POST', '/v1/payment_intents', { amount: '10', currency: 'eur', 'metadata[a]': '1', 'metadata[b]': '' })
    t.same(emptied.body.metadata, { a: '1' }, 'an empty metadata value unsets the key')
  })
})
