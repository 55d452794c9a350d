import { approvePayment, cancelRedirect } from './approval.ts'
import { paymentView, refundView, saleView } from './resources.ts'
import { reverseCompletedSale, settlePendingRefund, settlePendingSale } from './sales.ts'
import type { Payments, StoredPayment } from './store.ts'
import type { PaymentsControl } from './types.ts'

/** What tests drive Payments v1 with, next to its HTTP API (part of `app.simulator`). */
export function createPaymentsControl (payments: Payments): PaymentsControl {
  const { runtime, store } = payments

  function payment (paymentId: string): StoredPayment {
    const found = store.payments.get(paymentId)
    if (found === undefined) throw new Error(`PayPal simulator: no payment ${paymentId}`)
    return found
  }

  return {
    approve: (paymentId, options = {}) => approvePayment(payments, payment(paymentId), options, runtime.baseUrl()),
    cancel: (paymentId) => cancelRedirect(payment(paymentId)),
    setExecuteOutcome (outcome) {
      store.executeOutcomeOverride = outcome
    },
    queueRefundOutcome (state, times = 1) {
      if (!['pending', 'failed', 'cancelled'].includes(state) || !Number.isInteger(times) || times < 1) {
        throw new TypeError(`PayPal simulator: queueRefundOutcome takes pending, failed or cancelled and a positive count, got ${String(state)} × ${String(times)}`)
      }
      for (let index = 0; index < times; index++) store.refundOutcomes.push(state)
    },
    settleRefund: (refundId, state) => refundView(settlePendingRefund(payments, refundId, state), runtime.baseUrl()),
    settleSale: (saleId, outcome) => saleView(settlePendingSale(payments, saleId, outcome), runtime.baseUrl()),
    reverseSale: (saleId, options = {}) => saleView(reverseCompletedSale(payments, saleId, options), runtime.baseUrl()),
    payment (paymentId) {
      const found = store.payments.get(paymentId)
      return found === undefined ? undefined : paymentView(found, runtime.baseUrl())
    },
    sale (saleId) {
      const found = store.sales.get(saleId)
      return found === undefined ? undefined : saleView(found, runtime.baseUrl())
    }
  }
}
