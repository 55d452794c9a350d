import { setMaxListeners } from 'node:events'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { CheckoutEngine } from './checkout.ts'
import type { DisputesEngine } from './disputes.ts'
import type { EventLog, EventOrigin } from './events.ts'
import { newId } from './ids.ts'
import type { PaymentsEngine } from './payments.ts'
import type { RefundsEngine } from './refunds.ts'
import type { Store } from './store.ts'
import type { WebhookEngine } from './webhooks.ts'

/** Per-request facts the hooks and handlers share. */
export interface RequestContext {
  /** `req_…`, sent back in the `Request-Id` header (https://docs.stripe.com/api/request_ids). */
  requestId: string
  /** The `Idempotency-Key` this request reserved. */
  idempotencyKey?: string
  /** Whether the answer is kept for its idempotency key (not for parameter errors). */
  saved: boolean
  /** The work is done, then the connection is cut instead of answering. */
  lose: boolean
}

export interface Runtime {
  readonly store: Store
  readonly events: EventLog
  readonly webhooks: WebhookEngine
  readonly payments: PaymentsEngine
  readonly checkout: CheckoutEngine
  readonly refunds: RefundsEngine
  readonly disputes: DisputesEngine
  context: (request: FastifyRequest) => RequestContext
  origin: (request: FastifyRequest) => EventOrigin
  /** Runs expiries and due webhook deliveries (on every request and every clock advance). */
  tick: () => void
  readonly closing: AbortSignal
}

export interface Engines {
  store: Store
  events: EventLog
  webhooks: WebhookEngine
  payments: PaymentsEngine
  checkout: CheckoutEngine
  refunds: RefundsEngine
  disputes: DisputesEngine
}

export function createRuntime (app: FastifyInstance, engines: Engines): Runtime {
  const contexts = new WeakMap<FastifyRequest, RequestContext>()
  const closer = new AbortController()
  // Every hung or delayed request waits on this one signal (closing ends them all): many at once
  // under a fault storm are expected, not a leak; each listener goes when its request ends.
  setMaxListeners(0, closer.signal)
  app.addHook('preClose', (done) => {
    closer.abort()
    engines.webhooks.close()
    done()
  })
  const context = (request: FastifyRequest): RequestContext => {
    let found = contexts.get(request)
    if (found === undefined) {
      found = { requestId: newId('req', 14), saved: true, lose: false }
      contexts.set(request, found)
    }
    return found
  }
  return {
    ...engines,
    context,
    origin (request) {
      const key = request.headers['idempotency-key']
      return { id: context(request).requestId, idempotency_key: typeof key === 'string' ? key : null }
    },
    tick () {
      engines.payments.sweep()
      engines.checkout.sweep()
      engines.webhooks.tick()
    },
    closing: closer.signal
  }
}
