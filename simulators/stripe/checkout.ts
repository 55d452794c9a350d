import type Stripe from 'stripe'
import { noSuch, StripeApiError, invalidRequest } from './errors.ts'
import type { EventLog, EventOrigin } from './events.ts'
import { AUTOMATIC } from './events.ts'
import { newSessionId } from './ids.ts'
import type { PaymentsEngine } from './payments.ts'
import type { IntentRecord, SessionItem, SessionRecord, Store } from './store.ts'

/*
 * Checkout Sessions in `payment` mode (https://docs.stripe.com/api/checkout/sessions/object).
 * A session is `open` until the buyer pays on its hosted `url` (`complete`,
 * checkout.session.completed) or it expires (`expired`, checkout.session.expired): by default 24
 * hours after creation, or at `expires_at`, 30 minutes to 24 hours ahead, or when expired through
 * the API (https://docs.stripe.com/payments/checkout/managing-limited-inventory). The session's
 * PaymentIntent is created when the buyer first submits a payment (`payment_intent` is null until
 * then) from `payment_intent_data`; a declined buyer retries on the same PaymentIntent. A manual
 * capture completes the session with `payment_status: unpaid` until it is captured.
 */

export interface SessionInit {
  items: SessionItem[]
  currency: string
  successUrl: string | null
  cancelUrl: string | null
  clientReferenceId: string | null
  customerEmail: string | null
  metadata: Record<string, string>
  expiresAt: number | undefined
  intentData: SessionRecord['intentData']
}

export type PayResult = 'paid' | 'declined' | 'challenge'

export interface CheckoutEngine {
  get: (id: string) => SessionRecord
  create: (init: SessionInit) => SessionRecord
  expire: (record: SessionRecord, origin: EventOrigin) => void
  /** The buyer submits the hosted page with a test payment method. */
  pay: (record: SessionRecord, paymentMethod: string, email: string | null) => PayResult
  sweep: () => void
}

function newSession (id: string, init: SessionInit, created: number, expiresAt: number, url: string): Stripe.Checkout.Session {
  const total = init.items.reduce((sum, item) => sum + item.unitAmount * item.quantity, 0)
  return {
    id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: total,
    amount_total: total,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: init.cancelUrl,
    client_reference_id: init.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created,
    currency: init.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: null,
    customer_account: null,
    customer_creation: 'if_required',
    customer_details: init.customerEmail === null ? null : { address: null, business_name: null, email: init.customerEmail, individual_name: null, name: null, phone: null, tax_exempt: 'none', tax_ids: null },
    customer_email: init.customerEmail,
    discounts: [],
    expires_at: expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: init.metadata,
    mode: 'payment',
    origin_context: null,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: 'unpaid',
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: 'open',
    submit_type: null,
    subscription: null,
    success_url: init.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url,
    wallet_options: null
  }
}

export function createCheckout (store: Store, events: EventLog, payments: PaymentsEngine, baseUrl: () => string): CheckoutEngine {
  function complete (record: SessionRecord, intent: Stripe.PaymentIntent, origin: EventOrigin): void {
    const { session } = record
    session.status = 'complete'
    session.payment_status = intent.status === 'succeeded' ? 'paid' : 'unpaid'
    const email = store.charges.get(intent.latest_charge as string)?.billing_details.email ?? session.customer_email
    session.customer_details = { address: null, business_name: null, email, individual_name: null, name: null, phone: null, tax_exempt: 'none', tax_ids: [] }
    session.url = null
    store.counters.sessionsCompleted++
    events.emit('checkout.session.completed', session, origin)
  }

  payments.onOutcome((intentRecord: IntentRecord, origin: EventOrigin) => {
    const record = intentRecord.sessionId === undefined ? undefined : store.sessions.get(intentRecord.sessionId)
    if (record === undefined) return
    const { intent } = intentRecord
    const { session } = record
    if (session.status === 'open' && ['succeeded', 'requires_capture', 'processing'].includes(intent.status)) complete(record, intent, origin)
    else if (session.status === 'complete' && session.payment_status === 'unpaid' && intent.status !== 'requires_capture') {
      // An asynchronous payment settled after the session completed
      // (https://docs.stripe.com/checkout/fulfillment: checkout.session.async_payment_succeeded / _failed).
      const paid = intent.status === 'succeeded'
      if (paid) session.payment_status = 'paid'
      events.emit(paid ? 'checkout.session.async_payment_succeeded' : 'checkout.session.async_payment_failed', session, origin)
    }
  })

  function expire (record: SessionRecord, origin: EventOrigin): void {
    record.session.status = 'expired'
    record.session.url = null
    store.counters.sessionsExpired++
    events.emit('checkout.session.expired', record.session, origin)
  }

  return {
    get (id) {
      const record = store.sessions.get(id)
      if (record === undefined) throw noSuch('checkout.session', id, 'session')
      return record
    },
    create (init) {
      const id = newSessionId()
      const created = store.clock.unix()
      const expiresAt = init.expiresAt ?? created + store.config.sessionTtlSeconds
      const record: SessionRecord = { session: newSession(id, init, created, expiresAt, `${baseUrl()}/c/pay/${id}`), items: init.items, intentData: init.intentData }
      store.sessions.set(id, record)
      store.counters.sessionsCreated++
      // No event: Stripe has no checkout.session.created type (https://docs.stripe.com/api/events/types).
      return record
    },
    expire (record, origin) {
      if (record.session.status !== 'open') {
        throw invalidRequest(`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${record.session.status as string}".`)
      }
      expire(record, origin)
    },
    pay (record, paymentMethod, email) {
      const { session } = record
      if (session.status !== 'open') throw new Error(`Checkout Session ${session.id} is ${session.status as string}, not open`)
      let intentRecord = session.payment_intent === null ? undefined : store.intents.get(session.payment_intent as string)
      if (intentRecord === undefined) {
        intentRecord = payments.create({
          amount: session.amount_total as number,
          currency: session.currency as string,
          captureMethod: record.intentData.captureMethod,
          metadata: record.intentData.metadata,
          description: record.intentData.description,
          paymentMethodTypes: ['card'],
          created: store.clock.unix()
        }, AUTOMATIC, session.id)
        session.payment_intent = intentRecord.intent.id
      }
      record.notice = undefined
      try {
        payments.confirm(intentRecord, paymentMethod, AUTOMATIC, { email: email ?? session.customer_email })
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error
        record.notice = error.message
        return 'declined'
      }
      return intentRecord.intent.status === 'requires_action' ? 'challenge' : 'paid'
    },
    sweep () {
      const now = store.clock.unix()
      for (const record of store.sessions.values()) {
        if (record.session.status === 'open' && record.session.expires_at <= now) expire(record, AUTOMATIC)
      }
    }
  }
}
