import type Stripe from 'stripe'
import { invalidRequest, noSuch } from './errors.ts'
import type { EventLog, EventOrigin } from './events.ts'
import { AUTOMATIC } from './events.ts'
import { newDispute } from './objects.ts'
import type { Store } from './store.ts'

/*
 * Disputes (https://docs.stripe.com/disputes/how-disputes-work,
 * https://docs.stripe.com/api/disputes/object). A chargeback starts `needs_response` and withdraws
 * the disputed amount (charge.dispute.funds_withdrawn); an inquiry starts
 * `warning_needs_response` and withdraws nothing. Evidence moves it to `under_review`
 * (`warning_under_review`). It closes `won` (funds reinstated: charge.dispute.funds_reinstated),
 * `lost`, or `warning_closed` for an inquiry. Closing through the API accepts the loss
 * (https://docs.stripe.com/api/disputes/close). The charge reads `disputed: true`.
 */

export interface OpenDispute {
  amount?: number
  reason?: string
  /** An inquiry (`warning_needs_response`) rather than a chargeback. */
  inquiry?: boolean
}

export interface DisputeUpdate {
  status?: 'under_review' | 'warning_under_review'
  evidence?: Partial<Record<keyof Stripe.Dispute.Evidence, string>>
  metadata?: Record<string, string>
}

/** How a dispute ends; an inquiry ends `warning_closed` either way. */
export type DisputeClosing = 'won' | 'lost'

export interface DisputesEngine {
  get: (id: string) => Stripe.Dispute
  open: (chargeId: string, options?: OpenDispute) => Stripe.Dispute
  update: (id: string, update: DisputeUpdate) => Stripe.Dispute
  close: (id: string, closing: DisputeClosing, origin?: EventOrigin) => Stripe.Dispute
}

/** Evidence is due a week after the dispute opens (the simulator's choice; Stripe sets it per network). */
const EVIDENCE_WINDOW_SECONDS = 7 * 86_400

export function createDisputes (store: Store, events: EventLog): DisputesEngine {
  const get = (id: string): Stripe.Dispute => {
    const dispute = store.disputes.get(id)
    if (dispute === undefined) throw noSuch('dispute', id, 'dispute')
    return dispute
  }
  const inquiry = (dispute: Stripe.Dispute): boolean => dispute.status.startsWith('warning_')

  return {
    get,
    open (chargeId, options = {}) {
      const charge = store.charges.get(chargeId)
      if (charge === undefined || !charge.captured) throw new Error(`Charge ${chargeId} is not a captured charge`)
      if (charge.disputed) throw new Error(`Charge ${chargeId} is already disputed`)
      const now = store.clock.unix()
      const dispute = newDispute(charge, options.amount ?? charge.amount_captured, options.reason ?? 'fraudulent', options.inquiry === true ? 'warning_needs_response' : 'needs_response', now, now + EVIDENCE_WINDOW_SECONDS)
      dispute.is_charge_refundable = options.inquiry === true
      store.disputes.set(dispute.id, dispute)
      charge.disputed = true
      store.counters.disputes++
      events.emit('charge.dispute.created', dispute, AUTOMATIC)
      if (options.inquiry !== true) events.emit('charge.dispute.funds_withdrawn', dispute, AUTOMATIC)
      return dispute
    },
    update (id, update) {
      const dispute = get(id)
      const previous: Record<string, unknown> = {}
      if (update.status !== undefined) {
        previous.status = dispute.status
        dispute.status = update.status
      }
      if (update.evidence !== undefined) {
        previous.evidence = { ...dispute.evidence }
        Object.assign(dispute.evidence, update.evidence)
        dispute.evidence_details.has_evidence = true
        dispute.evidence_details.submission_count++
        dispute.evidence_details.submission_method = 'manual'
      }
      if (update.metadata !== undefined) {
        previous.metadata = dispute.metadata
        dispute.metadata = update.metadata
      }
      events.emit('charge.dispute.updated', dispute, AUTOMATIC, previous)
      return dispute
    },
    close (id, closing, origin = AUTOMATIC) {
      const dispute = get(id)
      if (['won', 'lost', 'warning_closed'].includes(dispute.status)) {
        throw invalidRequest(`Dispute ${id} is already closed (${dispute.status}).`)
      }
      const wasInquiry = inquiry(dispute)
      const previous = { status: dispute.status }
      dispute.status = wasInquiry ? 'warning_closed' : closing
      events.emit('charge.dispute.closed', dispute, origin, previous)
      if (dispute.status === 'won' && !wasInquiry) events.emit('charge.dispute.funds_reinstated', dispute, origin)
      return dispute
    }
  }
}
