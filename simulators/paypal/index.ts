import Fastify from 'fastify'
import type { FastifyInstance } from 'fastify'
import { registerApprovalPage } from './approval-page.ts'
import { createControl } from './control.ts'
import { createFaultInjector } from './faults.ts'
import { installIdempotency } from './idempotency.ts'
import { registerOAuthRoutes, requireAccessToken } from './oauth.ts'
import { registerPaymentRoutes } from './payments.ts'
import { installPaypalProtocol } from './protocol.ts'
import { installRequestGate } from './request-gate.ts'
import { installOrdersApi } from './orders/index.ts'
import { createRuntime } from './runtime.ts'
import { registerSaleRoutes } from './sales.ts'
import { createStore } from './store.ts'
import type { PaypalSimulator, PaypalSimulatorOptions } from './types.ts'
import { createWebhookEngine } from './webhook-delivery.ts'
import { registerCertificateRoute, registerWebhookRoutes } from './webhook-routes.ts'

export { DEFAULT_SIMULATOR_CLIENT } from './store.ts'
export { PAYPAL_ERRORS } from './paypal-errors.ts'
export type { PaypalErrorBody, PaypalErrorDetail, PaypalErrorName, OAuthErrorBody } from './paypal-errors.ts'
export { crc32, signedMessage } from './signatures.ts'
export type * from './types.ts'
export type { OrderApprovalResult, OrderApproveOptions, OrderOutcome, OrdersControl, OrdersCounters } from './orders/control.ts'
export type { V2ErrorBody, V2ErrorDetail } from './orders/errors.ts'

/**
 * A PayPal REST look-alike, Payments v1 (payments, sales, refunds) and Orders v2 / Payments v2
 * (orders, authorizations, captures, refunds): OAuth, the buyer approval pages and signed webhooks, speaking PayPal's wire format and error bodies. Returns a Fastify instance
 * that is not listening yet, with its control object on `app.simulator`. State lives in the
 * instance, so any number of simulators can run in one process.
 */
export function buildPaypalSimulator (options: PaypalSimulatorOptions = {}): PaypalSimulator {
  const store = createStore(options)
  // close() must not wait for clients' keep-alive sockets (or a client still reading a slow answer).
  const app: FastifyInstance = Fastify({ logger: options.logger ?? false, forceCloseConnections: true })
  const runtime = createRuntime(app, store)
  const faults = createFaultInjector(options.faults ?? [], runtime.closing)
  // After the runtime's own preClose hook, which lets the work in flight finish.
  app.addHook('preClose', function abandonUnreachedHolds (done) {
    faults.abandonHolds()
    done()
  })
  const webhooks = createWebhookEngine(app, runtime)
  const ordersApi = installOrdersApi(runtime, webhooks)
  for (const registration of options.webhooks ?? []) webhooks.subscribe(registration)

  installPaypalProtocol(app, runtime)
  // Order matters: the PayPal-Request-Id onSend hook stores the real answer before `after` faults replace it.
  const idempotency = installIdempotency(app, runtime)
  installRequestGate(app, runtime, faults, idempotency)

  app.register(async function oauthApi (child: FastifyInstance) {
    registerOAuthRoutes(child, runtime)
  })
  app.register(async function restApi (child: FastifyInstance) {
    requireAccessToken(child, runtime)
    registerPaymentRoutes(child, runtime, webhooks)
    registerSaleRoutes(child, runtime, webhooks)
    registerWebhookRoutes(child, runtime, webhooks)
    ordersApi.registerApi(child)
  })
  app.register(async function buyerPages (child: FastifyInstance) {
    registerApprovalPage(child, runtime, webhooks)
    ordersApi.registerPages(child)
  })
  registerCertificateRoute(app, webhooks)

  app.decorate('simulator', { ...createControl(runtime, webhooks, faults), orders: ordersApi.control })
  return app as PaypalSimulator
}
