import { ArrayObject, Convert, Payment, getCurrency, type Action } from '../../../plugins/core/engine/index.ts'
import { PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED } from '../errors.ts'
import { toStripeAmount } from '../money.ts'

/** Paywire's cut for the line item's name shown on Stripe's page (code points, so nothing is split in two). */
const NAME_LIMIT = 250
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/

function clip (text: string): string {
  const points = [...text]
  return points.length <= NAME_LIMIT ? text : points.slice(0, NAME_LIMIT).join('')
}

/**
 * Payment → what the Checkout Session will ask Stripe for: the total in Stripe's units and the
 * lowercase currency, one line item named after the description (or the order number), the
 * buyer's email to prefill, and the Paywire payment's id and number, which go into the
 * session's `client_reference_id` and every object's metadata so a webhook always finds its
 * payment. An amount Stripe cannot take is refused here, before anything is sent.
 */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    const currency = getCurrency(payment.currencyCode).alpha3
    const amount = toStripeAmount(payment.totalAmount, currency)
    if (amount < 1) throw new PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED(String(payment.totalAmount), currency, 'Stripe charges more than zero')
    const details = new ArrayObject({ ...payment.details }).defaults({
      line_item_name: clip(payment.description === '' ? payment.number === '' ? 'Order' : payment.number : payment.description)
    })
    details.replace({ amount, currency: currency.toLowerCase(), capture_method: 'automatic' })
    if (payment.description !== '') details.set('description', payment.description)
    if (EMAIL.test(payment.clientEmail)) details.set('customer_email', payment.clientEmail)
    if (payment.id !== undefined) details.set('paywire_payment', payment.id)
    if (payment.number !== '') details.set('paywire_number', payment.number)
    request.result = details.data
  }
}
