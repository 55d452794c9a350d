import { newTransactionId } from '../runtime/ids.ts'
import { unprocessable } from './errors.ts'
import { emitRefundEvent } from './events.ts'
import type { Orders } from './operations.ts'
import type { RefundStatus, StoredCapture, StoredOrderRefund } from './store.ts'

function refundable (capture: StoredCapture): number {
  return capture.amountMinor - capture.refundedMinor - capture.pendingRefundMinor
}

function newRefund (orders: Orders, capture: StoredCapture, amountMinor: number, status: RefundStatus, reversal: boolean): StoredOrderRefund {
  const now = orders.runtime.store.now()
  const refund: StoredOrderRefund = {
    id: newTransactionId(), capture, status, currency: capture.currency, amountMinor, totalRefundedMinor: capture.refundedMinor, reversal, createdAt: now, updatedAt: now
  }
  capture.refunds.push(refund)
  orders.store.refunds.set(refund.id, refund)
  applyRefund(orders, refund)
  return refund
}

/** What a refund's status does to its capture: COMPLETED moves the money, PENDING holds it, FAILED and CANCELLED move nothing. */
function applyRefund (orders: Orders, refund: StoredOrderRefund): void {
  const { capture } = refund
  if (refund.status === 'PENDING') capture.pendingRefundMinor += refund.amountMinor
  if (refund.status !== 'COMPLETED') return
  capture.refundedMinor += refund.amountMinor
  capture.status = capture.refundedMinor === capture.amountMinor ? 'REFUNDED' : 'PARTIALLY_REFUNDED'
  capture.updatedAt = orders.runtime.store.now()
  refund.totalRefundedMinor = capture.refundedMinor
}

/**
 * POST /v2/payments/captures/{id}/refund: what remains, or `amountMinor` of it (payments_payment_v2.json
 * `captures.refund-422`). The refund is COMPLETED unless the test queued PENDING, FAILED or CANCELLED
 * (`orders.queueRefundOutcome`): the statuses of https://developer.paypal.com/api/payments/v2/definitions/refund_status.
 */
export function refundCapture (orders: Orders, capture: StoredCapture, amountMinor: number | undefined,
  fields: Record<string, unknown>, base: string): StoredOrderRefund {
  if (capture.status === 'PENDING') throw unprocessable('PENDING_CAPTURE')
  if (capture.status === 'REFUNDED') throw unprocessable('CAPTURE_FULLY_REFUNDED')
  if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') throw unprocessable('REFUND_NOT_ALLOWED')
  const remaining = refundable(capture)
  if ((amountMinor ?? remaining) > remaining || remaining === 0) throw unprocessable('REFUND_AMOUNT_EXCEEDED')
  orders.store.counters.refunds++
  const status = orders.store.refundOutcomes.shift() ?? 'COMPLETED'
  const refund = newRefund(orders, capture, amountMinor ?? remaining, status, false)
  if (typeof fields.invoice_id === 'string') refund.invoiceId = fields.invoice_id
  if (typeof fields.custom_id === 'string') refund.customId = fields.custom_id
  if (typeof fields.note_to_payer === 'string') refund.noteToPayer = fields.note_to_payer
  emitRefundEvent(orders.webhooks, refund, base)
  return refund
}

/** A PENDING refund completes or fails later (`orders.settleRefund`), with PAYMENT.CAPTURE.REFUNDED carrying its new status. */
export function settleRefund (orders: Orders, refund: StoredOrderRefund, status: 'COMPLETED' | 'FAILED', base: string): StoredOrderRefund {
  if (refund.status !== 'PENDING') throw new Error(`PayPal simulator: refund ${refund.id} is ${refund.status}, not PENDING`)
  refund.capture.pendingRefundMinor -= refund.amountMinor
  refund.status = status
  refund.updatedAt = orders.runtime.store.now()
  applyRefund(orders, refund)
  emitRefundEvent(orders.webhooks, refund, base)
  return refund
}

/**
 * PayPal takes back what was not refunded yet (a chargeback, a dispute lost): the capture reads REFUNDED,
 * PAYMENT.CAPTURE.REVERSED is sent with the reversal. `amountMinor` defaults to all that remains.
 */
export function reverseCapture (orders: Orders, capture: StoredCapture, base: string, amountMinor?: number): StoredOrderRefund {
  if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED') {
    throw new Error(`PayPal simulator: capture ${capture.id} is ${capture.status}; only a completed or partially refunded capture can be reversed`)
  }
  orders.store.counters.reversals++
  const reversal = newRefund(orders, capture, Math.min(amountMinor ?? Infinity, refundable(capture)), 'COMPLETED', true)
  emitRefundEvent(orders.webhooks, reversal, base)
  return reversal
}
