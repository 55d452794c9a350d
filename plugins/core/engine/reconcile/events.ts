import type { HumanStatusValue, PaymentAmounts } from '../requests/get-status.ts'
import type { ProviderView } from '../requests/payment-state.ts'

/** The payment an event of the sweeper is about, as payment events name it. */
export interface ReconciledPayment {
  model: string
  id: string
  number?: string
}

/**
 * An authorization will lapse soon (expiryWarningMs before the provider's expiry): capture it,
 * or reauthorize, or let it go. Raised once per authorization; its id is derived from the
 * payment and the expiry, so a second raise (an instance that died before remembering it) is
 * the same event to a handler that deduplicates by id.
 */
export interface AuthorizationExpiringEvent {
  id: string
  type: 'payment.authorization_expiring'
  occurredAt: string
  gateway: string
  payment: ReconciledPayment
  status: HumanStatusValue
  /** When the provider's authorization lapses (ISO 8601). */
  expiresAt: string
  amounts: { total?: number, currency?: string }
  providerIds: Record<string, string>
}

/**
 * After a Sync, the provider's reading of a payment and Paywire's differ, and Paywire kept its
 * own (its statuses only move forward): someone must look. Both sides are given; raised once
 * per disagreement (the same one found again is not raised again).
 */
export interface MoneyMismatchEvent {
  id: string
  type: 'money.mismatch'
  occurredAt: string
  gateway: string
  payment: ReconciledPayment
  /** What Paywire holds. */
  paywire: { status: HumanStatusValue, amounts?: PaymentAmounts }
  /** What the provider said at the Sync. */
  provider: ProviderView
  /** Total and currency as the payment states them. */
  amounts: { total?: number, currency?: string }
  providerIds: Record<string, string>
}

export type ReconcileEventMap = {
  'payment.authorization_expiring': AuthorizationExpiringEvent
  'money.mismatch': MoneyMismatchEvent
}

export type ReconcileEvent = ReconcileEventMap[keyof ReconcileEventMap]
