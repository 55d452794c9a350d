import type Stripe from 'stripe'
import { testCard } from './cards.ts'
import type { Decline, TestCard } from './cards.ts'
import { invalidRequest, missingParam, noSuch, StripeApiError, unexpectedState } from './errors.ts'
import type { EventLog, EventOrigin } from './events.ts'
import { AUTOMATIC } from './events.ts'
import { newId } from './ids.ts'
import { newCharge, newPaymentIntent } from './objects.ts'
import type { IntentInit } from './objects.ts'
import type { IntentRecord, Store } from './store.ts'

/*
 * The PaymentIntent lifecycle (https://docs.stripe.com/payments/paymentintents/lifecycle):
 * requires_payment_method → requires_confirmation → (requires_action for 3D Secure,
 * https://docs.stripe.com/payments/3d-secure/authentication-flow) → processing → succeeded, or
 * requires_capture for manual capture (https://docs.stripe.com/payments/capture-later), or
 * canceled. A declined attempt returns to requires_payment_method with `last_payment_error`
 * (https://docs.stripe.com/declines/codes). Each attempt makes a Charge (`latest_charge`).
 */

export type SettleOutcome = 'succeeded' | 'failed'

export interface PaymentsEngine {
  get: (id: string, param?: string) => IntentRecord
  create: (init: IntentInit, origin: EventOrigin, sessionId?: string) => IntentRecord
  attach: (record: IntentRecord, paymentMethod: string) => void
  confirm: (record: IntentRecord, paymentMethod: string | undefined, origin: EventOrigin, options?: { returnUrl?: string, email?: string | null }) => void
  /** The buyer passes or fails the 3D Secure challenge of a `requires_action` PaymentIntent. */
  authenticate: (record: IntentRecord, pass: boolean, origin: EventOrigin) => void
  capture: (record: IntentRecord, amountToCapture: number | undefined, origin: EventOrigin) => void
  cancel: (record: IntentRecord, reason: Stripe.PaymentIntent.CancellationReason | null, origin: EventOrigin) => void
  /** A `processing` PaymentIntent's payment clears or fails. */
  settle: (record: IntentRecord, outcome: SettleOutcome) => void
  /** The next `count` successful confirmations stay `processing` until `settle`. */
  processNext: (count?: number) => void
  /** Cancels authorizations older than the window (https://docs.stripe.com/payments/capture-later). */
  sweep: () => void
  /** Called after each attempt's outcome: the Checkout Session completes on it. */
  onOutcome: (listener: (record: IntentRecord, origin: EventOrigin) => void) => void
}

const CONFIRMABLE = ['requires_payment_method', 'requires_confirmation', 'requires_action']
const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing']

export function createPayments (store: Store, events: EventLog, baseUrl: () => string): PaymentsEngine {
  const listeners: Array<(record: IntentRecord, origin: EventOrigin) => void> = []
  let processingCount = 0

  const charge = (record: IntentRecord): Stripe.Charge => store.charges.get(record.intent.latest_charge as string) as Stripe.Charge
  const emitIntent = (type: string, record: IntentRecord, origin: EventOrigin): void => { events.emit(type, record.intent, origin) }
  const outcome = (record: IntentRecord, origin: EventOrigin): void => { for (const listener of listeners) listener(record, origin) }

  /** The attempt's charge failed: the PaymentIntent wants another payment method. */
  function fail (record: IntentRecord, failed: Stripe.Charge, failure: Decline, origin: EventOrigin): void {
    const { intent } = record
    intent.latest_charge = failed.id
    intent.status = 'requires_payment_method'
    intent.payment_method = null
    intent.next_action = null
    intent.processing = null
    intent.last_payment_error = { type: 'card_error', code: failure.code, decline_code: failure.decline_code, message: failure.message, charge: failed.id, doc_url: `https://docs.stripe.com/error-codes/${failure.code.replaceAll('_', '-')}`, payment_method_type: 'card' }
    record.challenged = undefined
    store.counters.declines++
    events.emit('charge.failed', failed, origin)
    emitIntent('payment_intent.payment_failed', record, origin)
    outcome(record, origin)
  }

  function decline (record: IntentRecord, card: TestCard, pm: string, failure: Decline, origin: EventOrigin, email: string | null | undefined): never {
    const failed = newCharge(record.intent, card, pm, { decline: failure, email }, store.clock.unix(), 0)
    store.charges.set(failed.id, failed)
    fail(record, failed, failure, origin)
    // A declined confirmation answers 402 card_error with the PaymentIntent (https://docs.stripe.com/api/errors).
    throw new StripeApiError(402, { type: 'card_error', code: failure.code, decline_code: failure.decline_code, message: failure.message, charge: failed.id, payment_intent: structuredClone(record.intent) })
  }

  function attempt (record: IntentRecord, card: TestCard, pm: string, origin: EventOrigin, email: string | null | undefined): void {
    const { intent } = record
    if (card.decline !== undefined) decline(record, card, pm, card.decline, origin, email)
    const pending = processingCount > 0
    if (pending) processingCount--
    const now = store.clock.now()
    const captureBefore = Math.floor(now / 1000) + store.config.authorizationTtlSeconds
    const made = newCharge(intent, card, pm, { pending, email }, Math.floor(now / 1000), captureBefore)
    store.charges.set(made.id, made)
    intent.latest_charge = made.id
    intent.last_payment_error = null
    intent.next_action = null
    record.challenged = undefined
    if (pending) {
      intent.status = 'processing'
      intent.processing = { type: 'card' }
      events.emit('charge.pending', made, origin)
      emitIntent('payment_intent.processing', record, origin)
    } else {
      events.emit('charge.succeeded', made, origin)
      authorized(record, origin)
    }
    outcome(record, origin)
  }

  /** The charge went through: captured now, or held for a manual capture. */
  function authorized (record: IntentRecord, origin: EventOrigin): void {
    const { intent } = record
    intent.processing = null
    if (intent.capture_method === 'manual') {
      record.authorizedAt = store.clock.now()
      intent.status = 'requires_capture'
      intent.amount_capturable = intent.amount
      emitIntent('payment_intent.amount_capturable_updated', record, origin)
    } else {
      intent.status = 'succeeded'
      intent.amount_received = intent.amount
      emitIntent('payment_intent.succeeded', record, origin)
    }
  }

  /** An authorization released without capture: the charge is marked refunded (https://docs.stripe.com/api/payment_intents/cancel). */
  function release (record: IntentRecord, reason: Stripe.PaymentIntent.CancellationReason | null, origin: EventOrigin, expired: boolean): void {
    const { intent } = record
    if (intent.status === 'requires_capture') {
      const held = charge(record)
      held.amount_refunded = held.amount
      held.refunded = true
      events.emit(expired ? 'charge.expired' : 'charge.refunded', held, origin)
    }
    intent.status = 'canceled'
    intent.canceled_at = store.clock.unix()
    intent.cancellation_reason = reason
    intent.amount_capturable = 0
    intent.next_action = null
    intent.processing = null
    record.challenged = undefined
    store.counters.cancellations++
    emitIntent('payment_intent.canceled', record, origin)
  }

  function paymentMethodCard (pm: string): { id: string, card: TestCard } {
    const known = store.paymentMethods.get(pm)
    if (known !== undefined) return { id: pm, card: known }
    const card = testCard(pm)
    if (card === undefined) throw invalidRequest(`No such PaymentMethod: '${pm}'`, 'resource_missing', 'payment_method', 404)
    // Confirming with a test PaymentMethod such as pm_card_visa makes a new PaymentMethod (https://docs.stripe.com/testing).
    const id = newId('pm')
    store.paymentMethods.set(id, card)
    return { id, card }
  }

  return {
    get (id, param = 'intent') {
      const record = store.intents.get(id)
      if (record === undefined) throw noSuch('payment_intent', id, param)
      return record
    },
    create (init, origin, sessionId) {
      const record: IntentRecord = { intent: newPaymentIntent(init), ...(sessionId === undefined ? {} : { sessionId }) }
      store.intents.set(record.intent.id, record)
      store.counters.paymentIntentsCreated++
      emitIntent('payment_intent.created', record, origin)
      return record
    },
    attach (record, paymentMethod) {
      record.intent.payment_method = paymentMethodCard(paymentMethod).id
      record.intent.status = 'requires_confirmation'
    },
    confirm (record, paymentMethod, origin, options = {}) {
      const { intent } = record
      if (!CONFIRMABLE.includes(intent.status)) {
        throw unexpectedState(`You cannot confirm this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(', ')}.`)
      }
      const pmName = paymentMethod ?? intent.payment_method
      if (pmName === null || typeof pmName !== 'string') throw missingParam('payment_method')
      const { id: pm, card } = paymentMethodCard(pmName)
      intent.payment_method = pm
      if (options.returnUrl !== undefined) record.returnUrl = options.returnUrl
      store.counters.confirmations++
      if (card.requiresAuthentication) {
        record.challenged = card
        intent.status = 'requires_action'
        intent.next_action = { type: 'redirect_to_url', redirect_to_url: { url: `${baseUrl()}/3ds/${intent.id}`, return_url: record.returnUrl ?? null } }
        emitIntent('payment_intent.requires_action', record, origin)
        outcome(record, origin)
        return
      }
      attempt(record, card, pm, origin, options.email)
    },
    authenticate (record, pass, origin) {
      const { intent } = record
      const card = record.challenged
      if (intent.status !== 'requires_action' || card === undefined) throw unexpectedState(`This PaymentIntent has a status of ${intent.status}: there is no 3D Secure challenge to complete.`)
      const pm = intent.payment_method as string
      if (pass) {
        attempt(record, card, pm, origin, undefined)
        return
      }
      intent.status = 'requires_payment_method'
      intent.payment_method = null
      intent.next_action = null
      // https://docs.stripe.com/error-codes/payment-intent-authentication-failure
      intent.last_payment_error = { type: 'invalid_request_error', code: 'payment_intent_authentication_failure', message: 'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.', doc_url: 'https://docs.stripe.com/error-codes/payment-intent-authentication-failure', payment_method_type: 'card' }
      record.challenged = undefined
      emitIntent('payment_intent.payment_failed', record, origin)
      outcome(record, origin)
    },
    capture (record, amountToCapture, origin) {
      const { intent } = record
      if (intent.status !== 'requires_capture') {
        throw unexpectedState(`This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`)
      }
      const amount = amountToCapture ?? intent.amount_capturable
      if (amount > intent.amount_capturable) throw invalidRequest(`The amount to capture (${amount}) is greater than the amount capturable (${intent.amount_capturable}).`, 'amount_too_large', 'amount_to_capture')
      if (amount < 1) throw invalidRequest('Amount to capture must be greater than zero.', undefined, 'amount_to_capture')
      const held = charge(record)
      held.captured = true
      held.amount_captured = amount
      // What is not captured is released to the cardholder, as the uncaptured rest of a cancel is.
      held.amount_refunded = held.amount - amount
      intent.status = 'succeeded'
      intent.amount_received = amount
      intent.amount_capturable = 0
      store.counters.captures++
      events.emit('charge.captured', held, origin)
      emitIntent('payment_intent.succeeded', record, origin)
    },
    cancel (record, reason, origin) {
      if (!CANCELABLE.includes(record.intent.status)) {
        throw unexpectedState(`You cannot cancel this PaymentIntent because it has a status of ${record.intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`)
      }
      release(record, reason, origin, false)
    },
    settle (record, result) {
      if (record.intent.status !== 'processing') throw new Error(`PaymentIntent ${record.intent.id} is ${record.intent.status}, not processing`)
      const pending = charge(record)
      if (result === 'failed') {
        const failure: Decline = { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' }
        pending.status = 'failed'
        pending.paid = false
        pending.failure_code = failure.code
        pending.failure_message = failure.message
        pending.outcome = { ...pending.outcome as Stripe.Charge.Outcome, network_status: 'declined_by_network', reason: failure.decline_code, seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' }
        fail(record, pending, failure, AUTOMATIC)
        return
      }
      pending.status = 'succeeded'
      pending.paid = true
      if (record.intent.capture_method !== 'manual') {
        pending.captured = true
        pending.amount_captured = pending.amount
      }
      events.emit('charge.succeeded', pending, AUTOMATIC)
      authorized(record, AUTOMATIC)
      outcome(record, AUTOMATIC)
    },
    processNext (count = 1) { processingCount += count },
    sweep () {
      const now = store.clock.now()
      for (const record of store.intents.values()) {
        if (record.intent.status === 'requires_capture' && (record.authorizedAt as number) + store.config.authorizationTtlSeconds * 1000 <= now) {
          release(record, 'automatic', AUTOMATIC, true)
        }
      }
    },
    onOutcome (listener) { listeners.push(listener) }
  }
}
