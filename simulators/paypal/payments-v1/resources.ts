import { formatMinorUnits } from '../runtime/amounts.ts'
import { paypalTime } from '../runtime/store.ts'
import type { Link } from '../runtime/types.ts'
import type { StoredPayment, StoredRefund, StoredReversal, StoredSale } from './store.ts'
import type { PaymentResource, RefundResource, ReversalEventResource, ReversalResource, SaleResource } from './types.ts'

const ECHECK_CLEARING_MS = 4 * 24 * 3600 * 1000

function link (href: string, rel: string, method: string): Link {
  return { href, rel, method }
}

export function approvalUrl (base: string, payment: StoredPayment): string {
  return `${base}/cgi-bin/webscr?cmd=_express-checkout&token=${payment.ecToken}`
}

export function saleView (sale: StoredSale, base: string): SaleResource {
  const paymentId = sale.payment.id
  const view: SaleResource = {
    id: sale.id,
    state: sale.state,
    amount: { total: formatMinorUnits(sale.totalMinor, sale.currency), currency: sale.currency },
    payment_mode: sale.pendingReasonCode === 'ECHECK' ? 'ECHECK' : 'INSTANT_TRANSFER',
    protection_eligibility: 'ELIGIBLE',
    protection_eligibility_type: 'ITEM_NOT_RECEIVED_ELIGIBLE,UNAUTHORIZED_PAYMENT_ELIGIBLE',
    transaction_fee: { value: formatMinorUnits(sale.feeMinor, sale.currency), currency: sale.currency },
    parent_payment: paymentId,
    create_time: paypalTime(sale.createdAt),
    update_time: paypalTime(sale.updatedAt),
    links: [
      link(`${base}/v1/payments/sale/${sale.id}`, 'self', 'GET'),
      link(`${base}/v1/payments/sale/${sale.id}/refund`, 'refund', 'POST'),
      link(`${base}/v1/payments/payment/${paymentId}`, 'parent_payment', 'GET')
    ]
  }
  if (sale.details !== undefined) view.amount.details = sale.details
  if (sale.state === 'pending') {
    view.reason_code = sale.pendingReasonCode
    view.clearing_time = paypalTime(sale.createdAt + ECHECK_CLEARING_MS)
  }
  // The spec's reason_code "describes why the transaction state is pending or reversed".
  if (sale.reversal !== undefined) view.reason_code = sale.reversal.reasonCode
  for (const field of ['invoice_number', 'custom', 'soft_descriptor'] as const) {
    const value = sale.payment.transaction[field]
    if (typeof value === 'string') view[field] = value
  }
  return view
}

export function refundView (refund: StoredRefund, base: string): RefundResource {
  const saleId = refund.sale.id
  const paymentId = refund.sale.payment.id
  const view: RefundResource = {
    id: refund.id,
    state: refund.state,
    amount: { total: formatMinorUnits(refund.amountMinor, refund.currency), currency: refund.currency },
    sale_id: saleId,
    parent_payment: paymentId,
    total_refunded_amount: { value: formatMinorUnits(refund.refundedMinorAfter, refund.currency), currency: refund.currency },
    create_time: paypalTime(refund.createdAt),
    update_time: paypalTime(refund.updatedAt),
    links: [
      link(`${base}/v1/payments/refund/${refund.id}`, 'self', 'GET'),
      link(`${base}/v1/payments/payment/${paymentId}`, 'parent_payment', 'GET'),
      link(`${base}/v1/payments/sale/${saleId}`, 'sale', 'GET')
    ]
  }
  if (refund.description !== undefined) view.description = refund.description
  if (refund.reason !== undefined) view.reason = refund.reason
  if (refund.invoiceNumber !== undefined) view.invoice_number = refund.invoiceNumber
  return view
}

/** The reversal as its self link (`GET /v1/payments/refund/{id}`) answers: the v1 `refund` schema's fields, the amount negative as in the event. */
export function reversalView (reversal: StoredReversal, base: string): ReversalResource {
  const saleId = reversal.sale.id
  const paymentId = reversal.sale.payment.id
  return {
    id: reversal.id,
    state: 'completed',
    amount: { total: formatMinorUnits(-reversal.amountMinor, reversal.currency), currency: reversal.currency },
    sale_id: saleId,
    parent_payment: paymentId,
    create_time: paypalTime(reversal.createdAt),
    update_time: paypalTime(reversal.createdAt),
    links: [
      link(`${base}/v1/payments/refund/${reversal.id}`, 'self', 'GET'),
      link(`${base}/v1/payments/payment/${paymentId}`, 'parent_payment', 'GET'),
      link(`${base}/v1/payments/sale/${saleId}`, 'sale', 'GET')
    ]
  }
}

/**
 * PAYMENT.SALE.REVERSED's resource, field for field as PayPal's sample event
 * (https://developer.paypal.com/api/rest/webhooks/event-names/#sales): no parent payment, sale or
 * reason, only the reversal's self link, from which a receiver learns the rest.
 */
export function reversalEventView (reversal: StoredReversal, base: string): ReversalEventResource {
  return {
    id: reversal.id,
    create_time: paypalTime(reversal.createdAt),
    state: 'completed',
    amount: { total: formatMinorUnits(-reversal.amountMinor, reversal.currency), currency: reversal.currency },
    links: [link(`${base}/v1/payments/refund/${reversal.id}`, 'self', 'GET')]
  }
}

export function paymentView (payment: StoredPayment, base: string): PaymentResource {
  const self = `${base}/v1/payments/payment/${payment.id}`
  const transaction = { ...payment.transaction } as PaymentResource['transactions'][number]
  const { sale } = payment
  // PayPal never shows related_resources before execution (paypal-wire §2.1).
  if (sale !== undefined) {
    transaction.related_resources = [
      { sale: saleView(sale, base) },
      ...sale.refunds.map((refund) => ({ refund: refundView(refund, base) }))
    ]
  }

  const view: PaymentResource = {
    id: payment.id,
    intent: 'sale',
    state: payment.state,
    cart: payment.ecToken.slice('EC-'.length),
    payer: { payment_method: 'paypal' },
    transactions: [transaction],
    create_time: paypalTime(payment.createdAt),
    update_time: paypalTime(payment.updatedAt),
    links: [link(self, 'self', 'GET')]
  }
  if (payment.noteToPayer !== undefined) view.note_to_payer = payment.noteToPayer
  if (payment.failureReason !== undefined) view.failure_reason = payment.failureReason
  if (payment.approval !== undefined) {
    const { buyer } = payment.approval
    view.payer.status = 'VERIFIED'
    view.payer.payer_info = {
      email: buyer.email,
      first_name: buyer.firstName,
      last_name: buyer.lastName,
      payer_id: buyer.payerId,
      country_code: buyer.countryCode
    }
  }
  if (payment.state === 'created') {
    view.links.push(link(approvalUrl(base, payment), 'approval_url', 'REDIRECT'), link(`${self}/execute`, 'execute', 'POST'))
  }
  return view
}
