import { ArrayObject, Convert, Payment, type Action } from '../../../plugins/core/engine/index.ts'
import { fromPaypalAmount, toPaypalTotal } from '../../paypal-shared/index.ts'
import { PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH } from '../errors.ts'
import { assertSaleIntent } from '../preflight.ts'
import { cutText } from '../text.ts'

/**
 * Payment → a Payments v1 "sale" for a PayPal wallet: one transaction whose amount is
 * formatted with the currency's exponent. Details the shop already set win, except the
 * money: a transaction the shop set (an item_list, a description, amount details) is merged
 * with the converted amount, and an amount of its own must be the payment's, or PayPal would
 * charge another sum than the one the payment records.
 */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    assertSaleIntent(payment.details.intent)
    const currency = payment.currencyCode.toUpperCase()
    const converted: Record<string, unknown> = {
      amount: { total: toPaypalTotal(payment.totalAmount, currency), currency }
    }
    if (payment.description !== '') converted.description = cutText(payment.description)
    if (payment.number !== '') converted.invoice_number = cutText(payment.number)
    const details = new ArrayObject({ ...payment.details })
      .defaults({ intent: 'sale', payer: { payment_method: 'paypal' } })
      .data
    details.transactions = [mergeTransaction(payment, currency, details.transactions, converted)]
    request.result = details
  }
}

/** The shop's own transaction (if any) over the converted one; its amount, if it has one, must be the payment's. */
function mergeTransaction (payment: Payment, currency: string, own: unknown, converted: Record<string, unknown>): Record<string, unknown> {
  if (own === undefined) return converted
  const mismatch = (found: string) => new PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH(found, String(payment.totalAmount), currency)
  if (!Array.isArray(own) || own.length !== 1 || typeof own[0] !== 'object' || own[0] === null) {
    throw mismatch('transactions that are not exactly one transaction')
  }
  const transaction = own[0] as Record<string, unknown>
  if (transaction.amount === undefined) return { ...converted, ...transaction, amount: converted.amount }
  const { total, currency: ownCurrency } = transaction.amount as { total?: unknown, currency?: unknown }
  const found = `${String(total).slice(0, 16)} ${String(ownCurrency).slice(0, 8)}`
  if (ownCurrency !== currency || typeof total !== 'string' || minorUnits(total, currency) !== payment.totalAmount) throw mismatch(found)
  return { ...converted, ...transaction }
}

function minorUnits (total: string, currency: string): number | undefined {
  try {
    return fromPaypalAmount(total, currency)
  } catch {
    return undefined
  }
}
