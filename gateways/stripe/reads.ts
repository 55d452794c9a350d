import type Stripe from 'stripe'
import type { TransitionDecision } from '../../plugins/core/engine/index.ts'
import type { StripeApi } from './api.ts'
import { paywireError } from './errors.ts'
import { disputeView, intentView, refundView, sessionView, type StripeRecord } from './record.ts'
import type { StripeViews, ViewSource } from './views.ts'

/** One refund as Paywire keeps it in `details.paywire_refunds`: the intent, recorded before Stripe hears of it. */
export interface RefundIntent {
  /** Its idempotency key, also in the refund's metadata (`paywire_refund_key`): how a lost answer is found again. */
  key: string
  /** What was asked, in Paywire's minor units; null: what remained. */
  requested: number | null
  /** What is sent to Stripe, in Stripe's units. */
  amount: number
  /** `sent`: the answer is not known yet; `made`: Stripe made it (its own status says if money moved); `refused`: Stripe said no. */
  state: 'sent' | 'made' | 'refused'
  id?: string
  error?: Record<string, unknown>
  /**
   * Made, but found among Stripe's refunds (a webhook, a Sync) after its caller was told the
   * outcome was unknown: the caller's retry of the same refund is answered by this one.
   */
  unreported?: boolean
}

/**
 * Reads a payment's state from Stripe, never from an event or a query string: the Checkout
 * Session while the buyer may still pay, the PaymentIntent with its latest charge, and once
 * money was received its refunds and disputes (every page). The view goes through StripeViews.
 */
export class StripeReads {
  readonly api: StripeApi
  readonly views: StripeViews

  constructor (api: StripeApi, views: StripeViews) {
    this.api = api
    this.views = views
  }

  /** Stripe's errors are thrown as PAYWIRE_ERR_PROVIDER: a read changes nothing at Stripe. */
  async sync (record: StripeRecord, source: ViewSource): Promise<TransitionDecision | undefined> {
    try {
      return await this.#sync(record, source)
    } catch (error) {
      throw paywireError(error)
    }
  }

  async #sync (record: StripeRecord, source: ViewSource): Promise<TransitionDecision | undefined> {
    const view: StripeRecord = {}
    let intent: Stripe.PaymentIntent | undefined
    let intentId = typeof record.id === 'string' ? record.id : undefined
    const session = record.checkout_session as StripeRecord | undefined
    if (typeof session?.id === 'string' && (intentId === undefined || session.status === 'open')) {
      const read = await this.api.retrieveCheckoutSession(session.id)
      view.checkout_session = sessionView(read)
      if (typeof read.payment_intent === 'string') intentId = read.payment_intent
      else if (read.payment_intent !== null) intent = read.payment_intent
    }
    if (intent === undefined && intentId !== undefined) intent = await this.api.retrievePaymentIntent(intentId)
    if (intent !== undefined) Object.assign(view, intentView(intent))
    if (intent !== undefined && (intent.amount_received > 0 || intent.status === 'succeeded')) {
      const [refunds, disputes] = await Promise.all([this.api.listRefunds(intent.id), this.api.listDisputes(intent.id)])
      view.refunds = refunds.map(refundView)
      view.disputes = disputes.map(disputeView)
      settleRefundIntents(record, view.refunds)
    }
    if (Object.keys(view).length === 0) return undefined
    return this.views.take(record, view, source)
  }
}

/** Refund intents whose answer was lost, found among the refunds Stripe lists by the key in their metadata. */
export function settleRefundIntents (record: StripeRecord, refunds: readonly StripeRecord[]): void {
  for (const intent of (record.paywire_refunds ?? []) as RefundIntent[]) {
    if (intent.state !== 'sent') continue
    const made = refunds.find((refund) => refund.paywire_key === intent.key)
    if (made === undefined) continue
    intent.state = 'made'
    intent.id = made.id
    intent.unreported = true
  }
}
