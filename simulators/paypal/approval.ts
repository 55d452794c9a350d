import { emitPaymentApproved } from './events.ts'
import { PaypalApiError } from './paypal-errors.ts'
import type { SimulatorRuntime } from './runtime.ts'
import type { StoredPayment } from './store.ts'
import type { ApprovalResult, ApproveOptions } from './types.ts'
import type { WebhookEngine } from './webhook-delivery.ts'

/**
 * Appends parameters after whatever query the merchant's URL already has, keeping that query
 * byte for byte (Payum-style `?cancelled=1` URLs must survive) and any fragment after it.
 */
export function appendQuery (url: string, parameters: Record<string, string>): string {
  const target = new URL(url)
  const existing = target.search.slice(1)
  const added = new URLSearchParams(parameters).toString()
  target.search = existing === '' ? added : `${existing}&${added}`
  return target.toString()
}

/** The buyer approves: payer details are filled, the state stays `created` until execute (paypal-wire §2.2). */
export function approvePayment (
  runtime: SimulatorRuntime, webhooks: WebhookEngine, payment: StoredPayment, options: ApproveOptions, base: string
): ApprovalResult {
  if (payment.state !== 'created') throw new PaypalApiError('PAYMENT_STATE_INVALID')
  if (runtime.isExpired(payment)) throw new PaypalApiError('PAYMENT_EXPIRED')
  const firstApproval = payment.approval === undefined
  payment.approval = {
    buyer: { ...runtime.store.config.buyer, ...options.buyer },
    outcome: options.outcome ?? 'completed'
  }
  payment.updatedAt = runtime.store.now()
  if (firstApproval) emitPaymentApproved(webhooks, payment, base)
  const payerId = payment.approval.buyer.payerId
  return {
    paymentId: payment.id,
    token: payment.ecToken,
    payerId,
    redirectUrl: appendQuery(payment.returnUrl, { paymentId: payment.id, token: payment.ecToken, PayerID: payerId })
  }
}

/** The buyer cancels: back to `cancel_url` with the token only, the payment untouched. */
export function cancelRedirect (payment: StoredPayment): string {
  return appendQuery(payment.cancelUrl, { token: payment.ecToken })
}
