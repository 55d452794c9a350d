import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { faultAnswer, requestPath, statusAnswer } from './faults.ts'
import type { FaultAnswer, FaultInjector } from './faults.ts'
import type { Idempotency } from './idempotency.ts'
import { commonErrorBody } from './errors.ts'
import type { SimulatorRuntime } from './runtime.ts'

const RESET = Symbol('reset')

function answerWithFault (runtime: SimulatorRuntime, request: FastifyRequest, reply: FastifyReply, answer: FaultAnswer): string {
  if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', String(answer.retryAfterSeconds))
  reply.code(answer.status).type('application/json; charset=utf-8')
  return JSON.stringify(commonErrorBody(answer.name, runtime.context(request).debugId))
}

/**
 * What every call passes around its handler: `before` faults and holds, the PayPal-Request-Id
 * reservation or replay, then `after` faults and holds once the answer (work done and stored) leaves.
 *
 * The preHandler is callback-style on purpose and never calls `done` once it has answered. An async
 * hook would have to `return reply`, and Fastify's `reply.then` settles when the client disconnects
 * while a slow answer is still in the onSend hooks: the hook chain then went on and ran the handler
 * of a request that was already answered (double executions, phantom payments).
 */
export function installRequestGate (
  app: FastifyInstance, runtime: SimulatorRuntime, faults: FaultInjector, idempotency: Idempotency
): void {
  const { store } = runtime

  // No answer at all: the log entry keeps no status code.
  function reset (request: FastifyRequest, reply: FastifyReply): void {
    runtime.context(request).entry = undefined
    reply.raw.destroy()
  }

  /** Resolves true when the handler should run; false when the gate answered (or reset) itself. */
  async function passGate (request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const context = runtime.context(request)
    const taken = faults.take('before', request)
    if (taken?.kind === 'fault' && taken.rule.kind !== 'delay') {
      context.faulted = true
      reply.send(answerWithFault(runtime, request, reply, faultAnswer(taken.rule)))
      return false
    }
    // Decided on arrival: while this call waits below it counts as in flight for duplicates.
    const disposition = idempotency.open(request)
    if (taken?.kind === 'fault' && taken.rule.kind === 'delay') await runtime.pause(taken.rule.delayMs)
    if (taken?.kind === 'hold') {
      const verdict = await taken.hold.arrive()
      if (verdict.kind === 'fail') {
        context.faulted = true
        reply.send(answerWithFault(runtime, request, reply, statusAnswer(verdict.status)))
        return false
      }
      if (verdict.kind === 'reset') {
        idempotency.release(request)
        reset(request, reply)
        runtime.endWork(request)
        return false
      }
    }
    if (disposition.kind === 'refused') throw disposition.error
    if (disposition.kind === 'replay') {
      store.counters.idempotentReplays++
      reply.code(disposition.statusCode).type('application/json; charset=utf-8').send(disposition.payload)
      return false
    }
    return true
  }

  app.addHook('onRequest', function recordRequest (request, _reply, done) {
    const requestId = request.headers['paypal-request-id']
    const entry = { method: request.method, path: requestPath(request.url), ...(typeof requestId === 'string' ? { paypalRequestId: requestId } : {}) }
    store.requests.push(entry)
    store.counters.requestsReceived++
    runtime.context(request).entry = entry
    done()
  })

  app.addHook('preHandler', function gateRequest (request, reply, done) {
    runtime.beginWork(request)
    passGate(request, reply).then((proceed) => {
      if (proceed) done()
    }, done)
  })

  async function afterWork (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const taken = runtime.context(request).faulted ? undefined : faults.take('after', request)
    if (taken?.kind === 'fault') {
      if (taken.rule.kind !== 'delay') return answerWithFault(runtime, request, reply, faultAnswer(taken.rule))
      await runtime.pause(taken.rule.delayMs)
    }
    if (taken?.kind === 'hold') {
      const verdict = await taken.hold.arrive()
      if (verdict.kind === 'fail') return answerWithFault(runtime, request, reply, statusAnswer(verdict.status))
      if (verdict.kind === 'reset') return RESET
    }
    return payload
  }

  // The last onSend hook: the answer is final here (idempotency has stored the real one before).
  app.addHook('onSend', async function applyAfterRules (request, reply, payload) {
    const answer = await afterWork(request, reply, payload).finally(() => runtime.endWork(request))
    if (answer === RESET) {
      reset(request, reply)
      // Never settles: Fastify must not write an answer (light-my-request would still deliver it).
      return await new Promise<never>(() => {})
    }
    const { entry } = runtime.context(request)
    if (entry !== undefined) entry.statusCode = reply.statusCode
    return answer
  })
}
