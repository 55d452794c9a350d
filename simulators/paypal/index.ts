import type { FastifyInstance } from 'fastify'
import type { OrdersControl } from './orders-v2/control.ts'
import { installDisputesApi } from './disputes/index.ts'
import type { DisputesControl } from './disputes/index.ts'
import { installOrdersApi } from './orders-v2/index.ts'
import { installPaymentsApi } from './payments-v1/index.ts'
import type { PaymentsControl, PaymentsCounters } from './payments-v1/types.ts'
import { createSimulatorServer } from './runtime/server.ts'
import type { PaypalSimulatorOptions, RuntimeControl, RuntimeCounters } from './runtime/types.ts'

export { DEFAULT_SIMULATOR_CLIENT } from './runtime/store.ts'
export { PAYPAL_ERRORS } from './payments-v1/errors.ts'
export type { PaypalErrorBody, PaypalErrorDetail, PaypalErrorName } from './payments-v1/errors.ts'
export type { OAuthErrorBody } from './runtime/errors.ts'
export { crc32, signedMessage } from './runtime/signatures.ts'
export type {
  ClockControl, FaultControl, FaultRule, FaultWhen, HeldRequests, HoldFailStatus, HoldRule, Link, PaypalSimulatorOptions, RequestFilter,
  SignOptions, SimulatorBuyer, SimulatorClient, SimulatorRequest, WebhookControl, WebhookDelivery, WebhookDeliveryAttempt,
  WebhookDeliveryOptions, WebhookEvent, WebhookRegistration, WebhookSignatureHeaders, WebhookSubscription
} from './runtime/types.ts'
export type {
  AmountResource, ApprovalResult, ApproveOptions, BuyerOutcome, PayerInfoResource, PaymentResource, RefundResource,
  ReversalEventResource, ReversalReason, ReversalResource, ReverseSaleOptions, SaleResource
} from './payments-v1/types.ts'
export type { OrderApprovalResult, OrderApproveOptions, OrderOutcome, OrdersControl, OrdersCounters, RefundStatus } from './orders-v2/control.ts'
export type { DisputeReason, DisputeStage, DisputeStatus, DisputesControl, OpenDisputeOptions } from './disputes/index.ts'
export type { V2ErrorBody, V2ErrorDetail } from './orders-v2/errors.ts'

/**
 * How often each piece of work really ran: one increment per operation PayPal performed, never
 * for a PayPal-Request-Id replay, a request a fault or hold stopped before the work, or a refused call.
 */
export interface SimulatorCounters extends RuntimeCounters, PaymentsCounters {}

export interface PaypalSimulatorControl extends RuntimeControl, PaymentsControl {
  counters: () => SimulatorCounters
  /** Orders v2 / Payments v2: approvals, captures settling or reversed, and their own counters. */
  orders: OrdersControl
  /** Disputes on sales and captures: open, update, resolve won or lost, with CUSTOMER.DISPUTE.* webhooks. */
  disputes: DisputesControl
}

export type PaypalSimulator = FastifyInstance & { readonly simulator: PaypalSimulatorControl }

/**
 * A PayPal REST look-alike, Payments v1 (payments, sales, refunds) and Orders v2 / Payments v2
 * (orders, authorizations, captures, refunds): OAuth, the buyer approval pages and signed webhooks, speaking PayPal's wire format and error bodies. Returns a Fastify instance
 * that is not listening yet, with its control object on `app.simulator`. State lives in the
 * instance, so any number of simulators can run in one process.
 */
export function buildPaypalSimulator (options: PaypalSimulatorOptions = {}): PaypalSimulator {
  const server = createSimulatorServer(options)
  const payments = installPaymentsApi(server)
  const orders = installOrdersApi(server)
  const disputes = installDisputesApi(server)
  const control: PaypalSimulatorControl = {
    ...server.control,
    ...payments.control,
    counters: () => ({ ...server.counters(), ...payments.counters() }),
    orders: orders.control,
    disputes: disputes.control
  }
  server.app.decorate('simulator', control)
  return server.app as PaypalSimulator
}
