import { randomUUID } from 'node:crypto'
import type Stripe from 'stripe'
import { ArrayObject } from '../../plugins/core/engine/index.ts'

/**
 * A Stripe payment as its Payment's `details` hold it: what Paywire asked for (`amount`,
 * `currency` in Stripe's units, `capture_method`, `description`), Stripe's PaymentIntent as last
 * read (`id` = `pi_…`, `status`, `amount_received`…, its `latest_charge`), the Checkout Session
 * (`checkout_session`), the refunds and disputes Stripe lists, and Paywire's bookkeeping under
 * `paywire_*` keys (idempotency keys, refund intents, processed webhook events). Only the
 * fields Paywire reads are kept: no card details, no billing details, no client secret.
 */
export type StripeRecord = Record<string, any>

export function recordOf (model: unknown): StripeRecord | undefined {
  return model instanceof ArrayObject ? model.data : undefined
}

export interface ErrorView { type: string | null, code: string | null, decline_code: string | null, message: string | null }

export function errorView (error: Stripe.PaymentIntent.LastPaymentError | null | undefined): ErrorView | null {
  if (error === null || error === undefined) return null
  return { type: error.type ?? null, code: error.code ?? null, decline_code: error.decline_code ?? null, message: error.message ?? null }
}

/** https://docs.stripe.com/api/charges/object */
export function chargeView (charge: Stripe.Charge | string | null): StripeRecord | null {
  if (charge === null) return null
  if (typeof charge === 'string') return { id: charge }
  return {
    id: charge.id,
    status: charge.status,
    amount: charge.amount,
    amount_captured: charge.amount_captured,
    amount_refunded: charge.amount_refunded,
    captured: charge.captured,
    paid: charge.paid,
    refunded: charge.refunded,
    disputed: charge.disputed,
    failure_code: charge.failure_code,
    // When an uncaptured authorization lapses (https://docs.stripe.com/payments/place-a-hold-on-a-payment-method).
    capture_before: charge.payment_method_details?.card?.capture_before ?? null,
    outcome: charge.outcome === null ? null : { type: charge.outcome.type, reason: charge.outcome.reason ?? null }
  }
}

/** The PaymentIntent's fields a record keeps (https://docs.stripe.com/api/payment_intents/object). */
export function intentView (intent: Stripe.PaymentIntent): StripeRecord {
  return {
    id: intent.id,
    object: 'payment_intent',
    status: intent.status,
    amount: intent.amount,
    amount_capturable: intent.amount_capturable,
    amount_received: intent.amount_received,
    currency: intent.currency,
    capture_method: intent.capture_method,
    created: intent.created,
    canceled_at: intent.canceled_at,
    cancellation_reason: intent.cancellation_reason,
    last_payment_error: errorView(intent.last_payment_error),
    latest_charge: chargeView(intent.latest_charge as Stripe.Charge | string | null)
  }
}

/** https://docs.stripe.com/api/checkout/sessions/object */
export function sessionView (session: Stripe.Checkout.Session): StripeRecord {
  return {
    id: session.id,
    status: session.status,
    payment_status: session.payment_status,
    url: session.url,
    expires_at: session.expires_at,
    amount_total: session.amount_total,
    currency: session.currency
  }
}

/** https://docs.stripe.com/api/refunds/object; `paywire_key` is the idempotency key Paywire made it with (its metadata). */
export function refundView (refund: Stripe.Refund): StripeRecord {
  return {
    id: refund.id,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    failure_reason: refund.failure_reason ?? null,
    created: refund.created,
    paywire_key: refund.metadata?.paywire_refund_key ?? null
  }
}

/** https://docs.stripe.com/api/disputes/object */
export function disputeView (dispute: Stripe.Dispute): StripeRecord {
  return { id: dispute.id, amount: dispute.amount, currency: dispute.currency, status: dispute.status, reason: dispute.reason, created: dispute.created }
}

/** Adds or replaces entries by id, keeping the order they first appeared in (Stripe lists newest first). */
export function mergeById (current: unknown, incoming: readonly StripeRecord[]): StripeRecord[] {
  const merged = Array.isArray(current) ? [...current as StripeRecord[]] : []
  for (const entry of [...incoming].sort((a, b) => (a.created ?? 0) - (b.created ?? 0))) {
    const at = merged.findIndex((known) => known.id === entry.id)
    if (at === -1) merged.push(entry)
    else merged[at] = { ...merged[at], ...entry }
  }
  return merged
}

/** The PaymentIntent an object names (a session, a charge, a refund or a dispute), or the object itself. */
export function paymentIntentIdOf (object: Record<string, any> | null | undefined): string | undefined {
  if (object === null || object === undefined) return undefined
  if (object.object === 'payment_intent') return typeof object.id === 'string' ? object.id : undefined
  const named = object.payment_intent
  if (typeof named === 'string') return named
  return typeof named?.id === 'string' ? named.id : undefined
}

/*
 * Idempotency keys, written into the record and committed (Checkpoint) before the call they
 * protect: `<payment>:<operation>:<sequence>`. A call whose answer was lost is sent again with
 * its key (Stripe replays the first answer, or does the work now); a call that got an answer
 * closes its key, and the next call of that operation gets the next sequence.
 */

function ownerOf (record: StripeRecord): string {
  if (typeof record.paywire_payment === 'string' && record.paywire_payment !== '') return record.paywire_payment
  record.paywire_key ??= randomUUID()
  return record.paywire_key as string
}

/** The open key of an operation, or a new one (recorded: commit it before the call). */
export function openKey (record: StripeRecord, operation: string): string {
  const open = (record.paywire_idempotency ??= {}) as Record<string, string>
  if (open[operation] !== undefined) return open[operation]
  const sequences = (record.paywire_sequences ??= {}) as Record<string, number>
  sequences[operation] = (sequences[operation] ?? 0) + 1
  open[operation] = `${ownerOf(record)}:${operation}:${sequences[operation]}`
  return open[operation]
}

/** The call got Stripe's answer: its key is spent. */
export function closeKey (record: StripeRecord, operation: string): void {
  if (record.paywire_idempotency !== undefined) delete record.paywire_idempotency[operation]
}

/** Each refund has its own key: `<payment>:refund:<n>`. */
export function nextRefundKey (record: StripeRecord): string {
  const sequences = (record.paywire_sequences ??= {}) as Record<string, number>
  sequences.refund = (sequences.refund ?? 0) + 1
  return `${ownerOf(record)}:refund:${sequences.refund}`
}

/** How many processed webhook event ids a payment remembers, to drop redeliveries without a call. */
const REMEMBERED_EVENTS = 50

export function seenEvent (record: StripeRecord | undefined, eventId: string): boolean {
  return Array.isArray(record?.paywire_webhook_events) && record.paywire_webhook_events.includes(eventId)
}

export function rememberEvent (record: StripeRecord, eventId: string): void {
  const seen = (record.paywire_webhook_events ??= []) as string[]
  seen.push(eventId)
  if (seen.length > REMEMBERED_EVENTS) seen.splice(0, seen.length - REMEMBERED_EVENTS)
}
