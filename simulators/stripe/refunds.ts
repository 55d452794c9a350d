import type Stripe from 'stripe'
import { invalidParam, invalidRequest, noSuch } from './errors.ts'
import type { EventLog, EventOrigin } from './events.ts'
import { AUTOMATIC } from './events.ts'
import { newRefund } from './objects.ts'
import type { Store } from './store.ts'

/*
 * Refunds (https://docs.stripe.com/refunds, https://docs.stripe.com/api/refunds/object): of a
 * captured charge, whole or in part, never more than what remains. A refund's `status` is
 * `succeeded`, `pending` (settles later), `failed` (with `failure_reason`, the money returns to
 * the merchant's balance: https://docs.stripe.com/refunds#failed-refunds) or `canceled`. The charge
 * counts it in `amount_refunded` from creation and gives it back if it fails or is canceled.
 * Events: refund.created, charge.refunded; then refund.updated, charge.refund.updated, and
 * refund.failed for a failure (https://docs.stripe.com/api/events/types).
 */

export type RefundOutcome = 'succeeded' | 'pending' | 'failed'
export type RefundSettlement = 'succeeded' | 'failed' | 'canceled'

export interface RefundsEngine {
  get: (id: string) => Stripe.Refund
  create: (charge: Stripe.Charge, amount: number | undefined, reason: Stripe.Refund.Reason | null, metadata: Record<string, string>, origin: EventOrigin) => Stripe.Refund
  /** The next refunds start `pending`, or start `pending` and fail at once. */
  nextOutcome: (outcome: RefundOutcome, count?: number) => void
  settle: (id: string, settlement: RefundSettlement, failureReason?: string) => Stripe.Refund
}

export function createRefunds (store: Store, events: EventLog): RefundsEngine {
  const outcomes: RefundOutcome[] = []

  function settle (refund: Stripe.Refund, settlement: RefundSettlement, failureReason: string, origin: EventOrigin): void {
    const previous = { status: refund.status }
    const charge = store.charges.get(refund.charge as string) as Stripe.Charge
    refund.status = settlement
    if (settlement !== 'succeeded') {
      charge.amount_refunded -= refund.amount
      charge.refunded = false
    }
    if (settlement === 'failed') refund.failure_reason = failureReason
    events.emit('refund.updated', refund, origin, previous)
    if (settlement === 'failed') events.emit('refund.failed', refund, origin)
    events.emit('charge.refund.updated', refund, origin, previous)
  }

  return {
    get (id) {
      const refund = store.refunds.get(id)
      if (refund === undefined) throw noSuch('refund', id, 'refund')
      return refund
    },
    create (charge, amount, reason, metadata, origin) {
      if (!charge.captured || charge.status !== 'succeeded') {
        throw invalidRequest(`Charge ${charge.id} has not been captured; cancel its PaymentIntent to release the authorization instead.`, 'charge_not_refundable')
      }
      const dispute = [...store.disputes.values()].find((item) => item.charge === charge.id)
      if (dispute !== undefined && !dispute.is_charge_refundable) throw invalidRequest(`Charge ${charge.id} has been charged back; cannot issue a refund.`, 'charge_disputed')
      const remaining = charge.amount - charge.amount_refunded
      if (remaining <= 0) throw invalidRequest(`Charge ${charge.id} has already been refunded.`, 'charge_already_refunded')
      const value = amount ?? remaining
      if (value < 1) throw invalidParam('amount', 'Invalid positive integer')
      if (value > remaining) throw invalidRequest(`Refund amount (${value}) is greater than unrefunded amount on charge (${remaining})`, 'amount_too_large', 'amount')
      const outcome = outcomes.shift() ?? 'succeeded'
      const refund = newRefund(charge, value, reason, metadata, outcome === 'succeeded' ? 'succeeded' : 'pending', store.clock.unix())
      store.refunds.set(refund.id, refund)
      charge.amount_refunded += value
      charge.refunded = charge.amount_refunded >= charge.amount
      store.counters.refunds++
      events.emit('refund.created', refund, origin)
      events.emit('charge.refunded', charge, origin)
      // The answer shows the refund as created; its failure follows in events.
      const answer = structuredClone(refund)
      if (outcome === 'failed') settle(refund, 'failed', 'expired_or_canceled_card', AUTOMATIC)
      return answer
    },
    nextOutcome (outcome, count = 1) {
      for (let i = 0; i < count; i++) outcomes.push(outcome)
    },
    settle (id, settlement, failureReason = 'expired_or_canceled_card') {
      const refund = store.refunds.get(id)
      if (refund === undefined || refund.status !== 'pending') throw new Error(`Refund ${id} is not pending`)
      settle(refund, settlement, failureReason, AUTOMATIC)
      return refund
    }
  }
}
