import { newTransactionId } from '../runtime/ids.ts'
import type { SimulatorRuntime } from '../runtime/runtime.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'
import { unprocessable } from './errors.ts'
import { emitAuthorizationEvent, emitCaptureEvent, emitOrderCompleted } from './events.ts'
import type { OrdersStore, StoredAuthorization, StoredCapture, StoredOrder } from './store.ts'
import { payerActionUrl } from './views.ts'

const DAY_MS = 24 * 3600 * 1000
/**
 * An authorization holds the money 29 days, with a 3-day honor period
 * (https://developer.paypal.com/docs/checkout/advanced/authorization-honor).
 */
export const AUTHORIZATION_PERIOD_MS = 29 * DAY_MS
export const HONOR_PERIOD_MS = 3 * DAY_MS

export interface Orders {
  readonly runtime: SimulatorRuntime
  readonly store: OrdersStore
  readonly webhooks: WebhookEngine
}

export function isExpired (orders: Orders, order: StoredOrder): boolean {
  const { store } = orders.runtime
  return order.status !== 'COMPLETED' && store.now() > order.createdAt + store.config.paymentTtlSeconds * 1000
}

/** The checks PayPal makes before an order's capture or authorize, in its order. */
function assertPayable (orders: Orders, order: StoredOrder, action: 'CAPTURE' | 'AUTHORIZE'): NonNullable<StoredOrder['approval']> {
  if (order.intent !== action) throw unprocessable('ACTION_DOES_NOT_MATCH_INTENT')
  if (order.status === 'COMPLETED') throw unprocessable(action === 'CAPTURE' ? 'ORDER_ALREADY_CAPTURED' : 'ORDER_ALREADY_AUTHORIZED')
  if (isExpired(orders, order)) throw unprocessable('ORDER_EXPIRED')
  if (order.status !== 'APPROVED' || order.approval === undefined) throw unprocessable('ORDER_NOT_APPROVED')
  const invoice = order.purchaseUnit.invoice_id
  if (typeof invoice === 'string' && [...orders.store.orders.values()].some((other) => other !== order &&
    other.clientId === order.clientId && other.purchaseUnit.invoice_id === invoice && other.status === 'COMPLETED')) {
    throw unprocessable('DUPLICATE_INVOICE_ID')
  }
  return order.approval
}

/**
 * The instrument was refused or needs the buyer: 422 with a `redirect` link back to PayPal's checkout
 * (`/checkoutnow?token=<order id>`, as in PayPal's recorded answers), where the buyer picks another way
 * to pay. The order stays APPROVED, as PayPal leaves it: the merchant restarts the payment on the same
 * order (https://developer.paypal.com/docs/checkout/standard/customize/handle-funding-failures/,
 * checkout_orders_v2.json `orders.capture-422` / `orders.authorize-422`).
 */
function refuseInstrument (orders: Orders, order: StoredOrder, outcome: 'declined' | 'payer_action_required', base: string): never {
  orders.store.counters.declines++
  const redirect = { href: payerActionUrl(base, order), rel: 'redirect', method: 'GET' }
  throw unprocessable(outcome === 'declined' ? 'INSTRUMENT_DECLINED' : 'PAYER_ACTION_REQUIRED', [redirect])
}

export function newCapture (orders: Orders, order: StoredOrder, amountMinor: number, authorization?: StoredAuthorization): StoredCapture {
  const now = orders.runtime.store.now()
  const capture: StoredCapture = {
    id: newTransactionId(),
    order,
    status: 'COMPLETED',
    currency: order.currency,
    amountMinor,
    refundedMinor: 0,
    pendingRefundMinor: 0,
    refunds: [],
    finalCapture: true,
    createdAt: now,
    updatedAt: now
  }
  if (authorization !== undefined) capture.authorization = authorization
  orders.store.captures.set(capture.id, capture)
  order.captures.push(capture)
  return capture
}

// The same instrument is refused again until the buyer chooses anew on the redirect page.
function outcomeOf (orders: Orders, approval: NonNullable<StoredOrder['approval']>): NonNullable<StoredOrder['approval']>['outcome'] {
  return orders.store.outcomeOverride ?? approval.outcome
}

/** POST /v2/checkout/orders/{id}/capture, the money movement once the checks passed. */
export function captureOrder (orders: Orders, order: StoredOrder, base: string): StoredOrder {
  const approval = assertPayable(orders, order, 'CAPTURE')
  const outcome = outcomeOf(orders, approval)
  orders.store.counters.ordersCaptured++
  if (outcome === 'declined' || outcome === 'payer_action_required') refuseInstrument(orders, order, outcome, base)
  const capture = newCapture(orders, order, order.totalMinor)
  if (outcome === 'pending') Object.assign(capture, { status: 'PENDING', reason: orders.runtime.store.config.pendingReasonCode })
  if (outcome === 'capture_declined') Object.assign(capture, { status: 'DECLINED', reason: 'DECLINED_BY_RISK_FRAUD_FILTERS' })
  if (outcome === 'capture_declined') orders.store.counters.declines++
  order.status = 'COMPLETED'
  order.updatedAt = capture.createdAt
  emitCaptureEvent(orders.webhooks, capture, base, 'created')
  emitOrderCompleted(orders.webhooks, order, base)
  return order
}

/** POST /v2/checkout/orders/{id}/authorize. */
export function authorizeOrder (orders: Orders, order: StoredOrder, base: string): StoredOrder {
  const approval = assertPayable(orders, order, 'AUTHORIZE')
  const outcome = outcomeOf(orders, approval)
  orders.store.counters.ordersAuthorized++
  if (outcome === 'declined' || outcome === 'payer_action_required') refuseInstrument(orders, order, outcome, base)
  const now = orders.runtime.store.now()
  const authorization: StoredAuthorization = {
    id: newTransactionId(),
    order,
    status: outcome === 'pending' ? 'PENDING' : outcome === 'capture_declined' ? 'DENIED' : 'CREATED',
    currency: order.currency,
    amountMinor: order.totalMinor,
    capturedMinor: 0,
    createdAt: now,
    updatedAt: now,
    expiresAt: now + AUTHORIZATION_PERIOD_MS
  }
  if (outcome === 'capture_declined') orders.store.counters.declines++
  orders.store.authorizations.set(authorization.id, authorization)
  order.authorizations.push(authorization)
  order.status = 'COMPLETED'
  order.updatedAt = now
  emitAuthorizationEvent(orders.webhooks, authorization, base)
  emitOrderCompleted(orders.webhooks, order, base)
  return order
}

/** A pending capture clears or is declined (what `simulator.orders.settleCapture` drives). */
export function settleCapture (orders: Orders, capture: StoredCapture, status: 'COMPLETED' | 'DECLINED', base: string): StoredCapture {
  if (capture.status !== 'PENDING') throw new Error(`PayPal simulator: capture ${capture.id} is ${capture.status}, not PENDING`)
  capture.status = status
  delete capture.reason
  capture.updatedAt = orders.runtime.store.now()
  emitCaptureEvent(orders.webhooks, capture, base, 'settled')
  return capture
}
