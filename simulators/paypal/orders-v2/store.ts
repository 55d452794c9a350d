import type { SimulatorBuyer } from '../runtime/types.ts'

/**
 * What the buyer chose on the v2 approval page, and so what the next capture or authorize does:
 * `declined` and `payer_action_required` refuse it with 422 INSTRUMENT_DECLINED / PAYER_ACTION_REQUIRED
 * (the buyer must pick another instrument), `capture_declined` completes the order with a DECLINED capture.
 */
export type OrderOutcome = 'completed' | 'pending' | 'declined' | 'payer_action_required' | 'capture_declined'

export type OrderStatus = 'CREATED' | 'SAVED' | 'APPROVED' | 'VOIDED' | 'COMPLETED' | 'PAYER_ACTION_REQUIRED'
export type CaptureStatus = 'COMPLETED' | 'DECLINED' | 'PARTIALLY_REFUNDED' | 'PENDING' | 'REFUNDED' | 'FAILED'
export type AuthorizationStatus = 'CREATED' | 'CAPTURED' | 'DENIED' | 'PARTIALLY_CAPTURED' | 'VOIDED' | 'PENDING'

export interface StoredOrder {
  id: string
  clientId: string
  intent: 'CAPTURE' | 'AUTHORIZE'
  status: OrderStatus
  /** purchase_units[0] as echoed (amounts normalised), without payments. */
  purchaseUnit: Record<string, unknown>
  currency: string
  totalMinor: number
  returnUrl: string | undefined
  cancelUrl: string | undefined
  /** Created with `payment_source.paypal`: the buyer goes through `payer-action`; without it through `approve`. */
  withPaymentSource: boolean
  createdAt: number
  updatedAt: number
  approval?: { buyer: SimulatorBuyer, outcome: OrderOutcome }
  captures: StoredCapture[]
  authorizations: StoredAuthorization[]
}

export interface StoredAuthorization {
  id: string
  order: StoredOrder
  status: AuthorizationStatus
  currency: string
  amountMinor: number
  capturedMinor: number
  createdAt: number
  updatedAt: number
  /** The end of the 29-day authorization period, counted from the original authorization. */
  expiresAt: number
  /** Set on a reauthorization: the authorization it renewed. */
  parent?: StoredAuthorization
  /** The reauthorization made from this one, if any (PayPal allows one). */
  reauthorization?: StoredAuthorization
}

export interface StoredCapture {
  id: string
  order: StoredOrder
  authorization?: StoredAuthorization
  status: CaptureStatus
  /** status_details.reason (PENDING: ECHECK...; DECLINED...). */
  reason?: string
  currency: string
  amountMinor: number
  /** Refunded by COMPLETED refunds (and reversals). */
  refundedMinor: number
  /** Held by PENDING refunds: not refunded yet, and not refundable again. */
  pendingRefundMinor: number
  refunds: StoredOrderRefund[]
  finalCapture: boolean
  createdAt: number
  updatedAt: number
}

export type RefundStatus = 'COMPLETED' | 'PENDING' | 'FAILED' | 'CANCELLED'

export interface StoredOrderRefund {
  id: string
  capture: StoredCapture
  status: RefundStatus
  currency: string
  amountMinor: number
  /** The capture's completed refunds right after this one took effect. */
  totalRefundedMinor: number
  invoiceId?: string
  customId?: string
  noteToPayer?: string
  /** PayPal taking the money back (a chargeback or a lost dispute), not a refund. */
  reversal: boolean
  createdAt: number
  updatedAt: number
}

/** How often each piece of v2 work really ran (never for a replay, a refused call or a fault before the work). */
export interface OrdersCounters {
  ordersCreated: number
  /** Order captures that reached the money movement, declined ones included. */
  ordersCaptured: number
  ordersAuthorized: number
  authorizationsCaptured: number
  authorizationsVoided: number
  /** Reauthorizations made (POST …/reauthorize). */
  reauthorizations: number
  /** Successful order PATCHes. */
  ordersUpdated: number
  /** Captures or authorizations the instrument declined, or that asked for another instrument. */
  declines: number
  refunds: number
  reversals: number
}

export interface OrdersStore {
  readonly orders: Map<string, StoredOrder>
  readonly captures: Map<string, StoredCapture>
  readonly authorizations: Map<string, StoredAuthorization>
  readonly refunds: Map<string, StoredOrderRefund>
  readonly counters: OrdersCounters
  /** Overrides the buyer's choice for every later capture or authorize; undefined restores it. */
  outcomeOverride: OrderOutcome | undefined
  /** The statuses the next refunds take, first first; COMPLETED once it is empty. */
  readonly refundOutcomes: Array<Exclude<RefundStatus, 'COMPLETED'>>
}

export function createOrdersStore (): OrdersStore {
  return {
    orders: new Map(),
    captures: new Map(),
    authorizations: new Map(),
    refunds: new Map(),
    counters: {
      ordersCreated: 0,
      ordersCaptured: 0,
      ordersAuthorized: 0,
      authorizationsCaptured: 0,
      authorizationsVoided: 0,
      reauthorizations: 0,
      ordersUpdated: 0,
      declines: 0,
      refunds: 0,
      reversals: 0
    },
    outcomeOverride: undefined,
    refundOutcomes: []
  }
}
