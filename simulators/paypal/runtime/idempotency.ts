import type { FastifyInstance, FastifyRequest } from 'fastify'
import { requestPath } from './faults.ts'
import { apiError } from './errors.ts'
import type { PaypalApiError } from './errors.ts'
import type { SimulatorRuntime } from './runtime.ts'
import type { ResolvedConfig } from './store.ts'

type Outcome =
  | { state: 'in_flight', fingerprint: string }
  | { state: 'done', fingerprint: string, statusCode: number, payload: string, storedAt: number }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours PayPal-Request-Id (paypal-wire §3.7). */
    paypalIdempotent?: boolean
    /**
     * How long the route's request ids are kept: Payments v1 30 days, Orders v2 6 hours, Payments v2
     * 45 days (the `PayPal-Request-Id` header of payments_payment_v1.json, checkout_orders_v2.json and
     * payments_payment_v2.json; https://developer.paypal.com/api/rest/reference/idempotency/).
     */
    paypalRequestIdWindow?: 'payments-v1' | 'orders-v2' | 'payments-v2'
  }
}

const RETENTION = {
  'payments-v1': (config: ResolvedConfig) => config.idempotencyRetentionSeconds,
  'orders-v2': (config: ResolvedConfig) => config.ordersIdempotencyRetentionSeconds,
  'payments-v2': (config: ResolvedConfig) => config.paymentsIdempotencyRetentionSeconds
} as const

/** JSON with sorted keys, so a retry that re-serialises the same body in another key order still matches. */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) =>
      `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value)
}

/** What a request is to the PayPal-Request-Id store, decided when it reaches the gate. */
export type Disposition =
  /** No PayPal-Request-Id, or a route that ignores it. */
  | { kind: 'untracked' }
  /** A new call: the id is reserved (in flight) until its answer is stored or dropped. */
  | { kind: 'reserved' }
  /** The id's stored answer is sent again (201 becomes 200) and nothing is done. */
  | { kind: 'replay', statusCode: number, payload: string }
  /** DUPLICATE_REQUEST_ID (another body) or RESOURCE_CONFLICT (the first call still runs). */
  | { kind: 'refused', error: PaypalApiError }

export interface Idempotency {
  open: (request: FastifyRequest) => Disposition
  /** Drops the request's reservation: its call ended without an answer and did no work. */
  release: (request: FastifyRequest) => void
}

/**
 * Same PayPal-Request-Id + method + path (per client): the stored answer is replayed without
 * running the handler. A different body is DUPLICATE_REQUEST_ID; a duplicate while the first call
 * still runs is 409. Only successful answers are remembered, so a refused call can be retried with
 * the same id once its cause is fixed. The request gate (request-gate.ts) calls `open` and sends
 * replays itself; this module stores outcomes as answers leave.
 */
export function installIdempotency (app: FastifyInstance, runtime: SimulatorRuntime): Idempotency {
  const outcomes = new Map<string, Outcome>()
  const { store } = runtime

  // The work is done once the answer leaves, whether or not the client is still there to read it.
  app.addHook('onSend', async function rememberPaypalRequestId (request, reply, payload) {
    const context = runtime.context(request)
    const ticket = context.idempotency
    if (ticket === undefined) return payload
    context.idempotency = undefined
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      outcomes.set(ticket.key, {
        state: 'done',
        fingerprint: ticket.fingerprint,
        statusCode: reply.statusCode,
        payload: String(payload),
        storedAt: store.now()
      })
    } else {
      outcomes.delete(ticket.key)
    }
    return payload
  })

  return {
    open (request) {
      const requestId = request.headers['paypal-request-id']
      if (request.routeOptions.config.paypalIdempotent !== true || typeof requestId !== 'string' || requestId === '') {
        return { kind: 'untracked' }
      }
      const context = runtime.context(request)
      const key = [context.clientId, requestId, request.method, requestPath(request.url)].join('\n')
      const fingerprint = canonicalJson(request.body ?? null)
      let outcome = outcomes.get(key)
      const retentionSeconds = RETENTION[request.routeOptions.config.paypalRequestIdWindow ?? 'payments-v1'](store.config)
      if (outcome?.state === 'done' && store.now() - outcome.storedAt > retentionSeconds * 1000) {
        outcomes.delete(key)
        outcome = undefined
      }
      if (outcome === undefined) {
        outcomes.set(key, { state: 'in_flight', fingerprint })
        context.idempotency = { key, fingerprint }
        return { kind: 'reserved' }
      }
      if (outcome.fingerprint !== fingerprint) return { kind: 'refused', error: apiError('DUPLICATE_REQUEST_ID') }
      if (outcome.state === 'in_flight') return { kind: 'refused', error: apiError('RESOURCE_CONFLICT') }
      return { kind: 'replay', statusCode: outcome.statusCode === 201 ? 200 : outcome.statusCode, payload: outcome.payload }
    },
    release (request) {
      const context = runtime.context(request)
      if (context.idempotency !== undefined) outcomes.delete(context.idempotency.key)
      context.idempotency = undefined
    }
  }
}
