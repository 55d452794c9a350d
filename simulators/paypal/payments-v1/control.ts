import { approvePayment, cancelRedirect } from './approval.ts'
import { paymentView, saleView } from './resources.ts'
import { reverseCompletedSale, settlePendingSale } from './sales.ts'
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
