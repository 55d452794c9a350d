import { errorCodes } from '../../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalError, type PaypalResource, type PaypalRestApi } from '../api.ts'
import { paypalStatus, recordOf, saleOf, uniqueRequestId, type PaypalRecord } from '../details.ts'
import { PaypalRefundAction, refundLedgerState, toPaypalAmount, type PaypalRefundEntry, type RefundSettlement } from '../../paypal-shared/index.ts'
import type { PaypalViews } from '../views.ts'
import { isFinalRefusal } from './failures.ts'
import { paypalAmounts } from '../amounts.ts'

/** One refund of a Payments v1 sale as Paywire keeps it in `details.paywire_refunds`. */
export interface RefundEntry extends PaypalRefundEntry {
  saleId: string
  /** PayPal's refund amount and state, once made. */
  amount?: { total: string, currency: string }
  refund_state?: string
  /** PayPal's refusal. */
  error?: PaypalError
}

/** Refunds the payment's sale (see PaypalRefundAction for the ledger both PayPal APIs share). */
export class RefundAction extends PaypalRefundAction<PaypalRecord, RefundEntry, PaypalRestApi, PaypalViews> {
  protected recordOf (model: unknown): PaypalRecord | undefined {
    return recordOf(model)
  }

  protected newEntry (record: PaypalRecord, amount: number | null): RefundEntry {
    const sale = saleOf(record)
    // A reversed sale keeps its v1 state (there is no `reversed`): what PayPal took back leaves nothing to refund.
    const amounts = paypalAmounts(record)
    const left = amounts === undefined ? 0 : amounts.captured - amounts.refunded - amounts.reversed
    if (sale === undefined || (sale.state !== 'completed' && sale.state !== 'partially_refunded') || left <= 0) {
      throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', paypalStatus(record))
    }
    return { requestId: uniqueRequestId(record, 'refund'), saleId: sale.id, requested: amount, currency: sale.amount.currency, state: 'pending' }
  }

  protected bodyOf (entry: RefundEntry): PaypalResource {
    return entry.requested === null ? {} : { amount: { total: toPaypalAmount(entry.requested, entry.currency), currency: entry.currency } }
  }

  protected async refundAt (entry: RefundEntry, body: PaypalResource): Promise<Partial<RefundEntry>> {
    const refund = await this.api.refundSale(entry.saleId, body, entry.requestId)
    return { id: refund.id, amount: refund.amount, refund_state: refund.state, state: refundLedgerState(refund.state) }
  }

  protected settlementOf (error: unknown): RefundSettlement | undefined {
    return isPaypalCallError(error) ? { recorded: error.paypal, final: isFinalRefusal(error), refusal: error } : undefined
  }

  protected async lookUp (record: PaypalRecord): Promise<PaypalResource> {
    return await this.api.getPayment(record.id)
  }
}
