import Fastify from 'fastify'
import type { FastifyInstance } from 'fastify'
import { registerCheckoutRoutes } from './api-checkout.ts'
import { registerEventRoutes } from './api-events.ts'
import { registerPaymentRoutes } from './api-payments.ts'
import { registerRefundRoutes } from './api-refunds.ts'
import { createCheckout } from './checkout.ts'
import { createClock } from './clock.ts'
import { createControl } from './control.ts'
import { createDisputes } from './disputes.ts'
import { createEventLog } from './events.ts'
import { installFaults, installLostAnswers } from './faults.ts'
import { parseForm } from './form.ts'
import type { FormObject } from './form.ts'
import { registerHostedPages } from './hosted-page.ts'
import { installIdempotency } from './idempotency.ts'
import { createPayments } from './payments.ts'
import { installProtocol } from './protocol.ts'
import { createRefunds } from './refunds.ts'
import { createRuntime } from './runtime.ts'
import { createStore } from './store.ts'
import type { StripeSimulator, StripeSimulatorOptions } from './types.ts'
import { createWebhookEngine } from './webhooks.ts'

export { TEST_CARDS } from './cards.ts'
export type { TestCard, Decline } from './cards.ts'
export { signatureHeader } from './signature.ts'
export type { FaultRule } from './faults.ts'
export type { Delivery, DeliveryAttempt, DeliveryStatus, EndpointInit } from './webhooks.ts'
export type { Counters } from './store.ts'
export type { PayResult } from './checkout.ts'
export type { DisputeClosing, DisputeUpdate, OpenDispute } from './disputes.ts'
export type { RefundOutcome, RefundSettlement } from './refunds.ts'
export type { SettleOutcome } from './payments.ts'
export type * from './types.ts'

/** The Stripe API version whose objects the simulator sends (the `stripe` package it is typed against pins the same). */
export const SIMULATED_API_VERSION = '2026-10-28.endive'
export const DEFAULT_API_KEY = 'sk_test_simulator'

const DAY_SECONDS = 86_400

function positive (name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a positive number, got ${value}`)
  return value
}

/** Query strings in Stripe's bracket syntax; a malformed key is kept flat so the route refuses it as unknown. */
function parseQuery (text: string): FormObject {
  try {
    return parseForm(text)
  } catch {
    return Object.fromEntries(new URLSearchParams(text))
  }
}

/**
 * A stateful Stripe look-alike: PaymentIntents, Charges, Refunds, Disputes, Checkout Sessions
 * with a hosted page, Events and signed webhooks, on a simulated clock. Returns a Fastify instance
 * that is not listening yet, with its control object on `app.simulator`.
 */
export function buildStripeSimulator (options: StripeSimulatorOptions = {}): StripeSimulator {
  const apiKeys = options.apiKeys ?? [DEFAULT_API_KEY]
  if (apiKeys.length === 0 || apiKeys.some((key) => !/^sk_test_\w+$/.test(key))) {
    throw new TypeError('apiKeys must be a non-empty list of test secret keys (sk_test_…)')
  }
  if (options.publicUrl !== undefined && !URL.canParse(options.publicUrl)) throw new TypeError(`publicUrl must be a URL, got "${options.publicUrl}"`)
  const clock = createClock(options.now)
  const store = createStore({
    apiKeys,
    apiVersion: options.apiVersion ?? SIMULATED_API_VERSION,
    publicUrl: options.publicUrl?.replace(/\/$/, ''),
    sessionTtlSeconds: positive('sessionTtlSeconds', options.sessionTtlSeconds, DAY_SECONDS),
    authorizationTtlSeconds: positive('authorizationTtlSeconds', options.authorizationTtlSeconds, 7 * DAY_SECONDS),
    idempotencyRetentionMs: positive('idempotencyRetentionMs', options.idempotencyRetentionMs, DAY_SECONDS * 1000)
  }, clock)

  // close() must not wait for clients' keep-alive sockets, nor for a request a fault holds.
  const app: FastifyInstance = Fastify({ logger: options.logger ?? false, forceCloseConnections: true, routerOptions: { querystringParser: parseQuery } })
  const baseUrl = (): string => store.config.publicUrl ?? (app.server.listening ? app.listeningOrigin : 'http://localhost')
  const events = createEventLog(store)
  const webhooks = createWebhookEngine(store, events, {
    retryDelaysMs: options.webhookDelivery?.retryDelaysMs ?? [300_000, 3_600_000, 7_200_000],
    timeoutMs: positive('webhookDelivery.timeoutMs', options.webhookDelivery?.timeoutMs, 10_000)
  })
  const payments = createPayments(store, events, baseUrl)
  const checkout = createCheckout(store, events, payments, baseUrl)
  const runtime = createRuntime(app, { store, events, webhooks, payments, checkout, refunds: createRefunds(store, events), disputes: createDisputes(store, events) })
  clock.onAdvance(runtime.tick)
  for (const endpoint of options.webhooks ?? []) webhooks.addEndpoint(endpoint)

  installProtocol(app, runtime)
  // Order matters: faults answer before an idempotency key is reserved; a lost answer is kept for its key first.
  const faults = installFaults(app, runtime, options.faults ?? [])
  faults.installHangs(installIdempotency(app, runtime).release)
  installLostAnswers(app, runtime)
  registerPaymentRoutes(app, runtime)
  registerCheckoutRoutes(app, runtime)
  registerRefundRoutes(app, runtime)
  registerEventRoutes(app, runtime)
  registerHostedPages(app, runtime)

  app.decorate('simulator', createControl(runtime, faults, baseUrl))
  return app as StripeSimulator
}
