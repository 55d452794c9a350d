import t from 'tap'
import {
  StripeConfig, StripeStateReader, StripeViews, disputeState, fromStripeAmount, locateEvent, providerStatus, stripeAmounts, stripeStatus, toStripeAmount
} from '../../../gateways/stripe/index.ts'
import { chargeView, closeKey, errorView, mergeById, nextRefundKey, openKey, paymentIntentIdOf, rememberEvent, seenEvent } from '../../../gateways/stripe/record.ts'
import { StripeHttpAdapter } from '../../../gateways/stripe/index.ts'
import { buildStripeSimulator } from 'paywire/stripe-simulator'
import { NullLogger, Payment, StatusTransitions, UndiciHttpClient } from '../../../plugins/core/index.ts'

t.test('amounts: Paywire\'s ISO minor units ↔ Stripe\'s units, refused before any call when Stripe cannot take them', async (t) => {
  for (const [amount, currency, stripe] of [[1999, 'EUR', 1999], [500, 'JPY', 500], [500, 'ISK', 50_000], [100_000, 'MGA', 1000], [12_340, 'KWD', 12_340], [1500, 'HUF', 1500]] as const) {
    t.equal(toStripeAmount(amount, currency), stripe, `${amount} ${currency}`)
    t.equal(fromStripeAmount(stripe, currency.toLowerCase()), amount, `back from ${stripe} ${currency}`)
  }
  t.throws(() => toStripeAmount(150, 'MGA'), { code: 'PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED', statusCode: 400, message: /whole MGA amounts/ })
  t.throws(() => toStripeAmount(12_345, 'KWD'), { code: 'PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED', message: /last digit is 0/ })
  t.throws(() => toStripeAmount(100_000_000, 'USD'), { code: 'PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED', message: /eight digits/ })
  t.throws(() => toStripeAmount(1.5, 'USD'), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.equal(fromStripeAmount(50_050, 'isk'), 500, 'a fraction Stripe shows is never invented in ISO units')
})

t.test('the status table, row by row', async (t) => {
  const pi = (fields: Record<string, unknown>) => ({ id: 'pi_1', currency: 'usd', amount: 1000, amount_received: 0, ...fields })
  const open = { checkout_session: { id: 'cs_1', status: 'open' } }
  const ended = { checkout_session: { id: 'cs_1', status: 'expired' } }
  const declined = { last_payment_error: { code: 'card_declined' } }
  const rows: Array<[string, Record<string, unknown>, string]> = [
    ['nothing yet', {}, 'new'],
    ['a session open', open, 'pending'],
    ['a session complete, its PaymentIntent not read yet', { checkout_session: { id: 'cs_1', status: 'complete' } }, 'pending'],
    ['a session expired unpaid', ended, 'expired'],
    ['requires_payment_method, session open (declined, may retry)', { ...open, ...pi({ status: 'requires_payment_method', ...declined }) }, 'pending'],
    ['requires_action, session expired (3-D Secure abandoned)', { ...ended, ...pi({ status: 'requires_action' }) }, 'expired'],
    ['requires_payment_method with an error, session ended', { ...ended, ...pi({ status: 'requires_payment_method', ...declined }) }, 'failed'],
    ['requires_confirmation without a session', pi({ status: 'requires_confirmation' }), 'pending'],
    ['requires_payment_method with an error, without a session', pi({ status: 'requires_payment_method', ...declined }), 'failed'],
    ['processing', pi({ status: 'processing' }), 'pending'],
    ['requires_capture', pi({ status: 'requires_capture', amount_capturable: 1000 }), 'authorized'],
    ['succeeded', pi({ status: 'succeeded', amount_received: 1000 }), 'captured'],
    ['succeeded, refunded in part', pi({ status: 'succeeded', amount_received: 1000, refunds: [{ id: 're_1', amount: 300, status: 'succeeded' }, { id: 're_2', amount: 700, status: 'pending' }] }), 'refunded'],
    ['succeeded, a dispute open', pi({ status: 'succeeded', amount_received: 1000, disputes: [{ id: 'dp_1', amount: 1000, status: 'under_review' }] }), 'suspended'],
    ['succeeded, a dispute lost', pi({ status: 'succeeded', amount_received: 1000, disputes: [{ id: 'dp_1', amount: 1000, status: 'lost' }] }), 'refunded'],
    ['canceled by the shop', pi({ status: 'canceled', cancellation_reason: 'requested_by_customer' }), 'canceled'],
    ['canceled by Stripe (authorization expired)', pi({ status: 'canceled', cancellation_reason: 'automatic' }), 'expired'],
    ['a status Paywire does not know', pi({ status: 'requires_reauthorization' }), 'unknown'],
    ['the buyer went back (local end)', { ...ended, paywire_state: 'canceled' }, 'canceled'],
    ['a local end Stripe contradicts: money moved', { ...ended, paywire_state: 'canceled', ...pi({ status: 'succeeded', amount_received: 1000 }) }, 'captured']
  ]
  for (const [name, record, status] of rows) t.equal(stripeStatus(record), status, name)
  t.equal(providerStatus({ ...ended, paywire_state: 'canceled' }), 'expired', 'Stripe\'s own view ignores the local end')
  t.same(stripeAmounts(pi({ status: 'succeeded', amount_received: 1000, refunds: [{ id: 're_1', amount: 300, status: 'succeeded' }, { id: 're_2', amount: 200, status: 'failed' }], disputes: [{ id: 'dp_1', amount: 400, status: 'lost' }] })),
    { captured: 1000, refunded: 300, reversed: 400 })
  t.equal(stripeAmounts(pi({ status: 'requires_capture' })), undefined, 'nothing received yet')
  t.equal(stripeAmounts({ status: 'succeeded' }), undefined, 'no PaymentIntent')
  t.same(['needs_response', 'warning_under_review', 'won', 'warning_closed', 'prevented', 'lost'].map(disputeState), ['open', 'open', 'won', 'won', 'won', 'lost'])
})

t.test('the state reader: status, amounts, disputes and Stripe\'s ids from a stored payment', async (t) => {
  const reader = new StripeStateReader()
  t.equal(reader.read({ details: null }), undefined)
  t.same(reader.read({ details: {} }), { status: 'new', providerIds: {} })
  t.same(reader.read({
    details: {
      id: 'pi_1',
      currency: 'usd',
      status: 'succeeded',
      amount_received: 1000,
      checkout_session: { id: 'cs_1', status: 'complete' },
      latest_charge: { id: 'ch_1' },
      refunds: [{ id: 're_1', amount: 100, status: 'succeeded' }],
      disputes: [{ id: 'dp_1', amount: 900, status: 'needs_response', reason: 'fraudulent' }]
    }
  }), {
    status: 'suspended',
    amounts: { captured: 1000, refunded: 100, reversed: 0 },
    providerIds: { payment_intent: 'pi_1', checkout_session: 'cs_1', charge: 'ch_1', refund: 're_1', dispute: 'dp_1' },
    disputes: [{ id: 'dp_1', state: 'open', amount: 900, reason: 'fraudulent' }]
  })
})

t.test('the state reader: when an authorization lapses, and the refunds Stripe has not settled yet', async (t) => {
  const reader = new StripeStateReader()
  const held = { id: 'pi_2', currency: 'usd', status: 'requires_capture', created: 1_800_000_000 }
  t.equal(reader.read({ details: held })?.authorizationExpiresAt, new Date((1_800_000_000 + 7 * 86400) * 1000).toISOString(), '7 days after the PaymentIntent was created')
  t.equal(reader.read({ details: { ...held, latest_charge: { id: 'ch_2', capture_before: 1_800_100_000 } } })?.authorizationExpiresAt,
    new Date(1_800_100_000 * 1000).toISOString(), 'the charge\'s capture_before when Stripe gives it')
  t.equal(reader.read({ details: { ...held, created: undefined } })?.authorizationExpiresAt, undefined, 'a record stored before Paywire kept the time')
  t.equal(reader.read({ details: { ...held, status: 'succeeded', amount_received: 100 } })?.authorizationExpiresAt, undefined, 'captured: nothing to lapse')
  const refunds = [{ id: 're_1', amount: 10, status: 'pending' }, { id: 're_2', amount: 10, status: 'requires_action' }, { id: 're_3', amount: 10, status: 'succeeded' }, { id: 're_4', amount: 10, status: 'failed' }]
  const paid = { id: 'pi_3', currency: 'usd', status: 'succeeded', amount_received: 1000, refunds, paywire_refunds: [{ state: 'sent' }, { state: 'made' }, { state: 'refused' }] }
  t.equal(reader.read({ details: paid })?.refundsPending, 3, 'two Stripe has not settled, one whose answer was lost')
  t.notOk('refundsPending' in (reader.read({ details: { ...paid, refunds: [], paywire_refunds: [] } }) ?? {}), 'none pending: no field')
})

t.test('idempotency keys: <payment>:<operation>:<sequence>, reused while open, the next sequence once answered', async (t) => {
  const record: Record<string, any> = { paywire_payment: 'pay-1' }
  t.equal(openKey(record, 'capture'), 'pay-1:capture:1')
  t.equal(openKey(record, 'capture'), 'pay-1:capture:1', 'a retry after a lost answer')
  closeKey(record, 'capture')
  t.equal(openKey(record, 'capture'), 'pay-1:capture:2')
  t.equal(nextRefundKey(record), 'pay-1:refund:1')
  t.equal(nextRefundKey(record), 'pay-1:refund:2')
  const bare: Record<string, any> = {}
  closeKey(bare, 'capture')
  t.match(openKey(bare, 'checkout_session'), /^[\da-f-]{36}:checkout_session:1$/, 'details without a Payment get a key of their own, kept')
  t.equal(bare.paywire_key, openKey(bare, 'checkout_session').split(':')[0])
  for (let n = 0; n < 60; n++) rememberEvent(record, `evt_${n}`)
  t.equal(record.paywire_webhook_events.length, 50)
  t.ok(seenEvent(record, 'evt_59') && !seenEvent(record, 'evt_9'))
  t.notOk(seenEvent(undefined, 'evt_1'))
  t.same(mergeById([{ id: 'a', status: 'pending' }], [{ id: 'b', created: 2 }, { id: 'a', status: 'succeeded', created: 1 }]),
    [{ id: 'a', status: 'succeeded', created: 1 }, { id: 'b', created: 2 }])
  t.equal(paymentIntentIdOf({ object: 'charge', payment_intent: { id: 'pi_2' } }), 'pi_2')
  t.equal(paymentIntentIdOf({ object: 'charge', payment_intent: null }), undefined)
  t.equal(paymentIntentIdOf(null), undefined)
})

t.test('views: a move Stripe makes after a local end is taken and logged; a backwards one is kept out', async (t) => {
  const warnings: unknown[] = []
  const logger = Object.assign(new NullLogger(), { warn: (fields: unknown) => { warnings.push(fields) } })
  const views = new StripeViews(new StatusTransitions(), logger, new StripeConfig('card', { secret_key: 'sk_test_units' }))
  const canceled: Record<string, any> = { paywire_state: 'canceled', checkout_session: { id: 'cs_1', status: 'expired' } }
  t.equal(views.take(canceled, { id: 'pi_1', status: 'succeeded', amount_received: 1000, currency: 'usd' }, 'webhook'), 'overrule')
  t.equal(canceled.paywire_state, undefined)
  t.equal(stripeStatus(canceled), 'captured')
  t.match(warnings, [{ stripe: { gateway: 'card', paymentIntent: 'pi_1', from: 'canceled', to: 'captured', source: 'webhook' } }])
  t.equal(views.take(canceled, { status: 'requires_payment_method' }, 'sync'), 'keep')
  t.equal(canceled.status, 'succeeded', 'kept out')
  t.same(canceled.paywire_provider_view, { status: 'expired', amounts: { captured: 1000, refunded: 0, reversed: 0 } }, 'a Sync against the money: remembered for money.mismatch')
  t.match(new StripeStateReader().read({ details: canceled }), { status: 'captured', providerView: { status: 'expired' } })
  t.equal(views.take(canceled, { status: 'succeeded' }, 'sync'), 'apply')
  t.notOk('paywire_provider_view' in canceled, 'forgotten once Stripe agrees')
  const ended: Record<string, any> = { id: 'pi_2', status: 'canceled', cancellation_reason: 'requested_by_customer' }
  t.equal(views.take(ended, { id: 'pi_2', status: 'requires_payment_method' }, 'sync'), 'keep', 'canceled, and Stripe reads it as waiting for the buyer')
  t.notOk('paywire_provider_view' in ended, 'no money on either side: no disagreement to report')
})

t.test('locating an event: by the payment its object names, else by its PaymentIntent; nothing for another integration\'s event without money', async (t) => {
  const event = (type: string, object: Record<string, unknown>) => ({ id: 'evt_1', type, data: { object } }) as never
  const session = locateEvent(event('checkout.session.completed', { object: 'checkout.session', id: 'cs_1', client_reference_id: 'pay-1', metadata: {}, payment_intent: 'pi_1', amount_total: 1500, currency: 'eur' }), 'card')
  t.same(session.resourceIds, { payment_intent: 'pi_1', checkout_session: 'cs_1' })
  t.same(session.amount, { value: '1500', currency: 'eur' })
  t.match(session.lookups, [{ id: 'pay-1' }, { criteria: { 'details.id': 'pi_1' } }])
  const accept = (session.lookups[0] as { accept: (model: object) => boolean }).accept
  t.ok(accept(Object.assign(new Payment(), { gatewayName: 'card' })), 'no PaymentIntent on record yet')
  t.ok(accept(Object.assign(new Payment(), { gatewayName: 'card', details: { id: 'pi_1' } })))
  t.notOk(accept(Object.assign(new Payment(), { gatewayName: 'card', details: { id: 'pi_other' } })), 'another PaymentIntent: not this payment')
  t.notOk(accept(Object.assign(new Payment(), { gatewayName: 'paypal' })), 'another gateway\'s payment')
  t.same(locateEvent(event('payment_intent.created', { object: 'payment_intent', id: 'pi_9', metadata: {} }), 'card'), { resourceIds: {}, lookups: [] })
  const unnamed = locateEvent(event('charge.dispute.created', { id: 'du_1', payment_intent: 'pi_1', charge: 'ch_1', amount: 10 }), 'card')
  t.same(unnamed.resourceIds, { payment_intent: 'pi_1', object: 'du_1', charge: 'ch_1' })
  t.equal(unnamed.amount, undefined, 'no currency: no amount')
})

t.test('what a record keeps of Stripe\'s objects: no card or billing details', async (t) => {
  t.same(chargeView('ch_1'), { id: 'ch_1' }, 'not expanded: its id')
  t.equal(chargeView(null), null)
  t.match(chargeView({ id: 'ch_2', status: 'failed', outcome: null, billing_details: { email: 'payer@example.com' }, payment_method_details: { card: { last4: '4242' } } } as never), { id: 'ch_2', outcome: null })
  t.notMatch(JSON.stringify(chargeView({ id: 'ch_3', outcome: { type: 'authorized' }, billing_details: { email: 'payer@example.com' } } as never)), /payer@|4242/)
  t.same(errorView({ type: 'invalid_request_error' } as never), { type: 'invalid_request_error', code: null, decline_code: null, message: null })
  t.equal(errorView(undefined), null)
})

t.test('the SDK\'s HTTP layer reads whole answers: a stream is never asked for, the raw response is a fresh object', async (t) => {
  const simulator = buildStripeSimulator()
  t.teardown(() => simulator.close())
  await simulator.listen({ port: 0, host: '127.0.0.1' })
  const http = new UndiciHttpClient()
  t.teardown(() => http.close())
  const adapter = new StripeHttpAdapter(http, new NullLogger())
  t.equal(adapter.getClientName(), 'paywire')
  const response = await adapter.makeRequest('127.0.0.1', new URL(simulator.listeningOrigin).port, '/v1/payment_intents/pi_missing', 'GET',
    { Authorization: 'Bearer sk_test_simulator', Accept: ['application/json'] }, '', 'http', 1000)
  t.equal(response.getStatusCode(), 404)
  t.match(await response.toJSON(), { error: { code: 'resource_missing' } })
  t.same(response.getRawResponse(), {})
  t.throws(() => response.toStream(), /streaming is not used/)
})
