import { errorCodes } from '../../../plugins/core/engine/index.ts'
import { PaypalRefundAction, refundLedgerState, toPaypalAmount, type PaypalRefundEntry, type PaypalResource, type RefundSettlement } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { codedError, isFinalRefusal, isPaypalCallError, recordedError } from '../errors.ts'
import { capturesOf, paypalStatus, recordOf, uniqueRequestId, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'

/** One refund of an Orders v2 capture as Paywire keeps it in `details.paywire_refunds`. */
export interface CheckoutRefundEntry extends PaypalRefundEntry {
  captureId: string
  amount?: { value: string, currency_code: string }
  /** PayPal's refund status when it answered (COMPLETED, PENDING, FAILED, CANCELLED). */
  refund_status?: string
  error?: Record<string, unknown>
}

/** The capture a refund goes to: the first one that still has money to give back. */
function refundableCapture (record: CheckoutRecord): Record<string, any> | undefined {
  return capturesOf(record).find((capture) => capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED')
}

/** Refunds the order's capture (see PaypalRefundAction for the ledger both PayPal APIs share). */
export class RefundAction extends PaypalRefundAction<CheckoutRecord, CheckoutRefundEntry, PaypalCheckoutApi, CheckoutViews> {
  protected recordOf (model: unknown): CheckoutRecord | undefined {
    return recordOf(model)
  }

  protected newEntry (record: CheckoutRecord, amount: number | null): CheckoutRefundEntry {
    const capture = refundableCapture(record)
    if (capture === undefined) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', paypalStatus(record))
    return { requestId: uniqueRequestId(record, 'refund'), captureId: capture.id, requested: amount, currency: capture.amount.currency_code, state: 'pending' }
  }

  protected bodyOf (entry: CheckoutRefundEntry): PaypalResource {
    return entry.requested === null ? {} : { amount: { value: toPaypalAmount(entry.requested, entry.currency), currency_code: entry.currency } }
  }

  protected async refundAt (entry: CheckoutRefundEntry, body: PaypalResource): Promise<Partial<CheckoutRefundEntry>> {
    const refund = await this.api.refundCapture(entry.captureId, body, entry.requestId)
    return { id: refund.id, amount: refund.amount, refund_status: refund.status, state: refundLedgerState(refund.status) }
  }

  protected settlementOf (error: unknown): RefundSettlement | undefined {
    if (!isPaypalCallError(error)) return undefined
    return { recorded: recordedError(error), final: isFinalRefusal(error), refusal: codedError(error) }
  }

  protected async lookUp (record: CheckoutRecord): Promise<PaypalResource> {
    return await this.api.getOrder(record.id)
  }
}
