import type { SimulatorServer } from '../runtime/server.ts'
import { registerApprovalPage } from './approval-page.ts'
import { createPaymentsControl } from './control.ts'
import { registerPaymentRoutes } from './payments.ts'
import { registerSaleRoutes } from './sales.ts'
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
  return { control: createPaymentsControl(payments), counters: () => ({ ...payments.store.counters }) }
}
