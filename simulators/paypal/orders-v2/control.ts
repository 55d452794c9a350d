import type { V2Resource } from './views.ts'
import { approveOrder, cancelOrderRedirect, type OrderApprovalResult, type OrderApproveOptions } from './approval.ts'
import { reverseCapture, settleCapture, type Orders } from './operations.ts'
import type { OrderOutcome, OrdersCounters, StoredOrder } from './store.ts'
import { captureView, orderRefundView, orderView } from './views.ts'

export type { OrderApprovalResult, OrderApproveOptions } from './approval.ts'
export type { OrderOutcome, OrdersCounters } from './store.ts'

/** What tests drive Orders v2 with (`app.simulator.orders`). */
export interface OrdersControl {
  counters: () => OrdersCounters
  /** The buyer approves on the payer-action page (`outcome` decides what the next capture or authorize does). */
  approve: (orderId: string, options?: OrderApproveOptions) => OrderApprovalResult
  /** The buyer cancels: cancel_url with `token` appended. */
  cancel: (orderId: string) => string | undefined
  /** Overrides the buyer's choice for every later capture or authorize; undefined restores it. */
  setOutcome: (outcome: OrderOutcome | undefined) => void
  /** A PENDING capture clears (COMPLETED) or is DECLINED, with its webhook. */
  settleCapture: (captureId: string, status: 'COMPLETED' | 'DECLINED') => V2Resource
  /** A chargeback: what remains of the capture goes back, PAYMENT.CAPTURE.REVERSED is sent. Returns the reversal. */
  reverseCapture: (captureId: string) => V2Resource
  order: (orderId: string) => V2Resource | undefined
  capture: (captureId: string) => V2Resource | undefined
}

export function createOrdersControl (orders: Orders): OrdersControl {
  const base = (): string => orders.runtime.baseUrl()

  function order (orderId: string): StoredOrder {
    const found = orders.store.orders.get(orderId)
    if (found === undefined) throw new Error(`PayPal simulator: no order ${orderId}`)
    return found
  }

  function capture (captureId: string) {
    const found = orders.store.captures.get(captureId)
    if (found === undefined) throw new Error(`PayPal simulator: no capture ${captureId}`)
    return found
  }

  return {
    counters: () => ({ ...orders.store.counters }),
    approve: (orderId, options = {}) => approveOrder(orders, order(orderId), options, base()),
    cancel: (orderId) => cancelOrderRedirect(order(orderId)),
    setOutcome (outcome) {
      orders.store.outcomeOverride = outcome
    },
    settleCapture: (captureId, status) => captureView(settleCapture(orders, capture(captureId), status, base()), base()),
    reverseCapture: (captureId) => orderRefundView(reverseCapture(orders, capture(captureId), base()), base()),
    order (orderId) {
      const found = orders.store.orders.get(orderId)
      return found === undefined ? undefined : orderView(found, base())
    },
    capture (captureId) {
      const found = orders.store.captures.get(captureId)
      return found === undefined ? undefined : captureView(found, base())
    }
  }
}
