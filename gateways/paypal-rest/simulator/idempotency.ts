import type { FastifyInstance } from 'fastify'
import { PaypalApiError } from './paypal-errors.ts'
import type { SimulatorRuntime } from './runtime.ts'

type Outcome =
  | { state: 'in_flight', fingerprint: string }
  | { state: 'done', fingerprint: string, statusCode: number, payload: string, storedAt: number }

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours PayPal-Request-Id (paypal-wire §3.7). */
    paypalIdempotent?: boolean
  }
}

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

/**
 * Same PayPal-Request-Id + method + path (per client): the stored answer is replayed (201 becomes
 * 200) without running the handler. A different body is DUPLICATE_REQUEST_ID; a duplicate while
 * the first call still runs is 409. Only successful answers are remembered, so a refused call
 * can be retried with the same id once its cause is fixed.
 */
export function installIdempotency (app: FastifyInstance, runtime: SimulatorRuntime): void {
  const outcomes = new Map<string, Outcome>()
  const { store } = runtime

  app.addHook('preHandler', async function reservePaypalRequestId (request, reply) {
    const requestId = request.headers['paypal-request-id']
    if (request.routeOptions.config.paypalIdempotent !== true || typeof requestId !== 'string' || requestId === '') return
    const context = runtime.context(request)
    const key = [context.clientId, requestId, request.method, request.url.replace(/\?.*$/s, '')].join('\n')
    const fingerprint = canonicalJson(request.body ?? null)
    let outcome = outcomes.get(key)
    if (outcome?.state === 'done' && store.now() - outcome.storedAt > store.config.idempotencyRetentionSeconds * 1000) {
      outcomes.delete(key)
      outcome = undefined
    }
    if (outcome === undefined) {
      outcomes.set(key, { state: 'in_flight', fingerprint })
      context.idempotency = { key, fingerprint }
      return
    }
    if (outcome.fingerprint !== fingerprint) throw new PaypalApiError('DUPLICATE_REQUEST_ID')
    if (outcome.state === 'in_flight') throw new PaypalApiError('RESOURCE_CONFLICT')
    store.counters.idempotentReplays++
    return reply
      .code(outcome.statusCode === 201 ? 200 : outcome.statusCode)
      .type('application/json; charset=utf-8')
      .send(outcome.payload)
  })

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
}
