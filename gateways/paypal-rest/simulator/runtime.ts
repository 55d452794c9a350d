import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { newDebugId } from './ids.ts'
import { PaypalApiError } from './paypal-errors.ts'
import type { SimulatorStore, StoredPayment } from './store.ts'

export interface IdempotencyTicket {
  key: string
  fingerprint: string
}

/** Per-request facts shared by hooks and handlers. */
export interface RequestContext {
  debugId: string
  /** The JSON body exactly as received; webhook verification needs the bytes. */
  rawBody: string | undefined
  /** Set by the Bearer check on REST routes. */
  clientId: string
  idempotency: IdempotencyTicket | undefined
}

export interface SimulatorRuntime {
  readonly store: SimulatorStore
  context: (request: FastifyRequest) => RequestContext
  /** `publicUrl`, else the request's own origin, else the listening address. */
  baseUrl: (request?: FastifyRequest) => string
  /** Waits `ms` unless the simulator is closing; never rejects. */
  pause: (ms: number) => Promise<void>
  readonly closing: AbortSignal
  /** The client's payment, or 404 INVALID_RESOURCE_ID as PayPal answers for another merchant's id. */
  ownedPayment: (clientId: string, paymentId: string) => StoredPayment
  isExpired: (payment: StoredPayment) => boolean
}

export function createRuntime (app: FastifyInstance, store: SimulatorStore): SimulatorRuntime {
  const contexts = new WeakMap<FastifyRequest, RequestContext>()
  const closer = new AbortController()
  app.addHook('preClose', function abortSimulatorWaits (done) {
    closer.abort()
    done()
  })

  return {
    store,
    closing: closer.signal,
    context (request) {
      let context = contexts.get(request)
      if (context === undefined) {
        context = { debugId: newDebugId(), rawBody: undefined, clientId: '', idempotency: undefined }
        contexts.set(request, context)
      }
      return context
    },
    baseUrl (request) {
      if (store.config.publicUrl !== undefined) return store.config.publicUrl
      if (request !== undefined) return `${request.protocol}://${request.host}`
      return app.server.listening ? app.listeningOrigin : 'http://localhost'
    },
    async pause (ms) {
      await sleep(ms, undefined, { signal: closer.signal }).catch(() => undefined)
    },
    ownedPayment (clientId, paymentId) {
      const payment = store.payments.get(paymentId)
      if (payment === undefined || payment.clientId !== clientId) throw new PaypalApiError('INVALID_RESOURCE_ID', [])
      return payment
    },
    isExpired (payment) {
      return store.now() > payment.createdAt + store.config.paymentTtlSeconds * 1000
    }
  }
}
