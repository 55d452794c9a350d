import type { SimulatorServer } from '../runtime/server.ts'
import { registerApprovalPage } from './approval-page.ts'
import { createPaymentsControl } from './control.ts'
import { registerPaymentRoutes } from './payments.ts'
import { registerSaleRoutes, reverseCompletedSale } from './sales.ts'
import { createPaymentsStore } from './store.ts'
import type { Payments } from './store.ts'
import type { PaymentsControl, PaymentsCounters } from './types.ts'

/**
 * Payments v1 (payments, sales, refunds, the `/cgi-bin/webscr` approval page) on the shared
 * machinery: OAuth tokens, the request gate (faults, holds), PayPal-Request-Id replay, the webhook
 * engine and its signatures.
 */
export function installPaymentsApi (server: SimulatorServer): { control: PaymentsControl, counters: () => PaymentsCounters } {
  const payments: Payments = { runtime: server.runtime, store: createPaymentsStore(), webhooks: server.webhooks }
  server.addApi((app) => {
    registerPaymentRoutes(app, payments)
    registerSaleRoutes(app, payments)
  })
  server.addPages((app) => registerApprovalPage(app, payments))
  // A sale can be disputed; a dispute the seller loses reverses it (PAYMENT.SALE.REVERSED).
  server.disputables.register((saleId) => {
    const sale = payments.store.sales.get(saleId)
    if (sale === undefined) return undefined
    const { transaction } = sale.payment
    return {
      id: sale.id,
      clientId: sale.clientId,
      currency: sale.currency,
      amountMinor: sale.totalMinor,
      createdAt: sale.createdAt,
      ...(typeof transaction.invoice_number === 'string' ? { invoiceNumber: transaction.invoice_number } : {}),
      ...(typeof transaction.custom === 'string' ? { custom: transaction.custom } : {}),
      remainingMinor: () => sale.reversal === undefined ? sale.totalMinor - sale.refundedMinor - sale.pendingRefundMinor : 0,
      reverse: (amountMinor) => { reverseCompletedSale(payments, sale.id, { reasonCode: 'BUYER_COMPLAINT', amountMinor }) }
    }
  })
  return { control: createPaymentsControl(payments), counters: () => ({ ...payments.store.counters }) }
}
