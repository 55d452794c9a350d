import type { V2Resource } from './views.ts'
import { approveOrder, cancelOrderRedirect, type OrderApprovalResult, type OrderApproveOptions } from './approval.ts'
import { expireAuthorizations } from './authorizations.ts'
import { settleCapture, type Orders } from './operations.ts'
import { reverseCapture, settleRefund } from './refunds.ts'
import type { OrderOutcome, OrdersCounters, RefundStatus, StoredCapture, StoredOrder, StoredOrderRefund } from './store.ts'
import { authorizationView, captureView, orderRefundView, orderView } from './views.ts'

export type { OrderApprovalResult, OrderApproveOptions } from './approval.ts'
export type { OrderOutcome, OrdersCounters, RefundStatus } from './store.ts'

/** What tests drive Orders v2 / Payments v2 with (`app.simulator.orders`). */
export interface OrdersControl {
  counters: () => OrdersCounters
  /** The buyer approves on the payer-action page (`outcome` decides what the next capture or authorize does). */
  approve: (orderId: string, options?: OrderApproveOptions) => OrderApprovalResult
  /** The buyer cancels: cancel_url with `token` appended. */
  cancel: (orderId: string) => string | undefined
  /** Overrides the buyer's choice for every later capture or authorize; undefined restores it. */
  setOutcome: (outcome: OrderOutcome | undefined) => void
  /** A PENDING capture clears (COMPLETED, PAYMENT.CAPTURE.COMPLETED) or bounces (DECLINED, PAYMENT.CAPTURE.DENIED). */
  settleCapture: (captureId: string, status: 'COMPLETED' | 'DECLINED') => V2Resource
  /** A chargeback: what remains of the capture (or `amount` minor units of it) goes back, PAYMENT.CAPTURE.REVERSED is sent. Returns the reversal. */
  reverseCapture: (captureId: string, options?: { amountMinor?: number }) => V2Resource
  /** The next `times` refunds (default 1) answer PENDING (eCheck), FAILED or CANCELLED instead of COMPLETED. */
  queueRefundOutcome: (status: Exclude<RefundStatus, 'COMPLETED'>, times?: number) => void
  /** A PENDING refund completes (the money moves now) or fails (nothing moved), with PAYMENT.CAPTURE.REFUNDED. */
  settleRefund: (refundId: string, status: 'COMPLETED' | 'FAILED') => V2Resource
  order: (orderId: string) => V2Resource | undefined
  capture: (captureId: string) => V2Resource | undefined
  authorization: (authorizationId: string) => V2Resource | undefined
  refund: (refundId: string) => V2Resource | undefined
}

const REFUND_OUTCOMES: ReadonlySet<string> = new Set(['PENDING', 'FAILED', 'CANCELLED'])

function found<T> (map: Map<string, T>, id: string, kind: string): T {
  const value = map.get(id)
  if (value === undefined) throw new Error(`PayPal simulator: no ${kind} ${id}`)
  return value
}

export function createOrdersControl (orders: Orders): OrdersControl {
  const base = (): string => orders.runtime.baseUrl()
  const { store } = orders
  const order = (orderId: string): StoredOrder => found(store.orders, orderId, 'order')
  const capture = (captureId: string): StoredCapture => found(store.captures, captureId, 'capture')
  const refund = (refundId: string): StoredOrderRefund => found(store.refunds, refundId, 'refund')
  const view = <T>(map: Map<string, T>, id: string, render: (value: T, base: string) => V2Resource): V2Resource | undefined => {
    const value = map.get(id)
    return value === undefined ? undefined : render(value, base())
  }

  return {
    counters: () => ({ ...store.counters }),
    approve: (orderId, options = {}) => approveOrder(orders, order(orderId), options, base()),
    cancel: (orderId) => cancelOrderRedirect(order(orderId)),
    setOutcome (outcome) {
      store.outcomeOverride = outcome
    },
    settleCapture: (captureId, status) => captureView(settleCapture(orders, capture(captureId), status, base()), base()),
    reverseCapture: (captureId, options = {}) => orderRefundView(reverseCapture(orders, capture(captureId), base(), options.amountMinor), base()),
    queueRefundOutcome (status, times = 1) {
      if (!REFUND_OUTCOMES.has(status) || !Number.isInteger(times) || times < 1) {
        throw new TypeError(`PayPal simulator: queueRefundOutcome takes PENDING, FAILED or CANCELLED and a positive count, got ${String(status)} × ${String(times)}`)
      }
      for (let index = 0; index < times; index++) store.refundOutcomes.push(status)
    },
    settleRefund: (refundId, status) => orderRefundView(settleRefund(orders, refund(refundId), status, base()), base()),
    order: (orderId) => view(store.orders, orderId, orderView),
    capture: (captureId) => view(store.captures, captureId, captureView),
    authorization (authorizationId) {
      expireAuthorizations(orders, base())
      return view(store.authorizations, authorizationId, authorizationView)
    },
    refund: (refundId) => view(store.refunds, refundId, orderRefundView)
  }
}
