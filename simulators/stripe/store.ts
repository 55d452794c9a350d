import type Stripe from 'stripe'
import type { TestCard } from './cards.ts'
import type { SimulatedClock } from './clock.ts'

/** Everything the simulator holds, in memory, per instance. Stored objects are Stripe's own types. */

export interface IntentRecord {
  intent: Stripe.PaymentIntent
  /** When the card was authorized (epoch ms), for the 7-day authorization window. */
  authorizedAt?: number
  /** The card waiting behind a 3D Secure challenge. */
  challenged?: TestCard
  /** The Checkout Session that created it. */
  sessionId?: string
  /** `return_url` given on confirm, for the 3D Secure redirect back. */
  returnUrl?: string
}

export interface SessionItem {
  name: string
  unitAmount: number
  quantity: number
}

export interface SessionRecord {
  session: Stripe.Checkout.Session
  items: SessionItem[]
  intentData: { captureMethod: 'automatic' | 'manual', metadata: Record<string, string>, description: string | null }
  /** The hosted page's last message to the buyer (a decline, a failed challenge). */
  notice?: string
}

export interface Config {
  apiKeys: readonly string[]
  apiVersion: string
  publicUrl: string | undefined
  sessionTtlSeconds: number
  authorizationTtlSeconds: number
  idempotencyRetentionMs: number
}

export interface Counters {
  paymentIntentsCreated: number
  confirmations: number
  declines: number
  captures: number
  cancellations: number
  refunds: number
  disputes: number
  sessionsCreated: number
  sessionsCompleted: number
  sessionsExpired: number
  events: number
  webhookAttempts: number
  idempotentReplays: number
}

export interface Store {
  readonly config: Config
  readonly clock: SimulatedClock
  readonly intents: Map<string, IntentRecord>
  readonly charges: Map<string, Stripe.Charge>
  readonly refunds: Map<string, Stripe.Refund>
  readonly disputes: Map<string, Stripe.Dispute>
  readonly sessions: Map<string, SessionRecord>
  /** Payment methods made from test cards on confirmation, by their `pm_…` id. */
  readonly paymentMethods: Map<string, TestCard>
  readonly counters: Counters
}

export function createStore (config: Config, clock: SimulatedClock): Store {
  return {
    config,
    clock,
    intents: new Map(),
    charges: new Map(),
    refunds: new Map(),
    disputes: new Map(),
    sessions: new Map(),
    paymentMethods: new Map(),
    counters: { paymentIntentsCreated: 0, confirmations: 0, declines: 0, captures: 0, cancellations: 0, refunds: 0, disputes: 0, sessionsCreated: 0, sessionsCompleted: 0, sessionsExpired: 0, events: 0, webhookAttempts: 0, idempotentReplays: 0 }
  }
}
