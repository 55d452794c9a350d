import type { HumanStatusValue, PaymentAmounts } from './get-status.ts'

/**
 * What a gateway reads from a stored record: its status, the money that moved and the
 * provider's ids. Gateway factories register one (service id PaymentStateReader) so the
 * commit path can tell what a write changed without running the gateway again.
 */
export interface PaymentState {
  status: HumanStatusValue
  amounts?: PaymentAmounts
  /** The provider's ids of the payment and what was done to it (payment, sale, refund…). */
  providerIds?: Record<string, string>
  /** The disputes (chargebacks) the provider reported on the payment, open or closed. */
  disputes?: readonly PaymentDispute[]
  /** When the provider's authorization lapses (ISO 8601), while the payment is authorized and the gateway knows. */
  authorizationExpiresAt?: string
  /** Refunds asked of the provider that it has reported neither completed nor failed yet. */
  refundsPending?: number
  /** When the last call to the provider failed with its outcome unknown (a timeout, a 5xx): Sync tells what happened. */
  providerCallFailedAt?: string
  /**
   * What the provider said at the last Sync when the gateway kept its own reading instead (a
   * view its status transitions refused, or one knowing of fewer refunds): Paywire and the
   * provider disagree, and the reconciliation sweeper raises money.mismatch with both sides.
   */
  providerView?: ProviderView
}

/** A provider's own reading of a payment, in Paywire's terms. */
export interface ProviderView {
  status: HumanStatusValue
  amounts?: PaymentAmounts
}

/**
 * A buyer contests the payment with their bank or the provider. While one is `open` the
 * money is contested (the payment reads `suspended`); `won` gives it back to the shop, `lost`
 * takes it (the amounts count it as reversed).
 */
export interface PaymentDispute {
  /** The provider's id of the dispute. */
  id: string
  state: 'open' | 'won' | 'lost'
  /** What is contested, in minor units of the payment's currency. */
  amount?: number
  /** The provider's reason code, as it sends it ('fraudulent', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED'…). */
  reason?: string
}

/**
 * A gateway's one source of its statuses: reads a PaymentState from a record as stored (a
 * Payment's fields with its `details`, or a gateway's own details record); undefined: not a
 * record this gateway knows. GetHumanStatus is answered from it (the core StatusAction), and
 * commits compare its reading before and after a write to stage payment events.
 */
export abstract class PaymentStateReader {
  abstract read (record: Record<string, unknown>): PaymentState | undefined
}
