import type { FastifyInstance, FastifyRequest } from 'fastify'
import { invalidRequest, StripeApiError } from './errors.ts'
import type { Runtime } from './runtime.ts'
import { isApi } from './protocol.ts'

/*
 * Idempotent requests (https://docs.stripe.com/idempotency, https://docs.stripe.com/api/idempotent_requests):
 * a POST with an `Idempotency-Key` header saves the status code and body of its first answer, 500
 * errors included, and the same key replays it. Results are saved only once the endpoint runs: a
 * request whose parameters fail validation, or that conflicts with one still running on the same
 * key (409), saves nothing. The same key with other parameters or another endpoint is an
 * `idempotency_error`. Keys are pruned once they are 24 hours old (on the simulated clock).
 */

interface Saved {
  endpoint: string
  fingerprint: string
  running: boolean
  statusCode: number
  body: string
  requestId: string
  createdAt: number
}

export interface Idempotency {
  /** Frees the key a request reserved, keeping no answer (a request that ends unanswered). */
  release: (request: FastifyRequest) => void
}

export function installIdempotency (app: FastifyInstance, runtime: Runtime): Idempotency {
  const saved = new Map<string, Saved>()
  const { store } = runtime

  function prune (): void {
    const limit = store.clock.now() - store.config.idempotencyRetentionMs
    for (const [key, entry] of saved) if (!entry.running && entry.createdAt <= limit) saved.delete(key)
  }

  const keyOf = (request: FastifyRequest): string | undefined => {
    const header = request.headers['idempotency-key']
    return request.method === 'POST' && isApi(request) && typeof header === 'string' && header !== '' ? `${request.headers.authorization ?? ''}\n${header}` : undefined
  }

  app.addHook('preHandler', async (request, reply) => {
    const key = keyOf(request)
    if (key === undefined) return
    prune()
    const shown = request.headers['idempotency-key'] as string
    const endpoint = `${request.method} ${request.url.split('?')[0] as string}`
    const fingerprint = JSON.stringify(request.body ?? {})
    const entry = saved.get(key)
    if (entry === undefined) {
      saved.set(key, { endpoint, fingerprint, running: true, statusCode: 0, body: '', requestId: runtime.context(request).requestId, createdAt: store.clock.now() })
      runtime.context(request).idempotencyKey = key
      return
    }
    if (entry.running) throw invalidRequest(`There is currently another in-progress request using this Idempotency-Key (${shown}); please try again later.`, 'idempotency_key_in_use', undefined, 409)
    if (entry.endpoint !== endpoint) {
      throw new StripeApiError(400, { type: 'idempotency_error', message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${entry.endpoint}' vs '${endpoint}'). Try using a key other than '${shown}' if you meant to execute a different request.` })
    }
    if (entry.fingerprint !== fingerprint) {
      throw new StripeApiError(400, { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${shown}' if you meant to execute a different request.` })
    }
    store.counters.idempotentReplays++
    return await reply.code(entry.statusCode).type('application/json')
      .header('Idempotent-Replayed', 'true').header('Original-Request', entry.requestId).header('Idempotency-Key', shown)
      .send(entry.body)
  })

  app.addHook('onSend', async (request, reply, payload) => {
    const context = runtime.context(request)
    const key = context.idempotencyKey
    if (key === undefined) return payload
    context.idempotencyKey = undefined
    const entry = saved.get(key) as Saved
    if (!context.saved) {
      saved.delete(key)
      return payload
    }
    entry.running = false
    entry.statusCode = reply.statusCode
    entry.body = payload as string
    reply.header('Idempotency-Key', request.headers['idempotency-key'] as string)
    return payload
  })

  return {
    release (request) {
      const context = runtime.context(request)
      if (context.idempotencyKey !== undefined) saved.delete(context.idempotencyKey)
      context.idempotencyKey = undefined
    }
  }
}
