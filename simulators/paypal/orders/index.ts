import type { FastifyInstance } from 'fastify'
import type { SimulatorRuntime } from '../runtime.ts'
import type { WebhookEngine } from '../webhook-delivery.ts'
import { registerOrderApprovalPage } from './approval.ts'
import { createOrdersControl, type OrdersControl } from './control.ts'
import type { Orders } from './operations.ts'
import { registerOrderRoutes } from './routes.ts'
import { createOrdersStore } from './store.ts'

/**
 * Orders v2 and Payments v2 beside v1, on the same machinery: OAuth tokens, the request gate
 * (faults, holds), PayPal-Request-Id replay, the webhook engine and its signatures.
 */
export function installOrdersApi (runtime: SimulatorRuntime, webhooks: WebhookEngine): {
  orders: Orders
  registerApi: (app: FastifyInstance) => void
  registerPages: (app: FastifyInstance) => void
  control: OrdersControl
} {
  const orders: Orders = { runtime, store: createOrdersStore(), webhooks }
  return {
    orders,
    registerApi: (app) => registerOrderRoutes(app, orders),
    registerPages: (app) => registerOrderApprovalPage(app, orders),
    control: createOrdersControl(orders)
  }
}
