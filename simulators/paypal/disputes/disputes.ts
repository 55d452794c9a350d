import { randomInt } from 'node:crypto'
import { formatMinorUnits } from '../runtime/amounts.ts'
import type { DisputableTransaction } from '../runtime/disputable.ts'
import { paypalTime } from '../runtime/store.ts'
import type { Link } from '../runtime/types.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'

/** The dispute `reason` values of PayPal's Disputes API (https://developer.paypal.com/docs/api/customer-disputes/v1/). */
export type DisputeReason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' | 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED' | 'UNAUTHORISED' |
  'CREDIT_NOT_PROCESSED' | 'DUPLICATE_TRANSACTION' | 'INCORRECT_AMOUNT' | 'PAYMENT_BY_OTHER_MEANS' | 'CANCELED_RECURRING_BILLING' |
  'PROBLEM_WITH_REMITTANCE' | 'OTHER'
/** Its `status` (https://developer.paypal.com/api/customer-disputes/v1/ `status`). */
export type DisputeStatus = 'OPEN' | 'WAITING_FOR_BUYER_RESPONSE' | 'WAITING_FOR_SELLER_RESPONSE' | 'UNDER_REVIEW' | 'RESOLVED' | 'OTHER'
/** Its `dispute_life_cycle_stage`. */
export type DisputeStage = 'INQUIRY' | 'CHARGEBACK' | 'PRE_ARBITRATION' | 'ARBITRATION'

export interface StoredDispute {
  id: string
  transaction: DisputableTransaction
  reason: DisputeReason
  status: DisputeStatus
  stage: DisputeStage
  amountMinor: number
  /** `dispute_outcome.outcome_code` once resolved (https://developer.paypal.com/api/customer-disputes/v1/definitions/dispute_outcome). */
  outcome?: 'RESOLVED_BUYER_FAVOUR' | 'RESOLVED_SELLER_FAVOUR'
  createdAt: number
  updatedAt: number
}

export function newDisputeId (): string {
  return `PP-D-${String(randomInt(10_000, 100_000))}`
}

function money (minor: number, currency: string): { currency_code: string, value: string } {
  return { currency_code: currency, value: formatMinorUnits(minor, currency) }
}

function selfLink (dispute: StoredDispute, base: string): Link {
  return { href: `${base}/v1/customer/disputes/${dispute.id}`, rel: 'self', method: 'GET' }
}

/**
 * What `GET /v1/customer/disputes` lists for each dispute: its summary fields
 * (https://developer.paypal.com/api/customer-disputes/v1/disputes-list: dispute_id, reason, status,
 * dispute_state, dispute_life_cycle_stage, dispute_channel, dispute_amount, create_time, update_time;
 * `dispute_state` is not simulated), never the disputed transactions or the outcome.
 */
export function disputeSummary (dispute: StoredDispute, base: string): Record<string, unknown> {
  return {
    dispute_id: dispute.id,
    create_time: paypalTime(dispute.createdAt),
    update_time: paypalTime(dispute.updatedAt),
    reason: dispute.reason,
    status: dispute.status,
    dispute_amount: money(dispute.amountMinor, dispute.transaction.currency),
    dispute_life_cycle_stage: dispute.stage,
    dispute_channel: 'INTERNAL',
    links: [selfLink(dispute, base)]
  }
}

/**
 * The dispute as `GET /v1/customer/disputes/{id}` and the CUSTOMER.DISPUTE.* events show it: the
 * disputed transaction by its `seller_transaction_id` (the sale or capture id), and the outcome once resolved.
 */
export function disputeView (dispute: StoredDispute, base: string): Record<string, unknown> {
  const { transaction } = dispute
  const disputed: Record<string, unknown> = {
    seller_transaction_id: transaction.id,
    create_time: paypalTime(transaction.createdAt),
    gross_amount: money(transaction.amountMinor, transaction.currency),
    seller_protection_eligible: true
  }
  if (transaction.invoiceNumber !== undefined) disputed.invoice_number = transaction.invoiceNumber
  if (transaction.custom !== undefined) disputed.custom = transaction.custom
  const view = { ...disputeSummary(dispute, base), disputed_transactions: [disputed] } as Record<string, unknown>
  if (dispute.outcome !== undefined) {
    view.dispute_outcome = {
      outcome_code: dispute.outcome,
      ...(dispute.outcome === 'RESOLVED_BUYER_FAVOUR' ? { amount_refunded: money(dispute.amountMinor, transaction.currency) } : {})
    }
  }
  return view
}

const SUMMARIES = {
  CREATED: 'A new dispute opened with Case #',
  UPDATED: 'A dispute was updated with Case #',
  RESOLVED: 'A dispute was resolved with case #'
} as const

/** CUSTOMER.DISPUTE.CREATED / UPDATED / RESOLVED (https://developer.paypal.com/api/rest/webhooks/event-names/#disputes). */
export function emitDisputeEvent (webhooks: WebhookEngine, dispute: StoredDispute, kind: keyof typeof SUMMARIES, base: string): void {
  webhooks.emit({
    clientId: dispute.transaction.clientId,
    eventType: `CUSTOMER.DISPUTE.${kind}`,
    resourceType: 'dispute',
    summary: `${SUMMARIES[kind]} ${dispute.id}`,
    resource: disputeView(dispute, base)
  }, base)
}
