import { PaymentStateReader, type PaymentState } from '../../plugins/core/engine/index.ts'
import { paypalAmounts } from './amounts.ts'
import { paypalDisputes, pendingRefundCount, providerViewOf } from '../paypal-shared/index.ts'
import { paypalStatus, relatedResources, saleOf, type PaypalRecord } from './details.ts'

/**
 * A PayPal payment's state from its stored record (a Payment's `details`, or a REST details
 * record), as StatusAction reads it. Payments v1 payments here are sales (intent `sale` only):
 * no authorization to expire, so only pending refunds tell the reconciliation sweeper more.
 */
export class PaypalStateReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState | undefined {
    // A REST details record holds PayPal's fields itself; a Payment holds them in `details`.
    const paypal = ('transactions' in record || 'intent' in record ? record : record.details) as PaypalRecord | undefined
    if (typeof paypal !== 'object' || paypal === null) return undefined
    const providerIds: Record<string, string> = {}
    if (typeof paypal.id === 'string') providerIds.payment = paypal.id
    const sale = saleOf(paypal)
    if (typeof sale?.id === 'string') providerIds.sale = sale.id
    const listed = relatedResources(paypal).flatMap(({ refund }) => typeof refund === 'object' && refund !== null ? [refund as Record<string, unknown>] : [])
    const refunds = listed.map((refund) => refund.id)
      .concat((Array.isArray(paypal.paywire_refunds) ? paypal.paywire_refunds : []).map((entry: Record<string, unknown>) => entry.id))
      .filter((id): id is string => typeof id === 'string')
    if (refunds.length > 0) providerIds.refund = refunds.at(-1) as string
    const disputes = paypalDisputes(paypal)
    if (disputes.length > 0) providerIds.dispute = (disputes.at(-1) as { id: string }).id
    const amounts = paypalAmounts(paypal)
    const refundsPending = pendingRefundCount(listed.map((refund) => ({ id: refund.id, status: refund.state })), paypal.paywire_refunds)
    const providerView = providerViewOf(paypal)
    return {
      status: paypalStatus(paypal),
      ...(amounts === undefined ? {} : { amounts }),
      providerIds,
      ...(disputes.length > 0 ? { disputes } : {}),
      ...(refundsPending > 0 ? { refundsPending } : {}),
      ...(providerView === undefined ? {} : { providerView })
    }
  }
}
