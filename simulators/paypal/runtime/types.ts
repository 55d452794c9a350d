import type { FastifyServerOptions } from 'fastify'

export interface SimulatorClient {
  clientId: string
  clientSecret: string
}

/** The PayPal account that approves payments on the simulator's approval page. */
export interface SimulatorBuyer {
  email: string
  firstName: string
  lastName: string
  payerId: string
  countryCode: string
}

export type FaultWhen = 'before' | 'after'

interface FaultMatch {
  /** HTTP method to match; any method when left out. */
  method?: string
  /** Exact path (query ignored) where `*` stands for one path segment, or a RegExp tested on the path. */
  path: string | RegExp
  /** How many matching requests the fault applies to. Default 1. */
  times?: number
}

/**
 * `before`: the request is answered without doing the work.
 * `after`: the work is done (and stored for PayPal-Request-Id replay) but the answer is lost.
 */
export type FaultRule =
  | (FaultMatch & { kind: 'error', status?: 500 | 503, when?: FaultWhen })
  | (FaultMatch & { kind: 'delay', delayMs: number, when?: FaultWhen })
  | (FaultMatch & { kind: 'rate_limit', retryAfterSeconds?: number })

/**
 * A barrier for race tests: matching requests wait until the test ends them. `before`: held after
 * the PayPal-Request-Id reservation, before any work. `after`: the work is done and stored for
 * replay, the answer not sent yet. `times` (default 1) is how many matching requests it catches.
 */
export interface HoldRule extends FaultMatch {
  when?: FaultWhen
}

/** The status a held request is failed with: 500 INTERNAL_SERVICE_ERROR, 503 SERVICE_UNAVAILABLE or 429 RATE_LIMIT_REACHED. */
export type HoldFailStatus = 429 | 500 | 503

export interface HeldRequests {
  /**
   * Resolves once `times` matching requests have arrived and are held (for `after`, with their
   * work done and stored). Rejects if close() ends before they all came.
   */
  readonly reached: Promise<void>
  /** Matching requests caught so far. */
  readonly arrived: number
  /**
   * The held requests go on; so do later ones it still catches. `release`, `fail` and `reset` end
   * the hold: calling a second one throws.
   */
  release: () => void
  /** The held requests are answered with a PayPal error (default 500) instead: before the work, or instead of its answer. */
  fail: (status?: HoldFailStatus) => void
  /** The held requests' connections are destroyed without an answer (for `before`, nothing is done). */
  reset: () => void
}

export interface WebhookRegistration {
  url: string
  /** Event names, or `*` for all. Default `['*']`. */
  eventTypes?: string[]
  /** Owner of the subscription. Default: the first configured client. */
  clientId?: string
}

export interface WebhookDeliveryOptions {
  /** Attempts per delivery including the first. Default 3. */
  maxAttempts?: number
  /** Pause between attempts. Default 100 ms. */
  retryDelayMs?: number
  /** Per-attempt timeout. Default 5000 ms. */
  timeoutMs?: number
}

export interface PaypalSimulatorOptions {
  /** Accepted OAuth clients. Default: one client `sim-client` / `sim-secret`. */
  clients?: SimulatorClient[]
  /** `expires_in` of issued access tokens. Default 32400 (9 h, as PayPal today). */
  accessTokenTtlSeconds?: number
  /** Clock in epoch milliseconds; tests inject one to expire tokens and payments without sleeping. */
  now?: () => number
  /** Base URL put in links, approval URLs and cert URLs. Default: taken from each request's Host. */
  publicUrl?: string
  /** The buyer who approves on the approval page. */
  buyer?: Partial<SimulatorBuyer>
  /** Unexecuted payments answer PAYMENT_EXPIRED after this long. Default 10800 (3 h). */
  paymentTtlSeconds?: number
  /** How long PayPal-Request-Id outcomes are remembered. Default 30 days (Payments v1). */
  idempotencyRetentionSeconds?: number
  /** The same for Orders v2 calls (`/v2/checkout/orders…`). Default 6 hours, PayPal's window for orders. */
  ordersIdempotencyRetentionSeconds?: number
  /** The same for Payments v2 calls (`/v2/payments/…`: captures, refunds, voids, reauthorizations). Default 45 days. */
  paymentsIdempotencyRetentionSeconds?: number
  /** `reason_code` of pending sales. Default `ECHECK`. */
  pendingReasonCode?: string
  /** Webhook subscriptions that exist from the start. */
  webhooks?: WebhookRegistration[]
  webhookDelivery?: WebhookDeliveryOptions
  /** Faults armed from the start. */
  faults?: FaultRule[]
  logger?: FastifyServerOptions['logger']
}

/**
 * How often each piece of shared work really ran: one increment per operation PayPal performed,
 * never for a PayPal-Request-Id replay, a request a fault or hold stopped before the work, or a
 * refused call. Each API adds its own (`SimulatorCounters`).
 */
export interface RuntimeCounters {
  tokenGrants: number
  /** Webhook subscriptions created through the REST API. */
  webhooksCreated: number
  /** Stored answers sent again for a repeated PayPal-Request-Id. */
  idempotentReplays: number
  /** Webhook events emitted (redeliveries are not new events). */
  webhookEvents: number
  /** HTTP POSTs made to webhook listeners, retries and redeliveries included. */
  webhookDeliveryAttempts: number
  /** Every HTTP request that reached the simulator, whatever its answer. */
  requestsReceived: number
}

/** One request that reached the simulator, as `requests()` lists it. */
export interface SimulatorRequest {
  method: string
  /** The path, without the query. */
  path: string
  /** The PayPal-Request-Id header, when one was sent. */
  paypalRequestId?: string
  /** The status answered (after faults); undefined while it runs or when the connection was reset. */
  statusCode?: number
}

export interface RequestFilter {
  method?: string
  /** Exact path where `*` stands for one segment, or a RegExp, as in fault rules. */
  path?: string | RegExp
}

export interface Link {
  href: string
  rel: string
  method: string
}

export interface WebhookSubscription {
  id: string
  url: string
  eventTypes: string[]
  clientId: string
}

/**
 * The resources events carry, by API: each API adds its own by declaration merging (as Fastify's
 * FastifyContextConfig), so the runtime names none of them.
 */
export interface WebhookResources {}

export interface WebhookEvent {
  id: string
  event_version: '1.0'
  create_time: string
  /** v1 events: sale, refund, payment; Orders v2 events: checkout-order, capture, authorization, refund; disputes: dispute. */
  resource_type: 'sale' | 'refund' | 'payment' | 'checkout-order' | 'capture' | 'authorization' | 'dispute'
  /** `2.0` on Orders v2 / Payments v2 events; v1 events have none. */
  resource_version?: '2.0'
  event_type: string
  summary: string
  resource: WebhookResources[keyof WebhookResources] | Record<string, unknown>
  links: Link[]
}

export interface WebhookSignatureHeaders {
  'paypal-transmission-id': string
  'paypal-transmission-time': string
  'paypal-transmission-sig': string
  'paypal-cert-url': string
  'paypal-auth-algo': 'SHA256withRSA'
}

export interface WebhookDeliveryAttempt {
  statusCode?: number
  error?: string
}

export interface WebhookDelivery {
  eventId: string
  eventType: string
  webhookId: string
  url: string
  /** Exactly the bytes that were signed and sent. */
  body: string
  headers: WebhookSignatureHeaders
  status: 'held' | 'pending' | 'delivered' | 'failed'
  attempts: WebhookDeliveryAttempt[]
}

export interface SignOptions {
  webhookId: string
  transmissionId?: string
  transmissionTime?: string
}

export interface WebhookControl {
  subscribe: (registration: WebhookRegistration) => WebhookSubscription
  subscriptions: () => WebhookSubscription[]
  events: () => WebhookEvent[]
  deliveries: (filter?: { eventId?: string, webhookId?: string }) => WebhookDelivery[]
  /** Sends an already emitted event again (a duplicate, or late: out of order). */
  redeliver: (eventId: string, options?: { webhookId?: string }) => Promise<WebhookDelivery[]>
  /** Holds new deliveries until `resume`, so tests can release them in reverse order. */
  pause: () => void
  resume: (options?: { reverse?: boolean }) => void
  /** Resolves once no delivery is sending or waiting to retry. */
  waitForIdle: () => Promise<void>
  /** Signs `body` exactly as the simulator signs what it sends (CRC32 method). */
  sign: (body: string, options: SignOptions) => Promise<WebhookSignatureHeaders>
  /** The signing certificate, issued by the simulator's CA. */
  certificatePem: () => Promise<string>
  /** The simulator's CA certificate: the trust anchor (webhook_trust_anchors) of a gateway verifying offline. */
  certificateAuthorityPem: () => Promise<string>
  certificateUrl: () => string
}

export interface FaultControl {
  inject: (rule: FaultRule) => void
  /** Arms a barrier; holds and faults for the same requests apply in the order they were armed. */
  hold: (rule: HoldRule) => HeldRequests
  /** Disarms every fault and hold not yet used up; requests already held stay held. */
  clear: () => void
  /** Matching requests the armed faults and holds still apply to. */
  remaining: () => number
}

/** What tests drive the shared machinery with: the part of `app.simulator` that is not one API's. */
/** The simulated clock: expiry, honor periods and PayPal-Request-Id windows are read from it. */
export interface ClockControl {
  /** Epoch milliseconds as the simulator sees them. */
  now: () => number
  /** Moves time forward (never back) without waiting: tokens, payments, orders, authorizations and request ids age. */
  advance: (milliseconds: number) => void
}

export interface RuntimeControl {
  clock: ClockControl
  /** Base URL used when no request is at hand: `publicUrl`, else the listening address. */
  baseUrl: () => string
  addClient: (client: SimulatorClient) => void
  /** Mints a token without an OAuth call, for tests about other endpoints. */
  issueAccessToken: (clientId?: string) => string
  expireAllTokens: () => void
  /** Requests that reached the simulator, oldest first, optionally only those matching `filter`. */
  requests: (filter?: RequestFilter) => SimulatorRequest[]
  faults: FaultControl
  webhooks: WebhookControl
}
