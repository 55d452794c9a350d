import { ArrayObject, Convert, Payment, type Action } from '../../../plugins/core/engine/index.ts'
import { toPaypalAmount } from '../../paypal-shared/index.ts'

/** PayPal's limit for description and invoice_number. */
const TEXT_LIMIT = 127

/**
 * Payment → a Payments v1 "sale" for a PayPal wallet: one transaction whose amount is
 * formatted with the currency's exponent. Details the shop already set win.
 */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    const currency = payment.currencyCode.toUpperCase()
    const transaction: Record<string, unknown> = {
      amount: { total: toPaypalAmount(payment.totalAmount, currency), currency }
    }
    if (payment.description !== '') transaction.description = payment.description.slice(0, TEXT_LIMIT)
    if (payment.number !== '') transaction.invoice_number = payment.number.slice(0, TEXT_LIMIT)
    request.result = new ArrayObject({ ...payment.details })
      .defaults({ intent: 'sale', payer: { payment_method: 'paypal' }, transactions: [transaction] })
      .data
  }
}
