import { PaymentStateReader, type PaymentState } from '../../plugins/core/engine/index.ts'
import { authorizationExpiry, capturesOf, checkoutAmounts, paypalStatus, refundsOf, type CheckoutRecord } from './record.ts'
import { paypalDisputes, pendingRefundCount, providerViewOf } from '../paypal-shared/index.ts'

/**
 * A PayPal order's state from a stored Payment (its `details` hold the order), as StatusAction
 * reads it: what the engine compares before and after a commit to write payment events, and
 * what the reconciliation sweeper picks payments by (authorization expiry, pending refunds).
 */
export class CheckoutStateReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState | undefined {
    const order = record.details as CheckoutRecord | undefined
    if (typeof order !== 'object' || order === null) return undefined
    const providerIds: Record<string, string> = {}
    if (typeof order.id === 'string') providerIds.order = order.id
    const capture = capturesOf(order).at(-1)
    if (typeof capture?.id === 'string') providerIds.capture = capture.id
    const disputes = paypalDisputes(order)
    if (disputes.length > 0) providerIds.dispute = (disputes.at(-1) as { id: string }).id
    const amounts = checkoutAmounts(order)
    const status = paypalStatus(order)
    const expiresAt = status === 'authorized' ? authorizationExpiry(order) : undefined
    const refundsPending = pendingRefundCount(refundsOf(order), order.paywire_refunds)
    const providerView = providerViewOf(order)
    return {
      status,
      ...(amounts === undefined ? {} : { amounts }),
      providerIds,
      ...(disputes.length > 0 ? { disputes } : {}),
      ...(expiresAt === undefined ? {} : { authorizationExpiresAt: expiresAt }),
      ...(refundsPending > 0 ? { refundsPending } : {}),
      ...(providerView === undefined ? {} : { providerView })
    }
  }
}
