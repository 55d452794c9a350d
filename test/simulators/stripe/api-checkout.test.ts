import t from 'tap'
import type Stripe from 'stripe'
import { call, oneItem, startSimulator } from './helpers.ts'

/* Checkout Sessions through the official SDK (https://docs.stripe.com/api/checkout/sessions). */

const HOUR = 3_600_000

t.test('Checkout Sessions', async (t) => {
  const { app, stripe, origin } = await startSimulator(t)

  t.test('create: totals from price_data, the hosted url, no PaymentIntent until the buyer pays', async (t) => {
    const session = await stripe.checkout.sessions.create({
      mode: 'payment',
      line_items: [...oneItem(1500), { quantity: 2, price_data: { currency: 'eur', unit_amount: 250, product_data: { name: 'Biscuit' } } }],
      success_url: 'https://shop.example/done?session={CHECKOUT_SESSION_ID}',
      cancel_url: 'https://shop.example/cart',
      client_reference_id: 'order-7',
      customer_email: 'buyer@example.com',
      metadata: { order: '7' },
      payment_intent_data: { capture_method: 'manual', metadata: { order: '7' }, description: 'Order 7' }
    })
    t.match(session, { object: 'checkout.session', mode: 'payment', status: 'open', payment_status: 'unpaid', amount_total: 2000, amount_subtotal: 2000, currency: 'eur', client_reference_id: 'order-7', customer_email: 'buyer@example.com', metadata: { order: '7' }, payment_intent: null, livemode: false, url: `${origin}/c/pay/${session.id}` })
    t.match(session.id, /^cs_test_/)
    t.equal(session.expires_at, session.created + 86_400, 'expires 24 hours after creation by default')
    const retrieved = await stripe.checkout.sessions.retrieve(session.id)
    t.same(retrieved, { ...session, lastResponse: retrieved.lastResponse })

    t.equal(app.simulator.checkout.pay(session.id, 'pm_card_visa'), 'paid')
    const paid = await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent', 'payment_intent.latest_charge'] })
    t.match(paid, { status: 'complete', payment_status: 'unpaid', url: null, customer_details: { email: 'buyer@example.com' } })
    const intent = paid.payment_intent as Stripe.PaymentIntent
    t.match(intent, { status: 'requires_capture', amount: 2000, capture_method: 'manual', metadata: { order: '7' }, description: 'Order 7', latest_charge: { object: 'charge', captured: false } })
    const byIntent = await stripe.checkout.sessions.list({ payment_intent: intent.id })
    t.same(byIntent.data.map((item) => item.id), [session.id])
    t.same((await stripe.checkout.sessions.list({ status: 'complete' })).data.map((item) => item.id), [session.id])
    t.match(await stripe.checkout.sessions.list({ payment_intent: 'pi_nope' }).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, param: 'payment_intent' })
    const expired = await stripe.checkout.sessions.expire(session.id).catch((error: Stripe.errors.StripeError) => error)
    t.match(expired, { statusCode: 400, message: /status of "complete"/ })
  })

  t.test('expire: an open session ends at once, with checkout.session.expired', async (t) => {
    const session = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem(), success_url: 'https://shop.example/ok' })
    const expired = await stripe.checkout.sessions.expire(session.id)
    t.match(expired, { status: 'expired', url: null })
    t.equal(app.simulator.events().at(-1)?.type, 'checkout.session.expired')
    t.throws(() => app.simulator.checkout.pay(session.id), /not open|status/i, 'the control refuses nothing silently')
  })

  t.test('sessions expire on the simulated clock: 24 hours, or at expires_at', async (t) => {
    const byDefault = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem() })
    const now = Math.floor(app.simulator.clock.now() / 1000)
    const early = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem(), expires_at: now + 3600 })
    t.equal(early.expires_at, now + 3600)
    app.simulator.clock.advance(HOUR)
    t.equal((await stripe.checkout.sessions.retrieve(early.id)).status, 'expired')
    t.equal((await stripe.checkout.sessions.retrieve(byDefault.id)).status, 'open')
    app.simulator.clock.advance(23 * HOUR)
    t.equal((await stripe.checkout.sessions.retrieve(byDefault.id)).status, 'expired')
    const list = await stripe.checkout.sessions.list({ status: 'expired', limit: 2 })
    t.same(list.data.map((item) => item.id), [early.id, byDefault.id], 'newest first')
  })

  t.test('a payment still processing completes the session unpaid; its settlement follows as async_payment events', async (t) => {
    const types = (id: string): string[] => app.simulator.events().filter((event) => (event.data.object as { id: string }).id === id).map((event) => event.type)
    app.simulator.payments.processNext(2)
    const clearing = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem() })
    t.equal(app.simulator.checkout.pay(clearing.id), 'paid')
    t.match(await stripe.checkout.sessions.retrieve(clearing.id), { status: 'complete', payment_status: 'unpaid' })
    app.simulator.payments.settle((await stripe.checkout.sessions.retrieve(clearing.id)).payment_intent as string, 'succeeded')
    t.equal((await stripe.checkout.sessions.retrieve(clearing.id)).payment_status, 'paid')
    t.same(types(clearing.id), ['checkout.session.completed', 'checkout.session.async_payment_succeeded'])
    const bouncing = await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem() })
    app.simulator.checkout.pay(bouncing.id)
    app.simulator.payments.settle((await stripe.checkout.sessions.retrieve(bouncing.id)).payment_intent as string, 'failed')
    t.equal((await stripe.checkout.sessions.retrieve(bouncing.id)).payment_status, 'unpaid')
    t.same(types(bouncing.id), ['checkout.session.completed', 'checkout.session.async_payment_failed'])
  })

  t.test('refused parameters', async (t) => {
    const refuse = async (params: Record<string, unknown>): Promise<Stripe.errors.StripeError> =>
      await stripe.checkout.sessions.create(params as Stripe.Checkout.SessionCreateParams).then(() => { throw new Error('not refused') }, (error: Stripe.errors.StripeError) => error)
    t.match(await refuse({ line_items: oneItem() }), { code: 'parameter_missing', param: 'mode' })
    t.match(await refuse({ mode: 'subscription', line_items: oneItem() }), { param: 'mode' })
    t.match(await refuse({ mode: 'payment' }), { code: 'parameter_missing', param: 'line_items' })
    t.match(await refuse({ mode: 'payment', line_items: [{ price: 'price_123', quantity: 1 }] }), { statusCode: 404, code: 'resource_missing', param: 'line_items[0][price]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1 }] }), { code: 'parameter_missing', param: 'line_items[0][price_data]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1, price_data: { unit_amount: 5, product_data: { name: 'x' } } }] }), { param: 'line_items[0][price_data][currency]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1, price_data: { currency: 'eur', product_data: { name: 'x' } } }] }), { param: 'line_items[0][price_data][unit_amount]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: -1, product_data: { name: 'x' } } }] }), { param: 'line_items[0][price_data][unit_amount]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 5 } }] }), { param: 'line_items[0][price_data][product_data]' })
    t.match((await call(origin, 'POST', '/v1/checkout/sessions', { mode: 'payment', 'line_items[0][quantity]': '1', 'line_items[0][price_data][currency]': 'eur', 'line_items[0][price_data][unit_amount]': '5', 'line_items[0][price_data][product_data][name]': '' })).body, { error: { code: 'parameter_missing', param: 'line_items[0][price_data][product_data][name]' } })
    t.match(await refuse({ mode: 'payment', line_items: [{ price_data: { currency: 'eur', unit_amount: 5, product_data: { name: 'x' } } }] }), { param: 'line_items[0][quantity]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 0, price_data: { currency: 'eur', unit_amount: 5, product_data: { name: 'x' } } }] }), { param: 'line_items[0][quantity]' })
    t.match(await refuse({ mode: 'payment', line_items: [...oneItem(5, 'eur'), ...oneItem(5, 'usd')] }), { param: 'line_items[1][price_data][currency]' })
    t.match(await refuse({ mode: 'payment', line_items: [{ quantity: 1, adjustable_quantity: { enabled: true } }] }), { code: 'parameter_unknown', param: 'line_items[0][adjustable_quantity]' })
    const now = Math.floor(app.simulator.clock.now() / 1000)
    t.match(await refuse({ mode: 'payment', line_items: oneItem(), expires_at: now + 60 }), { param: 'expires_at' })
    t.match(await refuse({ mode: 'payment', line_items: oneItem(), expires_at: now + 90_000 }), { param: 'expires_at' })
    t.match(await refuse({ mode: 'payment', line_items: oneItem(), payment_intent_data: { setup_future_usage: 'off_session' } }), { code: 'parameter_unknown', param: 'payment_intent_data[setup_future_usage]' })
    t.match(await refuse({ mode: 'payment', line_items: oneItem(), payment_intent_data: { capture_method: 'later' } }), { param: 'capture_method' })
    t.match((await call(origin, 'POST', '/v1/checkout/sessions', { mode: 'payment', 'line_items[0]': 'x' })).body, { error: { param: 'line_items[0]' } })
    t.match(await stripe.checkout.sessions.retrieve('cs_test_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, code: 'resource_missing' })
  })
})
