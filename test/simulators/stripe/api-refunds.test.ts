import t from 'tap'
import type Stripe from 'stripe'
import { call, startSimulator } from './helpers.ts'

/* Refunds and disputes through the official SDK and the simulator's controls. */

t.test('refunds and disputes', async (t) => {
  const { app, stripe, origin } = await startSimulator(t)
  const paid = async (amount = 5000, capture: 'automatic' | 'manual' = 'automatic'): Promise<Stripe.PaymentIntent> =>
    await stripe.paymentIntents.create({ amount, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, capture_method: capture })
  const typesFor = (id: string): string[] => app.simulator.events().filter((event) => {
    const object = event.data.object as { id: string, charge?: string }
    return object.id === id || object.charge === id
  }).map((event) => event.type)

  t.test('partial then full refunds by payment_intent and charge; never more than remains', async (t) => {
    const intent = await paid()
    const first = await stripe.refunds.create({ payment_intent: intent.id, amount: 1500, reason: 'requested_by_customer', metadata: { ticket: '12' }, expand: ['charge'] })
    t.match(first, { object: 'refund', status: 'succeeded', amount: 1500, currency: 'eur', reason: 'requested_by_customer', metadata: { ticket: '12' }, payment_intent: intent.id, charge: { id: intent.latest_charge, amount_refunded: 1500, refunded: false } })
    t.match(first.id, /^re_/)
    const tooMuch = await stripe.refunds.create({ charge: intent.latest_charge as string, amount: 3501 }).catch((error: Stripe.errors.StripeError) => error)
    t.match(tooMuch, { code: 'amount_too_large', param: 'amount' })
    const rest = await stripe.refunds.create({ charge: intent.latest_charge as string })
    t.equal(rest.amount, 3500, 'no amount refunds what remains')
    t.match(await stripe.charges.retrieve(intent.latest_charge as string), { amount_refunded: 5000, refunded: true })
    t.match(await stripe.refunds.create({ payment_intent: intent.id }).catch((error: Stripe.errors.StripeError) => error), { code: 'charge_already_refunded' })
    t.same((await stripe.refunds.list({ payment_intent: intent.id })).data.map((refund) => refund.id), [rest.id, first.id])
    t.same((await stripe.refunds.list({ charge: intent.latest_charge as string, limit: 1 })).data.map((refund) => refund.id), [rest.id])
    t.equal((await stripe.refunds.retrieve(first.id)).amount, 1500)
    t.same(typesFor(intent.latest_charge as string).filter((type) => type.includes('refund')), ['refund.created', 'charge.refunded', 'refund.created', 'charge.refunded'])
  })

  t.test('a partly captured charge refunds only what was captured', async (t) => {
    const intent = await paid(4000, 'manual')
    await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 2500 })
    t.match(await stripe.refunds.create({ payment_intent: intent.id, amount: 2501 }).catch((error: Stripe.errors.StripeError) => error), { code: 'amount_too_large' })
    t.equal((await stripe.refunds.create({ payment_intent: intent.id })).amount, 2500)
  })

  t.test('refused refunds', async (t) => {
    const held = await paid(1000, 'manual')
    t.match(await stripe.refunds.create({ payment_intent: held.id }).catch((error: Stripe.errors.StripeError) => error), { code: 'charge_not_refundable', param: 'payment_intent' })
    t.match(await stripe.refunds.create({ charge: held.latest_charge as string }).catch((error: Stripe.errors.StripeError) => error), { code: 'charge_not_refundable' })
    const open = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
    t.match(await stripe.refunds.create({ payment_intent: open.id }).catch((error: Stripe.errors.StripeError) => error), { code: 'charge_not_refundable' })
    t.match(await stripe.refunds.create({}).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_missing', param: 'charge' })
    t.match(await stripe.refunds.create({ charge: 'ch_x', payment_intent: 'pi_x' }).catch((error: Stripe.errors.StripeError) => error), { code: 'parameters_exclusive' })
    t.match(await stripe.refunds.create({ charge: 'ch_nope' }).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, param: 'charge' })
    t.match(await stripe.refunds.create({ payment_intent: 'pi_nope' }).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, param: 'payment_intent' })
    t.match(await stripe.refunds.retrieve('re_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404 })
    const intent = await paid(1000)
    t.match((await call(origin, 'POST', '/v1/refunds', { payment_intent: intent.id, amount: '0' })).body, { error: { param: 'amount' } })
    t.match(await stripe.refunds.create({ payment_intent: intent.id, reason: 'because' as 'duplicate' }).catch((error: Stripe.errors.StripeError) => error), { param: 'reason' })
  })

  t.test('pending refunds settle later: succeeded, failed (the money comes back) or canceled', async (t) => {
    const intent = await paid(3000)
    app.simulator.refunds.nextOutcome('pending', 3)
    const settling = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 })
    t.equal(settling.status, 'pending')
    t.equal((await stripe.charges.retrieve(intent.latest_charge as string)).amount_refunded, 1000, 'a pending refund counts on the charge')
    t.match(app.simulator.refunds.settle(settling.id, 'succeeded'), { status: 'succeeded' })
    const failing = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 })
    t.match(app.simulator.refunds.settle(failing.id, 'failed', 'lost_or_stolen_card'), { status: 'failed', failure_reason: 'lost_or_stolen_card' })
    const canceling = await stripe.refunds.create({ payment_intent: intent.id, amount: 1000 })
    t.match(app.simulator.refunds.settle(canceling.id, 'canceled'), { status: 'canceled' })
    t.match(await stripe.charges.retrieve(intent.latest_charge as string), { amount_refunded: 1000, refunded: false })
    t.throws(() => app.simulator.refunds.settle(settling.id, 'failed'), /not pending/)
    t.same(typesFor(failing.id), ['refund.created', 'refund.updated', 'refund.failed', 'charge.refund.updated'])
    const updated = app.simulator.events().find((event) => event.type === 'refund.updated' && (event.data.object as Stripe.Refund).id === canceling.id)
    t.same(updated?.data.previous_attributes, { status: 'pending' })
  })

  t.test('a refund made to fail starts pending and fails at once', async (t) => {
    const intent = await paid(2000)
    app.simulator.refunds.nextOutcome('failed')
    const refund = await stripe.refunds.create({ payment_intent: intent.id })
    t.equal(refund.status, 'pending', 'the answer shows it pending')
    t.match(await stripe.refunds.retrieve(refund.id), { status: 'failed', failure_reason: 'expired_or_canceled_card' })
    t.equal((await stripe.charges.retrieve(intent.latest_charge as string)).amount_refunded, 0)
  })

  t.test('a chargeback: opened, evidence, won; the charge reads disputed and cannot be refunded', async (t) => {
    const intent = await paid(6000)
    const chargeId = intent.latest_charge as string
    const opened = app.simulator.disputes.open(chargeId, { reason: 'product_not_received' })
    t.match(opened, { object: 'dispute', status: 'needs_response', amount: 6000, currency: 'eur', reason: 'product_not_received', charge: chargeId, payment_intent: intent.id, is_charge_refundable: false, evidence_details: { has_evidence: false, submission_count: 0 } })
    t.match(opened.id, /^dp_/)
    t.equal((await stripe.charges.retrieve(chargeId)).disputed, true)
    t.match(await stripe.refunds.create({ charge: chargeId }).catch((error: Stripe.errors.StripeError) => error), { code: 'charge_disputed' })
    t.throws(() => app.simulator.disputes.open(chargeId), /already disputed/)
    const reviewed = app.simulator.disputes.update(opened.id, { status: 'under_review', evidence: { uncategorized_text: 'Delivered on time' }, metadata: { case: '1' } })
    t.match(reviewed, { status: 'under_review', evidence: { uncategorized_text: 'Delivered on time' }, evidence_details: { has_evidence: true, submission_count: 1 }, metadata: { case: '1' } })
    t.match(app.simulator.disputes.update(opened.id, {}), { status: 'under_review' })
    t.match(app.simulator.disputes.close(opened.id, 'won'), { status: 'won' })
    const retrieved = await stripe.disputes.retrieve(opened.id, { expand: ['charge'] })
    t.match(retrieved, { status: 'won', charge: { id: chargeId, disputed: true } })
    t.same(typesFor(opened.id), ['charge.dispute.created', 'charge.dispute.funds_withdrawn', 'charge.dispute.updated', 'charge.dispute.updated', 'charge.dispute.closed', 'charge.dispute.funds_reinstated'])
    t.match(await stripe.disputes.close(opened.id).catch((error: Stripe.errors.StripeError) => error), { statusCode: 400, message: /already closed/ })
  })

  t.test('a chargeback accepted through the API is lost; an inquiry ends warning_closed and allows a refund', async (t) => {
    const lost = await paid(700)
    const dispute = app.simulator.disputes.open(lost.latest_charge as string, { amount: 500 })
    t.match(await stripe.disputes.close(dispute.id), { status: 'lost', amount: 500 })
    t.same(typesFor(dispute.id).slice(-1), ['charge.dispute.closed'])
    const asked = await paid(800)
    const inquiry = app.simulator.disputes.open(asked.latest_charge as string, { inquiry: true })
    t.match(inquiry, { status: 'warning_needs_response', is_charge_refundable: true })
    t.equal((await stripe.refunds.create({ payment_intent: asked.id })).status, 'succeeded', 'an inquiry does not block refunds')
    t.match(app.simulator.disputes.close(inquiry.id, 'won'), { status: 'warning_closed' })
    t.same(typesFor(inquiry.id), ['charge.dispute.created', 'charge.dispute.closed'], 'an inquiry moves no funds')
    t.same((await stripe.disputes.list({ payment_intent: asked.id })).data.map((item) => item.id), [inquiry.id])
    t.same((await stripe.disputes.list({ charge: lost.latest_charge as string })).data.map((item) => item.id), [dispute.id])
    t.equal((await stripe.disputes.list({ limit: 100 })).data.length, 3)
    t.match(await stripe.disputes.retrieve('dp_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404 })
    t.throws(() => app.simulator.disputes.open('ch_nope'), /not a captured charge/)
    t.throws(() => app.simulator.disputes.update('dp_nope', {}), /No such dispute/)
  })
})
