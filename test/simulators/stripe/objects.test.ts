import t from 'tap'
import type { Test } from 'tap'
import type Stripe from 'stripe'
import { oneItem, startReceiver, startSimulator } from './helpers.ts'

/*
 * Every object the simulator returns carries the fields Stripe documents for its type and no
 * other: the top-level attributes of each object's API reference page (the `stripe` package's
 * types check the same at compile time). `always`: sent on every object; `sometimes`: the
 * reference's optional attributes the simulator sends in some states.
 */

const DOCUMENTED: Record<string, { always: string[], sometimes?: string[] }> = {
  // https://docs.stripe.com/api/payment_intents/object
  payment_intent: { always: ['id', 'object', 'allowed_payment_method_types', 'amount', 'amount_capturable', 'amount_received', 'application', 'application_fee_amount', 'automatic_payment_methods', 'canceled_at', 'cancellation_reason', 'capture_method', 'client_secret', 'confirmation_method', 'created', 'currency', 'customer', 'customer_account', 'description', 'excluded_payment_method_types', 'last_payment_error', 'latest_charge', 'livemode', 'managed_payments', 'metadata', 'next_action', 'on_behalf_of', 'payment_method', 'payment_method_configuration_details', 'payment_method_options', 'payment_method_types', 'payment_record', 'processing', 'receipt_email', 'review', 'setup_future_usage', 'shipping', 'source', 'statement_descriptor', 'statement_descriptor_suffix', 'status', 'transfer_group'], sometimes: ['transfer_data'] },
  // https://docs.stripe.com/api/charges/object
  charge: { always: ['id', 'object', 'amount', 'amount_captured', 'amount_refunded', 'application', 'application_fee', 'application_fee_amount', 'balance_transaction', 'billing_details', 'calculated_statement_descriptor', 'captured', 'created', 'currency', 'customer', 'description', 'disputed', 'failure_balance_transaction', 'failure_code', 'failure_message', 'fraud_details', 'livemode', 'metadata', 'on_behalf_of', 'outcome', 'paid', 'payment_intent', 'payment_method', 'payment_method_details', 'receipt_email', 'receipt_number', 'receipt_url', 'refunded', 'review', 'shipping', 'source', 'source_transfer', 'statement_descriptor', 'statement_descriptor_suffix', 'status', 'transfer_data', 'transfer_group'], sometimes: ['radar_options'] },
  // https://docs.stripe.com/api/refunds/object
  refund: { always: ['id', 'object', 'amount', 'balance_transaction', 'charge', 'created', 'currency', 'customer', 'customer_account', 'metadata', 'payment_intent', 'payment_method', 'reason', 'receipt_number', 'source_transfer_reversal', 'status', 'transfer_reversal'], sometimes: ['failure_reason'] },
  // https://docs.stripe.com/api/disputes/object
  dispute: { always: ['id', 'object', 'amount', 'balance_transactions', 'charge', 'created', 'currency', 'enhanced_eligibility_types', 'evidence', 'evidence_details', 'intended_submission_method', 'is_charge_refundable', 'livemode', 'metadata', 'payment_intent', 'reason', 'status'] },
  // https://docs.stripe.com/api/checkout/sessions/object
  'checkout.session': { always: ['id', 'object', 'adaptive_pricing', 'after_expiration', 'allow_promotion_codes', 'allowed_payment_method_types', 'amount_subtotal', 'amount_total', 'automatic_tax', 'billing_address_collection', 'cancel_url', 'client_reference_id', 'client_secret', 'collected_information', 'consent', 'consent_collection', 'created', 'currency', 'currency_conversion', 'custom_fields', 'custom_text', 'customer', 'customer_account', 'customer_creation', 'customer_details', 'customer_email', 'discounts', 'expires_at', 'integration_identifier', 'invoice', 'invoice_creation', 'livemode', 'locale', 'managed_payments', 'metadata', 'mode', 'origin_context', 'payment_intent', 'payment_link', 'payment_method_collection', 'payment_method_configuration_details', 'payment_method_options', 'payment_method_types', 'payment_status', 'permissions', 'recovered_from', 'saved_payment_method_options', 'setup_intent', 'shipping_address_collection', 'shipping_cost', 'shipping_options', 'status', 'submit_type', 'subscription', 'success_url', 'total_details', 'ui_mode', 'url', 'wallet_options'] },
  // https://docs.stripe.com/api/events/object
  event: { always: ['id', 'object', 'api_version', 'created', 'data', 'livemode', 'pending_webhooks', 'request', 'type'] },
  // https://docs.stripe.com/api/webhook_endpoints/object (secret: on create only)
  webhook_endpoint: { always: ['id', 'object', 'api_version', 'application', 'created', 'description', 'enabled_events', 'livemode', 'metadata', 'status', 'url'], sometimes: ['secret'] },
  // https://docs.stripe.com/api/pagination
  list: { always: ['object', 'data', 'has_more', 'url'] }
}

const PREFIX: Record<string, RegExp> = { payment_intent: /^pi_/, charge: /^ch_/, refund: /^re_/, dispute: /^dp_/, 'checkout.session': /^cs_test_/, event: /^evt_/, webhook_endpoint: /^we_/ }

function check (t: Test, object: Record<string, unknown>, where: string): void {
  const type = object.object as string
  const documented = DOCUMENTED[type]
  if (documented === undefined) {
    t.fail(`${where}: undocumented object type ${type}`)
    return
  }
  const keys = Object.keys(object).filter((key) => key !== 'lastResponse')
  t.same(keys.filter((key) => !documented.always.includes(key) && !(documented.sometimes ?? []).includes(key)), [], `${where}: ${type} has only documented fields`)
  t.same(documented.always.filter((key) => !keys.includes(key)), [], `${where}: ${type} has every field`)
  if (PREFIX[type] !== undefined) t.match(object.id, PREFIX[type], `${where}: ${type} id prefix`)
  if ('livemode' in object) t.equal(object.livemode, false)
  if ('created' in object) t.ok(Number.isInteger(object.created) && (object.created as number) < 1e11, `${where}: created in unix seconds`)
  if (typeof object.currency === 'string') t.match(object.currency, /^[a-z]{3}$/)
  if (type === 'list') for (const item of object.data as Array<Record<string, unknown>>) check(t, item, `${where}.data`)
  if (type === 'event') check(t, (object.data as { object: Record<string, unknown> }).object, `${where}.data.object`)
}

t.test('every object has the documented fields, and only those', async (t) => {
  const receiver = await startReceiver(t)
  const { app, stripe } = await startSimulator(t, { webhooks: [{ url: receiver.url }] })
  const answers: Array<[string, unknown]> = []
  const keep = <T>(where: string, value: T): T => { answers.push([where, value]); return value }

  const paid = keep('pi create', await stripe.paymentIntents.create({ amount: 5000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true }))
  keep('pi expanded', await stripe.paymentIntents.retrieve(paid.id, { expand: ['latest_charge'] }))
  const declined = await stripe.paymentIntents.create({ amount: 100, currency: 'eur', payment_method: 'pm_card_chargeDeclined', confirm: true }).then(() => { throw new Error('not declined') }, (error: Stripe.errors.StripeCardError) => error)
  keep('card error payment_intent', declined.payment_intent)
  const held = keep('pi manual', await stripe.paymentIntents.create({ amount: 900, currency: 'eur', capture_method: 'manual', payment_method: 'pm_card_visa', confirm: true }))
  keep('pi capture', await stripe.paymentIntents.capture(held.id, { amount_to_capture: 400 }))
  keep('pi 3ds', await stripe.paymentIntents.create({ amount: 900, currency: 'eur', payment_method: 'pm_card_authenticationRequired', confirm: true }))
  keep('charges list', await stripe.charges.list({ limit: 100 }))
  const session = keep('session create', await stripe.checkout.sessions.create({ mode: 'payment', line_items: oneItem(), success_url: 'https://shop.example/ok' }))
  app.simulator.checkout.pay(session.id)
  keep('session expanded', await stripe.checkout.sessions.retrieve(session.id, { expand: ['payment_intent'] }))
  keep('sessions list', await stripe.checkout.sessions.list())
  app.simulator.refunds.nextOutcome('failed')
  keep('refund', await stripe.refunds.create({ payment_intent: paid.id, amount: 100, expand: ['charge'] }))
  keep('refunds list', await stripe.refunds.list())
  const dispute = app.simulator.disputes.open(paid.latest_charge as string, { amount: 1000 })
  app.simulator.disputes.update(dispute.id, { evidence: { uncategorized_text: 'x' } })
  keep('dispute close', await stripe.disputes.close(dispute.id, { expand: ['charge'] }))
  keep('disputes list', await stripe.disputes.list())
  keep('endpoint create', await stripe.webhookEndpoints.create({ url: receiver.url, enabled_events: ['*'] }))
  keep('endpoints list', await stripe.webhookEndpoints.list())
  keep('events list', await stripe.events.list({ limit: 100 }))
  await app.simulator.webhooks.waitForIdle()

  for (const [where, value] of answers) check(t, value as Record<string, unknown>, where)
  const events = app.simulator.events()
  t.ok(events.length > 20)
  for (const event of events) check(t, event as unknown as Record<string, unknown>, `event ${event.type}`)
  t.equal(receiver.received.length, events.length)
  for (const delivery of receiver.received) check(t, JSON.parse(delivery.body) as Record<string, unknown>, 'delivery')
  t.same([...new Set(events.map((event) => event.type))].sort(), [
    'charge.captured', 'charge.dispute.closed', 'charge.dispute.created', 'charge.dispute.funds_withdrawn', 'charge.dispute.updated',
    'charge.failed', 'charge.refund.updated', 'charge.refunded', 'charge.succeeded', 'checkout.session.completed',
    'payment_intent.amount_capturable_updated', 'payment_intent.created', 'payment_intent.payment_failed', 'payment_intent.requires_action',
    'payment_intent.succeeded', 'refund.created', 'refund.failed', 'refund.updated'
  ])
})
