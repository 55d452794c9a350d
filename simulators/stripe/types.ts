import type Stripe from 'stripe'
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { PayResult } from './checkout.ts'
import type { DisputeClosing, DisputeUpdate, OpenDispute } from './disputes.ts'
import type { FaultRule } from './faults.ts'
import type { SettleOutcome } from './payments.ts'
import type { RefundOutcome, RefundSettlement } from './refunds.ts'
import type { Counters } from './store.ts'
import type { Delivery, EndpointInit } from './webhooks.ts'

export interface StripeSimulatorOptions {
  /** Accepted secret keys, `sk_test_…` (default `['sk_test_simulator']`). */
  apiKeys?: readonly string[]
  /** Clock source in epoch ms (default `Date.now`); `simulator.clock.advance(ms)` moves on from it. */
  now?: () => number
  /** Base URL of hosted pages and 3D Secure redirects (default: the listening address). */
  publicUrl?: string
  /** `api_version` of events (default: the version this simulator's objects follow). */
  apiVersion?: string
  /** Webhook endpoints that exist from the start; each gets a `whsec_…` secret unless given one. */
  webhooks?: readonly EndpointInit[]
  webhookDelivery?: { retryDelaysMs?: readonly number[], timeoutMs?: number }
  /** Checkout Session lifetime (default 24 h). */
  sessionTtlSeconds?: number
  /** Manual-capture authorization window (default 7 days). */
  authorizationTtlSeconds?: number
  /** How long idempotency keys are kept (default 24 h). */
  idempotencyRetentionMs?: number
  faults?: readonly FaultRule[]
  logger?: FastifyServerOptions['logger']
}

export interface EndpointInfo {
  id: string
  url: string
  /** The current signing secret. */
  secret: string
  enabledEvents: string[]
}

export interface StripeSimulatorControl {
  /** Where hosted pages live: `publicUrl`, else the listening origin, else `http://localhost`. */
  baseUrl: () => string
  clock: { now: () => number, advance: (ms: number) => void }
  counters: () => Counters
  /** Requests received per route (`POST /v1/payment_intents/:id/confirm`). */
  calls: () => Record<string, number>
  events: () => Stripe.Event[]
  faults: { inject: (rule: FaultRule) => void, clear: () => void, remaining: () => number, hanging: () => number, untilHanging: () => Promise<void>, untilNoneHanging: () => Promise<void> }
  payments: {
    intent: (id: string) => Stripe.PaymentIntent | undefined
    /** The next `count` successful confirmations stay `processing`. */
    processNext: (count?: number) => void
    settle: (paymentIntentId: string, outcome: SettleOutcome) => Stripe.PaymentIntent
    /** Passes or fails the 3D Secure challenge of a `requires_action` PaymentIntent, as its page does. */
    authenticate: (paymentIntentId: string, pass: boolean) => Stripe.PaymentIntent
  }
  checkout: {
    session: (id: string) => Stripe.Checkout.Session | undefined
    /** The buyer pays on the hosted page with a test payment method (default `pm_card_visa`). */
    pay: (sessionId: string, paymentMethod?: string, email?: string) => PayResult
  }
  refunds: {
    nextOutcome: (outcome: RefundOutcome, count?: number) => void
    settle: (refundId: string, settlement: RefundSettlement, failureReason?: string) => Stripe.Refund
  }
  disputes: {
    open: (chargeId: string, options?: OpenDispute) => Stripe.Dispute
    update: (disputeId: string, update: DisputeUpdate) => Stripe.Dispute
    close: (disputeId: string, closing: DisputeClosing) => Stripe.Dispute
  }
  webhooks: {
    subscribe: (init: EndpointInit) => EndpointInfo
    endpoints: () => EndpointInfo[]
    /** A new secret; deliveries are signed with it and the previous ones. */
    rollSecret: (endpointId: string) => string
    deliveries: (filter?: { eventId?: string, endpointId?: string }) => Delivery[]
    dropNext: (count?: number) => void
    duplicateNext: (count?: number) => void
    delayNext: (ms: number, count?: number) => void
    pause: () => void
    resume: (options?: { reverse?: boolean }) => void
    redeliver: (eventId: string, endpointId?: string) => Delivery[]
    waitForIdle: () => Promise<void>
  }
}

export type StripeSimulator = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger> & {
  simulator: StripeSimulatorControl
}
