import { appendQuery } from '../runtime/pages.ts'
import { paymentsError } from './errors.ts'
import { emitPaymentApproved } from './events.ts'
import { isExpired } from './store.ts'
import type { Payments, StoredPayment } from './store.ts'
import type { ApprovalResult, ApproveOptions } from './types.ts'

/** The buyer approves: payer details are filled, the state stays `created` until execute (paypal-wire §2.2). */
export function approvePayment (payments: Payments, payment: StoredPayment, options: ApproveOptions, base: string): ApprovalResult {
  if (payment.state !== 'created') throw paymentsError('PAYMENT_STATE_INVALID')
  if (isExpired(payments, payment)) throw paymentsError('PAYMENT_EXPIRED')
  const firstApproval = payment.approval === undefined
  const { store } = payments.runtime
  payment.approval = {
    buyer: { ...store.config.buyer, ...options.buyer },
    outcome: options.outcome ?? 'completed'
  }
  payment.updatedAt = store.now()
  if (firstApproval) emitPaymentApproved(payments.webhooks, payment, base)
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
