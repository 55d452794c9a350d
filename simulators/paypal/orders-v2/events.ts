import { formatMinorUnits } from '../runtime/amounts.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'
import type { StoredAuthorization, StoredCapture, StoredOrder, StoredOrderRefund } from './store.ts'
import { authorizationView, captureView, orderRefundView, orderView } from './views.ts'

function amountText (minor: number, currency: string): string {
  return `${formatMinorUnits(minor, currency)} ${currency}`
}

/** CHECKOUT.ORDER.APPROVED, once the buyer approved on the payer-action page. */
export function emitOrderApproved (webhooks: WebhookEngine, order: StoredOrder, base: string): void {
  webhooks.emit({
    clientId: order.clientId,
    eventType: 'CHECKOUT.ORDER.APPROVED',
    resourceType: 'checkout-order',
    resourceVersion: '2.0',
    summary: 'An order has been approved by buyer',
    resource: orderView(order, base)
  }, base)
}

/**
 * CHECKOUT.ORDER.COMPLETED once the order's intent is done (captured or authorized), with the order:
 * "a checkout order is processed" (https://developer.paypal.com/api/rest/webhooks/event-names/#orders).
 * PayPal notes it is "for use by marketplaces and platforms": sent to every subscription that asks for
 * it, so gateways are tested with it, while a shop's logic must not depend on receiving it.
 */
export function emitOrderCompleted (webhooks: WebhookEngine, order: StoredOrder, base: string): void {
  webhooks.emit({
    clientId: order.clientId,
    eventType: 'CHECKOUT.ORDER.COMPLETED',
    resourceType: 'checkout-order',
    resourceVersion: '2.0',
    summary: 'Checkout Order Completed',
    resource: orderView(order, base)
  }, base)
}

// The event names of https://developer.paypal.com/api/rest/webhooks/event-names/#payments-v2: a capture
// refused when it is made is DECLINED; a pending one that bounces later is DENIED.
const CAPTURE_EVENTS = {
  COMPLETED: { eventType: 'PAYMENT.CAPTURE.COMPLETED', summary: 'Payment completed for' },
  PENDING: { eventType: 'PAYMENT.CAPTURE.PENDING', summary: 'Payment pending for' },
  DECLINED: { eventType: 'PAYMENT.CAPTURE.DECLINED', summary: 'Payment declined for' },
  DENIED: { eventType: 'PAYMENT.CAPTURE.DENIED', summary: 'Payment denied for' }
} as const

/** PAYMENT.CAPTURE.COMPLETED / PENDING / DECLINED when it is made, COMPLETED / DENIED when a pending one settles. */
export function emitCaptureEvent (webhooks: WebhookEngine, capture: StoredCapture, base: string, moment: 'created' | 'settled'): void {
  const kind = capture.status === 'DECLINED' && moment === 'settled' ? 'DENIED' : capture.status as keyof typeof CAPTURE_EVENTS
  const { eventType, summary } = CAPTURE_EVENTS[kind]
  webhooks.emit({
    clientId: capture.order.clientId,
    eventType,
    resourceType: 'capture',
    resourceVersion: '2.0',
    summary: `${summary} ${amountText(capture.amountMinor, capture.currency)}`,
    resource: captureView(capture, base)
  }, base)
}

/** PAYMENT.CAPTURE.REFUNDED for a refund (with its status as it is now), PAYMENT.CAPTURE.REVERSED for what PayPal took back. */
export function emitRefundEvent (webhooks: WebhookEngine, refund: StoredOrderRefund, base: string): void {
  webhooks.emit({
    clientId: refund.capture.order.clientId,
    eventType: refund.reversal ? 'PAYMENT.CAPTURE.REVERSED' : 'PAYMENT.CAPTURE.REFUNDED',
    resourceType: 'refund',
    resourceVersion: '2.0',
    summary: `A ${amountText(refund.amountMinor, refund.currency)} capture payment was ${refund.reversal ? 'reversed' : 'refunded'}`,
    resource: orderRefundView(refund, base)
  }, base)
}

/** PAYMENT.AUTHORIZATION.CREATED / VOIDED. */
export function emitAuthorizationEvent (webhooks: WebhookEngine, authorization: StoredAuthorization, base: string): void {
  const voided = authorization.status === 'VOIDED'
  webhooks.emit({
    clientId: authorization.order.clientId,
    eventType: voided ? 'PAYMENT.AUTHORIZATION.VOIDED' : 'PAYMENT.AUTHORIZATION.CREATED',
    resourceType: 'authorization',
    resourceVersion: '2.0',
    summary: `A payment authorization ${voided ? 'was voided' : 'was created'} for ${amountText(authorization.amountMinor, authorization.currency)}`,
    resource: authorizationView(authorization, base)
  }, base)
}
