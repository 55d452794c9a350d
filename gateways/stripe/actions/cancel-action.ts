import { Cancel, HumanStatus, errorCodes } from '../../../plugins/core/engine/index.ts'
import { paywireError } from '../errors.ts'
import { intentView, recordOf, type StripeRecord } from '../record.ts'
import { moneyMoved, stripeStatus } from '../status.ts'
import { CheckoutFlowAction } from './checkout-flow.ts'

/** PaymentIntent statuses Stripe cancels (https://docs.stripe.com/api/payment_intents/cancel). */
const CANCELABLE: ReadonlySet<string> = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture', 'processing'])

/**
 * Cancels a payment nobody has paid, or an authorization: an open Checkout Session is expired
 * (the buyer can no longer pay it) and the PaymentIntent, if any, is canceled, each call with
 * its idempotency key stored first; an authorization is released. Before any session only the
 * details change. A captured payment is refunded, not canceled; a canceled one stays as it is.
 */
export class CancelAction extends CheckoutFlowAction {
  supports (request: unknown): boolean {
    return request instanceof Cancel && recordOf(request.model) !== undefined
  }

  async execute (request: Cancel): Promise<void> {
    const record = recordOf(request.model) as StripeRecord
    const status = stripeStatus(record)
    if (status === HumanStatus.CANCELED) return
    if (status !== HumanStatus.NEW && status !== HumanStatus.PENDING && status !== HumanStatus.AUTHORIZED) {
      throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Cancel', status)
    }
    const session = record.checkout_session as StripeRecord | undefined
    if (session?.status === 'open') await this.expireSession(record, session.id)
    if (typeof record.id === 'string' && CANCELABLE.has(record.status)) {
      try {
        const intent = await this.call(record, 'cancel_intent', async (key) => await this.api.cancelPaymentIntent(record.id, key))
        this.views.take(record, intentView(intent), 'cancel')
      } catch (error) {
        throw paywireError(error)
      }
    }
    if (typeof record.id !== 'string' && record.checkout_session?.status !== 'open') record.paywire_state = 'canceled'
    // The buyer paid while the shop canceled: Stripe's word stands, and the shop is told.
    const after = stripeStatus(record)
    if (moneyMoved(after)) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Cancel', after)
  }
}
