import type { FastifyInstance, FastifyRequest } from 'fastify'
import { paypalErrorBody } from './paypal-errors.ts'
import type { SimulatorRuntime } from './runtime.ts'
import type { FaultControl, FaultRule, FaultWhen } from './types.ts'

interface ArmedFault {
  rule: FaultRule
  when: FaultWhen
  pattern: RegExp
  remaining: number
}

function pathPattern (path: string | RegExp): RegExp {
  if (path instanceof RegExp) return path
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')
  return new RegExp(`^${escaped}$`)
}

function requestPath (request: FastifyRequest): string {
  return request.url.replace(/\?.*$/s, '')
}

export interface FaultInjector extends FaultControl {
  take: (when: FaultWhen, request: FastifyRequest) => FaultRule | undefined
}

export function createFaultInjector (initial: FaultRule[]): FaultInjector {
  let armed: ArmedFault[] = []

  const injector: FaultInjector = {
    inject (rule) {
      const times = rule.times ?? 1
      if (!Number.isInteger(times) || times <= 0) throw new TypeError(`Fault "times" must be a positive integer, got ${times}`)
      const when = rule.kind === 'rate_limit' ? 'before' : rule.when ?? 'before'
      armed.push({ rule, when, pattern: pathPattern(rule.path), remaining: times })
    },
    clear () {
      armed = []
    },
    remaining () {
      return armed.reduce((sum, fault) => sum + fault.remaining, 0)
    },
    take (when, request) {
      const path = requestPath(request)
      const fault = armed.find((candidate) =>
        candidate.when === when &&
        (candidate.rule.method === undefined || candidate.rule.method.toUpperCase() === request.method) &&
        candidate.pattern.test(path))
      if (fault === undefined) return undefined
      fault.remaining--
      if (fault.remaining === 0) armed = armed.filter((candidate) => candidate !== fault)
      return fault.rule
    }
  }
  for (const rule of initial) injector.inject(rule)
  return injector
}

function faultResponse (rule: Exclude<FaultRule, { kind: 'delay' }>): { status: 429 | 500 | 503, name: 'RATE_LIMIT_REACHED' | 'INTERNAL_SERVICE_ERROR' | 'SERVICE_UNAVAILABLE' } {
  if (rule.kind === 'rate_limit') return { status: 429, name: 'RATE_LIMIT_REACHED' }
  return rule.status === 503 ? { status: 503, name: 'SERVICE_UNAVAILABLE' } : { status: 500, name: 'INTERNAL_SERVICE_ERROR' }
}

/**
 * Before-faults run as the last preHandler (after the PayPal-Request-Id reservation, so a delayed
 * call is "in flight" for duplicates) and skip the handler. After-faults run as the last onSend:
 * the work is done and stored for replay, then the answer is delayed or replaced by a 5xx.
 */
export function installFaultHooks (app: FastifyInstance, runtime: SimulatorRuntime, injector: FaultInjector): void {
  app.addHook('preHandler', async function injectFaultBeforeWork (request, reply) {
    const rule = injector.take('before', request)
    if (rule === undefined) return
    if (rule.kind === 'delay') {
      await runtime.pause(rule.delayMs)
      return
    }
    const { status, name } = faultResponse(rule)
    if (rule.kind === 'rate_limit' && rule.retryAfterSeconds !== undefined) {
      reply.header('retry-after', String(rule.retryAfterSeconds))
    }
    return reply.code(status).send(paypalErrorBody(name, runtime.context(request).debugId))
  })

  app.addHook('onSend', async function injectFaultAfterWork (request, reply, payload) {
    const rule = injector.take('after', request)
    if (rule === undefined) return payload
    if (rule.kind === 'delay') {
      await runtime.pause(rule.delayMs)
      return payload
    }
    const { status, name } = faultResponse(rule)
    reply.code(status).type('application/json; charset=utf-8')
    return JSON.stringify(paypalErrorBody(name, runtime.context(request).debugId))
  })
}
