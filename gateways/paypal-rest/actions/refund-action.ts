import { Refund, errorCodes, type Action } from '../../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalRestApi } from '../api.ts'
import { paypalStatus, recordOf, requestIdFor, saleOf, type PaypalRecord } from '../details.ts'
import { toPaypalAmount } from '../money.ts'

/**
 * Refunds the payment's sale, fully or by an amount in minor units. Each refund has its
 * own PayPal-Request-Id (refund-0, refund-1...), so retrying a failed refund never refunds
 * twice while a later refund is a new one. Refusals are kept in the details and thrown as
 * provider errors carrying PayPal's debug id.
 */
export class RefundAction implements Action {
  readonly api: PaypalRestApi

  constructor (api: PaypalRestApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Refund && recordOf(request.model) !== undefined
  }

  async execute (request: Refund): Promise<void> {
    const record = recordOf(request.model) as PaypalRecord
    const sale = saleOf(record)
    if (sale === undefined || (sale.state !== 'completed' && sale.state !== 'partially_refunded')) {
      throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', paypalStatus(record))
    }
    const refunds = (record.paywire_refunds ??= []) as Array<Record<string, unknown>>
    const body = request.amount === undefined
      ? {}
      : { amount: { total: toPaypalAmount(request.amount, sale.amount.currency), currency: sale.amount.currency } }
    try {
      const refund = await this.api.refundSale(sale.id, body, requestIdFor(record, `refund-${refunds.length}`))
      refunds.push({ id: refund.id, state: refund.state, amount: refund.amount })
      delete record.error
    } catch (error) {
      if (isPaypalCallError(error)) record.error = error.paypal
      throw error
    }
    // The sale's new state (refunded, partially_refunded) comes with the payment. The refund is
    // done even if this look-up fails: no error, or a retry would refund again; the state
    // catches up with the PAYMENT.SALE.REFUNDED webhook or a Sync.
    const payment = await this.api.getPayment(record.id).catch(() => undefined)
    if (payment !== undefined) Object.assign(record, payment)
  }
}
