import { apiError } from '../runtime/errors.ts'
import type { SimulatorRuntime } from '../runtime/runtime.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'
import type { SimulatorBuyer } from '../runtime/types.ts'
import type { BuyerOutcome, PaymentsCounters, ReversalReason } from './types.ts'

export interface StoredPayment {
  id: string
  clientId: string
  ecToken: string
  state: 'created' | 'approved' | 'failed'
  failureReason?: string
  /** transactions[0] as echoed: amounts normalised, no related_resources. */
  transaction: Record<string, unknown>
  currency: string
  totalMinor: number
  invoiceNumber?: string
  returnUrl: string
  cancelUrl: string
  noteToPayer?: string
  createdAt: number
  updatedAt: number
  approval?: { buyer: SimulatorBuyer, outcome: BuyerOutcome }
  sale?: StoredSale
}

export interface StoredSale {
  id: string
  clientId: string
  payment: StoredPayment
  /** payments_payment_v1.json's sale states: a reversal leaves the state and sets `reason_code` (see `reversal`). */
  state: 'completed' | 'partially_refunded' | 'pending' | 'refunded' | 'denied'
  currency: string
  totalMinor: number
  details?: Record<string, string>
  /** Why the sale is or was pending (eCheck...); kept after it settles for payment_mode. */
  pendingReasonCode?: string
  feeMinor: number
  /** Refunded by completed refunds. */
  refundedMinor: number
  /** Held by pending refunds: not refunded yet, and not refundable again. */
  pendingRefundMinor: number
  refunds: StoredRefund[]
  reversal?: StoredReversal
  createdAt: number
  updatedAt: number
}

/** PayPal took a sale's remaining money back (`reverseSale`). */
export interface StoredReversal {
  id: string
  sale: StoredSale
  currency: string
  amountMinor: number
  reasonCode: ReversalReason
  createdAt: number
}

export type RefundState = 'pending' | 'completed' | 'cancelled' | 'failed'

export interface StoredRefund {
  id: string
  sale: StoredSale
  state: RefundState
  currency: string
  amountMinor: number
  /** The sale's refunded total right after this refund. */
  refundedMinorAfter: number
  description?: string
  reason?: string
  invoiceNumber?: string
  createdAt: number
  updatedAt: number
}

export interface PaymentsStore {
  readonly payments: Map<string, StoredPayment>
  readonly paymentIdsByToken: Map<string, string>
  readonly sales: Map<string, StoredSale>
  readonly refunds: Map<string, StoredRefund>
  readonly reversals: Map<string, StoredReversal>
  readonly counters: PaymentsCounters
  executeOutcomeOverride: BuyerOutcome | undefined
  /** The states the next refunds take, first first; completed once it is empty. */
  readonly refundOutcomes: Array<Exclude<RefundState, 'completed'>>
}

/** Payments v1 on the shared machinery: what its routes, pages and control work with. */
export interface Payments {
  readonly runtime: SimulatorRuntime
  readonly store: PaymentsStore
  readonly webhooks: WebhookEngine
}

export function createPaymentsStore (): PaymentsStore {
  return {
    payments: new Map(),
    paymentIdsByToken: new Map(),
    sales: new Map(),
    refunds: new Map(),
    reversals: new Map(),
    counters: {
      paymentsCreated: 0,
      paymentsExecuted: 0,
      paymentsDeclined: 0,
      paymentsUpdated: 0,
      refunds: 0,
      reversals: 0
    },
    executeOutcomeOverride: undefined,
    refundOutcomes: []
  }
}

/** The client's payment, or 404 INVALID_RESOURCE_ID as PayPal answers for another merchant's id. */
export function ownedPayment (payments: Payments, clientId: string, paymentId: string): StoredPayment {
  const payment = payments.store.payments.get(paymentId)
  if (payment === undefined || payment.clientId !== clientId) throw apiError('INVALID_RESOURCE_ID', [])
  return payment
}

export function isExpired (payments: Payments, payment: StoredPayment): boolean {
  const { store } = payments.runtime
  return store.now() > payment.createdAt + store.config.paymentTtlSeconds * 1000
}
