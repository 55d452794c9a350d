import type { SimulatorServer } from '../runtime/server.ts'
import { registerOrderApprovalPage } from './approval.ts'
import { createOrdersControl, type OrdersControl } from './control.ts'
import type { Orders } from './operations.ts'
import { registerOrderRoutes } from './routes.ts'
import { createOrdersStore } from './store.ts'

/**
 * Orders v2 and Payments v2 beside v1, on the same machinery: OAuth tokens, the request gate
 * (faults, holds), PayPal-Request-Id replay, the webhook engine and its signatures.
 */
export function installOrdersApi (server: SimulatorServer): { control: OrdersControl } {
  const orders: Orders = { runtime: server.runtime, store: createOrdersStore(), webhooks: server.webhooks }
  server.addApi((app) => registerOrderRoutes(app, orders))
  server.addPages((app) => registerOrderApprovalPage(app, orders))
  return { control: createOrdersControl(orders) }
}
