import { randomBytes, randomUUID } from 'node:crypto'
import { ArrayObject, HumanStatus, type HumanStatusValue } from '../../plugins/core/engine/index.ts'
import type { PaypalResource } from './api.ts'
import { PaymentDetails } from './model/payment-details.ts'
import { withDisputes } from '../paypal-shared/index.ts'

/**
 * A PayPal payment's details as one mutable record, whether they live in a Payment's
 * details bag (ArrayObject) or in a REST details record (PaymentDetails): PayPal's fields
 * (intent, payer, transactions, id, state, links...) plus Paywire's bookkeeping under
 * `paywire_*` keys, which are never sent to PayPal.
 */
export type PaypalRecord = Record<string, any>

export function recordOf (model: unknown): PaypalRecord | undefined {
  if (model instanceof ArrayObject) return model.data
  if (model instanceof PaymentDetails) return model as PaypalRecord
  return undefined
}

/** What PayPal receives when a payment is created: its own fields only. */
const CREATE_FIELDS = ['intent', 'payer', 'transactions', 'redirect_urls', 'note_to_payer', 'application_context', 'experience_profile_id']

export function createBody (record: PaypalRecord): PaypalResource {
  const body: PaypalResource = {}
  for (const field of CREATE_FIELDS) {
    if (record[field] !== undefined) body[field] = JSON.parse(JSON.stringify(record[field]))
  }
  return body
}

/**
 * The PayPal-Request-Id of one operation on one payment: derived from a key stored with
 * the payment and the operation's name, and stored too, so a retry after a timeout or a
 * 5xx (even from another process) sends the same id and PayPal does the work once.
 */
export function requestIdFor (record: PaypalRecord, operation: string): string {
  record.paywire_key ??= randomUUID()
  const ids = (record.paywire_request_ids ??= {}) as Record<string, string>
  ids[operation] ??= `${record.paywire_key as string}-${operation}`
  return ids[operation]
}

/**
 * A new PayPal-Request-Id for an operation whose last call PayPal refused for good: the
 * refused id is kept (in `paywire_refused_request_ids`) and never sent again, so PayPal can
 * never take a later call for a replay of the refused one.
 */
export function renewRequestId (record: PaypalRecord, operation: string): string {
  const ids = (record.paywire_request_ids ??= {}) as Record<string, string>
  if (ids[operation] !== undefined) ((record.paywire_refused_request_ids ??= []) as string[]).push(ids[operation])
  ids[operation] = uniqueRequestId(record, operation)
  return ids[operation]
}

/** An id no other call of this payment ever had: the payment's key, the operation and 48 random bits. */
export function uniqueRequestId (record: PaypalRecord, operation: string): string {
  record.paywire_key ??= randomUUID()
  return `${record.paywire_key as string}-${operation}-${randomBytes(6).toString('hex')}`
}

export function link (record: PaypalRecord, rel: string): string | undefined {
  const links = Array.isArray(record.links) ? record.links as Array<{ rel?: unknown, href?: unknown }> : []
  const found = links.find((candidate) => candidate.rel === rel)
  return typeof found?.href === 'string' ? found.href : undefined
}

/** The related resources of the payment's transactions (sales, authorizations, refunds). */
export function relatedResources (record: PaypalRecord): Array<Record<string, any>> {
  const transactions = Array.isArray(record.transactions) ? record.transactions as Array<Record<string, any>> : []
  return transactions.flatMap((transaction) => Array.isArray(transaction.related_resources) ? transaction.related_resources : [])
}

export function saleOf (record: PaypalRecord): Record<string, any> | undefined {
  return relatedResources(record).map((resource) => resource.sale).find((sale) => sale !== undefined)
}

/*
 * The sale `reason_code`s that say PayPal took the money back (payments_payment_v1.json: "why the
 * transaction state is pending or reversed"; the others are reasons to be pending, and REFUND is
 * left out: a sale the shop refunded says so by its state). Payments v1 has no `reversed` sale
 * state: a reversed sale keeps its state, and PAYMENT.SALE.REVERSED carries the reversal.
 */
const REVERSAL_REASONS: ReadonlySet<string> = new Set(['CHARGEBACK', 'GUARANTEE', 'BUYER_COMPLAINT'])

/** A completed (or partially refunded) sale whose `reason_code` says PayPal took its money back. */
export function reversedSale (sale: Record<string, any>): boolean {
  return (sale.state === 'completed' || sale.state === 'partially_refunded') && REVERSAL_REASONS.has(sale.reason_code)
}

/*
 * PayPal's states → Paywire's statuses. Payum mapped "approved" to captured even when the
 * sale was pending, and failed/expired to unknown; here the sale decides. A reversed sale
 * (chargeback: a reversal heard of, or the sale's reason_code) is refunded: the money went back
 * to the buyer (Payum's Express Checkout reads it as failed; see the README), and the amounts
 * say it was a reversal.
 */
export function paypalStatus (record: PaypalRecord): HumanStatusValue {
  return withDisputes(paymentStatus(record), record)
}

function paymentStatus (record: PaypalRecord): HumanStatusValue {
  switch (record.state) {
    case undefined:
    case null:
      return HumanStatus.NEW
    case 'created':
      return HumanStatus.PENDING
    case 'canceled':
    case 'cancelled':
      return HumanStatus.CANCELED
    case 'failed':
      return HumanStatus.FAILED
    case 'expired':
      return HumanStatus.EXPIRED
    case 'approved':
    case 'completed':
      return saleStatus(saleOf(record))
    default:
      return HumanStatus.UNKNOWN
  }
}

function saleStatus (sale: Record<string, any> | undefined): HumanStatusValue {
  switch (sale?.state) {
    case 'completed': return reversedSale(sale as Record<string, any>) ? HumanStatus.REFUNDED : HumanStatus.CAPTURED
    case 'pending': return HumanStatus.PENDING
    case 'refunded':
    case 'partially_refunded': return HumanStatus.REFUNDED
    case 'denied': return HumanStatus.FAILED
    default: return HumanStatus.UNKNOWN
  }
}

/** Not created at PayPal yet, or created and waiting for the buyer's approval: the only states capture acts on. */
export function awaitsBuyer (record: PaypalRecord): boolean {
  return record.state === undefined || record.state === null || record.state === 'created'
}
