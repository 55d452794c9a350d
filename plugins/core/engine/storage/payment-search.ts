import type { HumanStatusValue, PaymentAmounts } from '../requests/get-status.ts'
import type { AttentionReason } from '../reconcile/attention.ts'

/**
 * What operators search on and the reconciliation sweeper picks by, known without running a
 * gateway: the commit that writes a Payment computes them from the gateway's PaymentState
 * reading (the same reading that stages its events) and stores them in the same atomic step,
 * so they are never older than the record.
 */
export interface PaymentFacets {
  id: string
  gatewayName: string
  status: HumanStatusValue
  currencyCode: string
  /** Integer minor units of currencyCode. */
  totalAmount: number
  amounts?: PaymentAmounts
  /** ISO 8601, as the storage maintains them on the Payment. */
  createdAt: string
  updatedAt: string
  /** The provider's ids of the payment and what was done to it (order, capture, refund, dispute…). */
  providerIds: readonly string[]
  /** When the payment needs a look by the sweeper (ISO 8601); undefined when nothing is left to learn. */
  attentionAt?: string
  attentionReason?: AttentionReason
  /**
   * How many times in a row the sweeper deferred this attention (deferAttention): its back-off
   * doubles with each. A commit's facets carry none, so a write starts the count again.
   */
  attentionDeferrals?: number
}

/** What the sweeper read of a payment: a deferral applies only while the stored facets still say this. */
export type AttentionRead = Pick<PaymentFacets, 'attentionAt' | 'updatedAt'>

/** An operator's search: every given field must match; newest (createdAt) first. */
export interface PaymentQuery {
  /** Any of these statuses. */
  status?: readonly HumanStatusValue[]
  gatewayName?: string
  currencyCode?: string
  /** Inclusive bounds, ISO 8601. */
  createdFrom?: string
  createdTo?: string
  updatedFrom?: string
  updatedTo?: string
  /** Inclusive bounds on totalAmount, minor units. */
  amountMin?: number
  amountMax?: number
  /** One of the provider's ids (exact). */
  providerId?: string
  /** true: only payments the sweeper would pick now (attentionAt <= now); false: only the others. */
  needsAttention?: boolean
  /** The clock needsAttention is judged by; defaults to the current time. */
  now?: Date
  /** Page size. */
  first: number
  /** The endCursor of the previous page. */
  after?: string
}

export interface PaymentPage {
  /** Matching payment ids, newest first. */
  ids: string[]
  /** Pass as `after` for the next page; undefined on the last page. */
  endCursor?: string
}

/**
 * Implemented by the Payment storage of each backend Paywire ships (memory, Redis,
 * PostgreSQL) with indexes, so neither a search nor a sweep reads every payment.
 */
export interface PaymentSearch {
  searchPayments (query: PaymentQuery): Promise<PaymentPage>
  /** Payments whose attentionAt is at or before `now`, the longest due first, at most `limit`. */
  attentionDue (now: Date, limit: number): Promise<PaymentFacets[]>
  /**
   * The sweeper's back-off, kept by the storage: moves the payment's attentionAt to `until`
   * (ISO 8601) and counts one more attentionDeferrals, only while its stored facets are still
   * the ones `read` (same updatedAt and attentionAt) and it needs attention at all, so a
   * deferral never hides a newer write's attention. A later commit recomputes attentionAt by
   * its own rule. Answers whether it was deferred.
   */
  deferAttention (id: string, until: string, read: AttentionRead): Promise<boolean>
  /**
   * Stores facets computed outside a commit, for the payment as stored at `version`
   * (reindexPayments(): payments written before the search existed). Facets of a later
   * version are kept. Optional: without it, reindexPayments() refuses.
   */
  indexPayment? (id: string, version: number, facets: PaymentFacets): Promise<void>
}

export function isPaymentSearch (storage: unknown): storage is PaymentSearch {
  return typeof (storage as Partial<PaymentSearch> | null)?.searchPayments === 'function' &&
    typeof (storage as Partial<PaymentSearch>).attentionDue === 'function' &&
    typeof (storage as Partial<PaymentSearch>).deferAttention === 'function'
}
