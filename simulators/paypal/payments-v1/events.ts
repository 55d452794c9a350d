import { formatMinorUnits } from '../runtime/amounts.ts'
import type { WebhookEngine } from '../runtime/webhook-delivery.ts'
import { paymentView, refundView, reversalEventView, saleView } from './resources.ts'
import type { StoredPayment, StoredRefund, StoredReversal, StoredSale } from './store.ts'

const SALE_EVENTS = {
  completed: { eventType: 'PAYMENT.SALE.COMPLETED', summary: 'Payment completed for' },
  pending: { eventType: 'PAYMENT.SALE.PENDING', summary: 'Payment pending for' },
  denied: { eventType: 'PAYMENT.SALE.DENIED', summary: 'Payment denied for' }
} as const

/** PAYMENT.SALE.COMPLETED / PENDING / DENIED. */
export function emitSaleEvent (webhooks: WebhookEngine, kind: keyof typeof SALE_EVENTS, sale: StoredSale, base: string): void {
  const { eventType, summary } = SALE_EVENTS[kind]
  webhooks.emit({
    clientId: sale.clientId,
    eventType,
    resourceType: 'sale',
    summary: `${summary} ${formatMinorUnits(sale.totalMinor, sale.currency)} ${sale.currency}`,
    resource: saleView(sale, base)
  }, base)
}

export function emitRefundEvent (webhooks: WebhookEngine, refund: StoredRefund, base: string): void {
  webhooks.emit({
    clientId: refund.sale.clientId,
    eventType: 'PAYMENT.SALE.REFUNDED',
    resourceType: 'refund',
    summary: `A ${formatMinorUnits(refund.amountMinor, refund.currency)} ${refund.currency} sale payment was refunded`,
    resource: refundView(refund, base)
  }, base)
}

/** As PayPal's sample event (https://developer.paypal.com/api/rest/webhooks/event-names/#sales): resource_type `sale`, the reversal transaction as resource. */
export function emitReversalEvent (webhooks: WebhookEngine, reversal: StoredReversal, base: string): void {
  webhooks.emit({
    clientId: reversal.sale.clientId,
    eventType: 'PAYMENT.SALE.REVERSED',
    resourceType: 'sale',
    summary: `A ${formatMinorUnits(reversal.amountMinor, reversal.currency)} ${reversal.currency} sale payment was reversed`,
    resource: reversalEventView(reversal, base)
  }, base)
}

/** PayPal sends PAYMENTS.PAYMENT.CREATED once the buyer has approved (paypal-wire §4.2). */
export function emitPaymentApproved (webhooks: WebhookEngine, payment: StoredPayment, base: string): void {
  webhooks.emit({
    clientId: payment.clientId,
    eventType: 'PAYMENTS.PAYMENT.CREATED',
    resourceType: 'payment',
    summary: 'Checkout payment is created and approved by buyer',
    resource: paymentView(payment, base)
  }, base)
}
