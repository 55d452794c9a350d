import { ArrayObject, Convert, Payment, type Action } from '../../../plugins/core/engine/index.ts'
import { toPaypalTotal } from '../../paypal-shared/index.ts'

/** PayPal's limit for description, invoice_id and custom_id and item names. */
const TEXT_LIMIT = 127

/** Cut on code points, so an emoji or an accented letter is never split in two. */
export function clip (text: string, limit = TEXT_LIMIT): string {
  const points = [...text]
  return points.length <= limit ? text : points.slice(0, limit).join('')
}

/**
 * Payment → an Orders v2 order with intent CAPTURE (Authorize switches it before the order is
 * created): one purchase unit whose amount has a breakdown and one item, the shop's number as
 * `invoice_id` and the payment's id as `custom_id`, so a webhook can always be tied back to it.
 * Details the shop already set win.
 */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    const currency = payment.currencyCode.toUpperCase()
    // Refused before any call when PayPal would refuse it (currency, zero, over 7 digits).
    const value = toPaypalTotal(payment.totalAmount, currency)
    const money = { currency_code: currency, value }
    const unit: Record<string, unknown> = {
      amount: { ...money, breakdown: { item_total: money } },
      items: [{ name: clip(payment.description === '' ? payment.number || 'Order' : payment.description), quantity: '1', unit_amount: money }]
    }
    if (payment.description !== '') unit.description = clip(payment.description)
    if (payment.number !== '') unit.invoice_id = clip(payment.number)
    if (payment.id !== undefined) unit.custom_id = clip(payment.id)
    request.result = new ArrayObject({ ...payment.details }).defaults({ intent: 'CAPTURE', purchase_units: [unit] }).data
  }
}
