import { newTransactionId } from '../runtime/ids.ts'
import type { SimulatorRuntime } from '../runtime/runtime.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'
import { unprocessable } from './errors.ts'
import { emitAuthorizationEvent, emitCaptureEvent, emitRefundEvent } from './events.ts'
import type { OrdersStore, StoredAuthorization, StoredCapture, StoredOrder, StoredOrderRefund } from './store.ts'

/** PayPal honours an authorization for 29 days (3 of them guaranteed). */
const AUTHORIZATION_DAYS = 29

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

/** The instrument was refused or needs the buyer: the order goes back to the payer-action page. */
function refuseInstrument (orders: Orders, order: StoredOrder, outcome: 'declined' | 'payer_action_required'): never {
  orders.store.counters.declines++
  delete order.approval
  order.status = 'PAYER_ACTION_REQUIRED'
  order.updatedAt = orders.runtime.store.now()
  throw unprocessable(outcome === 'declined' ? 'INSTRUMENT_DECLINED' : 'PAYER_ACTION_REQUIRED')
}

function newCapture (orders: Orders, order: StoredOrder, amountMinor: number, authorization?: StoredAuthorization): StoredCapture {
  const now = orders.runtime.store.now()
  const capture: StoredCapture = {
    id: newTransactionId(),
    order,
    status: 'COMPLETED',
    currency: order.currency,
    amountMinor,
    refundedMinor: 0,
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

/** POST /v2/checkout/orders/{id}/capture, the money movement once the checks passed. */
export function captureOrder (orders: Orders, order: StoredOrder, base: string): StoredOrder {
  const approval = assertPayable(orders, order, 'CAPTURE')
  const outcome = orders.store.outcomeOverride ?? approval.outcome
  orders.store.counters.ordersCaptured++
  if (outcome === 'declined' || outcome === 'payer_action_required') refuseInstrument(orders, order, outcome)
  const capture = newCapture(orders, order, order.totalMinor)
  if (outcome === 'pending') Object.assign(capture, { status: 'PENDING', reason: orders.runtime.store.config.pendingReasonCode })
  if (outcome === 'capture_declined') Object.assign(capture, { status: 'DECLINED', reason: 'DECLINED_BY_RISK_FRAUD_FILTERS' })
  if (outcome === 'capture_declined') orders.store.counters.declines++
  order.status = 'COMPLETED'
  order.updatedAt = capture.createdAt
  emitCaptureEvent(orders.webhooks, capture, base)
  return order
}

/** POST /v2/checkout/orders/{id}/authorize. */
export function authorizeOrder (orders: Orders, order: StoredOrder, base: string): StoredOrder {
  const approval = assertPayable(orders, order, 'AUTHORIZE')
  const outcome = orders.store.outcomeOverride ?? approval.outcome
  orders.store.counters.ordersAuthorized++
  if (outcome === 'declined' || outcome === 'payer_action_required') refuseInstrument(orders, order, outcome)
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
    expiresAt: now + AUTHORIZATION_DAYS * 24 * 3600 * 1000
  }
  if (outcome === 'capture_declined') orders.store.counters.declines++
  orders.store.authorizations.set(authorization.id, authorization)
  order.authorizations.push(authorization)
  order.status = 'COMPLETED'
  order.updatedAt = now
  emitAuthorizationEvent(orders.webhooks, authorization, base)
  return order
}

/** POST /v2/payments/authorizations/{id}/capture: all of what remains, or `amountMinor` of it. */
export function captureAuthorization (orders: Orders, authorization: StoredAuthorization, amountMinor: number | undefined,
  finalCapture: boolean, base: string): StoredCapture {
  if (authorization.status === 'VOIDED') throw unprocessable('AUTHORIZATION_VOIDED')
  if (authorization.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED')
  if (authorization.status !== 'CREATED' && authorization.status !== 'PARTIALLY_CAPTURED') throw unprocessable('AUTHORIZATION_DENIED')
  const remaining = authorization.amountMinor - authorization.capturedMinor
  const amount = amountMinor ?? remaining
  if (amount > remaining) throw unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED')
  orders.store.counters.authorizationsCaptured++
  const capture = newCapture(orders, authorization.order, amount, authorization)
  capture.finalCapture = finalCapture
  authorization.capturedMinor += amount
  authorization.status = finalCapture || authorization.capturedMinor === authorization.amountMinor ? 'CAPTURED' : 'PARTIALLY_CAPTURED'
  authorization.updatedAt = capture.createdAt
  emitCaptureEvent(orders.webhooks, capture, base)
  return capture
}

export function voidAuthorization (orders: Orders, authorization: StoredAuthorization, base: string): StoredAuthorization {
  if (authorization.status === 'VOIDED') throw unprocessable('PREVIOUSLY_VOIDED')
  if (authorization.status === 'CAPTURED') throw unprocessable('AUTHORIZATION_ALREADY_CAPTURED')
  if (authorization.status !== 'CREATED' && authorization.status !== 'PARTIALLY_CAPTURED') throw unprocessable('CANNOT_BE_VOIDED')
  orders.store.counters.authorizationsVoided++
  authorization.status = 'VOIDED'
  authorization.updatedAt = orders.runtime.store.now()
  emitAuthorizationEvent(orders.webhooks, authorization, base)
  return authorization
}

function newRefund (orders: Orders, capture: StoredCapture, amountMinor: number): StoredOrderRefund {
  const refund: StoredOrderRefund = { id: newTransactionId(), capture, currency: capture.currency, amountMinor, createdAt: orders.runtime.store.now() }
  capture.refundedMinor += amountMinor
  capture.status = capture.refundedMinor === capture.amountMinor ? 'REFUNDED' : 'PARTIALLY_REFUNDED'
  capture.updatedAt = refund.createdAt
  capture.refunds.push(refund)
  orders.store.refunds.set(refund.id, refund)
  return refund
}

/** POST /v2/payments/captures/{id}/refund: what remains, or `amountMinor` of it. */
export function refundCapture (orders: Orders, capture: StoredCapture, amountMinor: number | undefined,
  fields: Record<string, unknown>, base: string): StoredOrderRefund {
  if (capture.status === 'REFUNDED') throw unprocessable('CAPTURE_FULLY_REFUNDED')
  if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') throw unprocessable('REFUND_NOT_ALLOWED')
  const remaining = capture.amountMinor - capture.refundedMinor
  if ((amountMinor ?? remaining) > remaining) throw unprocessable('REFUND_AMOUNT_EXCEEDED')
  orders.store.counters.refunds++
  const refund = newRefund(orders, capture, amountMinor ?? remaining)
  if (typeof fields.invoice_id === 'string') refund.invoiceId = fields.invoice_id
  if (typeof fields.note_to_payer === 'string') refund.noteToPayer = fields.note_to_payer
  emitRefundEvent(orders.webhooks, refund, base)
  return refund
}

/** A pending capture clears or is declined (what `simulator.orders.settleCapture` drives). */
export function settleCapture (orders: Orders, capture: StoredCapture, status: 'COMPLETED' | 'DECLINED', base: string): StoredCapture {
  if (capture.status !== 'PENDING') throw new Error(`PayPal simulator: capture ${capture.id} is ${capture.status}, not PENDING`)
  capture.status = status
  delete capture.reason
  capture.updatedAt = orders.runtime.store.now()
  emitCaptureEvent(orders.webhooks, capture, base)
  return capture
}

/** PayPal takes back what was not refunded yet (a chargeback): the capture reads REFUNDED, PAYMENT.CAPTURE.REVERSED is sent. */
export function reverseCapture (orders: Orders, capture: StoredCapture, base: string): StoredOrderRefund {
  if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') {
    throw new Error(`PayPal simulator: capture ${capture.id} is ${capture.status}; only a completed or partially refunded capture can be reversed`)
  }
  orders.store.counters.reversals++
  const reversal = newRefund(orders, capture, capture.amountMinor - capture.refundedMinor)
  emitRefundEvent(orders.webhooks, reversal, base, true)
  return reversal
}
