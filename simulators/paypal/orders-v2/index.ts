import type { SimulatorServer } from '../runtime/server.ts'
import { registerOrderApprovalPage } from './approval.ts'
import { expireAuthorizations } from './authorizations.ts'
import { createOrdersControl, type OrdersControl } from './control.ts'
import type { Orders } from './operations.ts'
import { registerPaymentRoutes } from './payments-routes.ts'
import { registerOrderRoutes } from './routes.ts'
import { reverseCapture } from './refunds.ts'
import { createOrdersStore } from './store.ts'

/**
 * Orders v2 and Payments v2 beside v1, on the same machinery: OAuth tokens, the request gate
 * (faults, holds), PayPal-Request-Id replay, the webhook engine and its signatures, the simulated clock.
 */
export function installOrdersApi (server: SimulatorServer): { orders: Orders, control: OrdersControl } {
  const orders: Orders = { runtime: server.runtime, store: createOrdersStore(), webhooks: server.webhooks }
  server.addApi((app) => {
    registerOrderRoutes(app, orders)
    registerPaymentRoutes(app, orders)
  })
  server.addPages((app) => registerOrderApprovalPage(app, orders))
  server.runtime.store.onClockAdvance(() => expireAuthorizations(orders, server.runtime.baseUrl()))
  // A capture can be disputed; a dispute the seller loses reverses it (PAYMENT.CAPTURE.REVERSED).
  server.disputables.register((captureId) => {
    const capture = orders.store.captures.get(captureId)
    if (capture === undefined) return undefined
    const { purchaseUnit } = capture.order
    return {
      id: capture.id,
      clientId: capture.order.clientId,
      currency: capture.currency,
      amountMinor: capture.amountMinor,
      createdAt: capture.createdAt,
      ...(typeof purchaseUnit.invoice_id === 'string' ? { invoiceNumber: purchaseUnit.invoice_id } : {}),
      ...(typeof purchaseUnit.custom_id === 'string' ? { custom: purchaseUnit.custom_id } : {}),
      remainingMinor: () => capture.amountMinor - capture.refundedMinor - capture.pendingRefundMinor,
      reverse: (amountMinor) => { reverseCapture(orders, capture, server.runtime.baseUrl(), amountMinor) }
    }
  })
  return { orders, control: createOrdersControl(orders) }
}
