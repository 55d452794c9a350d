import type { FastifyRequest } from 'fastify'
import { createHold } from './holds.ts'
import type { Hold } from './holds.ts'
import type { CommonErrorName } from './errors.ts'
import type { FaultControl, FaultRule, FaultWhen, HoldFailStatus, RequestFilter } from './types.ts'

/** What a request took from the armed rules for one phase. */
export type TakenRule = { kind: 'fault', rule: FaultRule } | { kind: 'hold', hold: Hold }

interface ArmedRule {
  taken: TakenRule
  method: string | undefined
  when: FaultWhen
  pattern: RegExp
  remaining: number
}

function pathPattern (path: string | RegExp): RegExp {
  if (path instanceof RegExp) return path
  const escaped = path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]+')
  return new RegExp(`^${escaped}$`)
}

export function requestPath (url: string): string {
  return url.replace(/\?.*$/s, '')
}

/** The fault rules' matching (method, exact path with `*` segments, or RegExp), for the request log too. */
export function requestMatcher (filter: RequestFilter): (method: string, path: string) => boolean {
  const pattern = filter.path === undefined ? undefined : pathPattern(filter.path)
  const method = filter.method?.toUpperCase()
  return (candidateMethod, path) =>
    (method === undefined || method === candidateMethod) && (pattern === undefined || pattern.test(path))
}

function positiveTimes (times: number | undefined): number {
  const value = times ?? 1
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`Fault "times" must be a positive integer, got ${value}`)
  return value
}

export interface FaultInjector extends FaultControl {
  /** The first armed rule of this phase matching the request, used up by one. */
  take: (when: FaultWhen, request: FastifyRequest) => TakenRule | undefined
  /** Once the work in flight at close() is done: holds that never got their requests fail `reached`. */
  abandonHolds: () => void
}

export interface FaultAnswer {
  status: HoldFailStatus
  name: Extract<CommonErrorName, 'RATE_LIMIT_REACHED' | 'INTERNAL_SERVICE_ERROR' | 'SERVICE_UNAVAILABLE'>
  retryAfterSeconds?: number
}

export function statusAnswer (status: HoldFailStatus): FaultAnswer {
  if (status === 429) return { status, name: 'RATE_LIMIT_REACHED' }
  return status === 503 ? { status, name: 'SERVICE_UNAVAILABLE' } : { status, name: 'INTERNAL_SERVICE_ERROR' }
}

export function faultAnswer (rule: Exclude<FaultRule, { kind: 'delay' }>): FaultAnswer {
  if (rule.kind === 'rate_limit') return { ...statusAnswer(429), retryAfterSeconds: rule.retryAfterSeconds }
  return statusAnswer(rule.status === 503 ? 503 : 500)
}

/**
 * Faults and holds in one ordered list: a request takes at most one rule per phase, the earliest
 * armed that matches, so rules for the same requests queue in the order they were armed.
 */
export function createFaultInjector (initial: FaultRule[], closing: AbortSignal): FaultInjector {
  let armed: ArmedRule[] = []
  const holds = new Set<Hold>()
  closing.addEventListener('abort', () => {
    for (const hold of holds) hold.close()
  }, { once: true })

  function arm (taken: TakenRule, match: { method?: string, path: string | RegExp, times?: number }, when: FaultWhen): void {
    const remaining = positiveTimes(match.times)
    armed.push({ taken, method: match.method?.toUpperCase(), when, pattern: pathPattern(match.path), remaining })
  }

  const injector: FaultInjector = {
    inject (rule) {
      arm({ kind: 'fault', rule }, rule, rule.kind === 'rate_limit' ? 'before' : rule.when ?? 'before')
    },
    hold (rule) {
      const hold = createHold(positiveTimes(rule.times))
      arm({ kind: 'hold', hold }, rule, rule.when ?? 'before')
      holds.add(hold)
      if (closing.aborted) {
        hold.close()
        hold.abandon()
      }
      return hold.handle
    },
    abandonHolds () {
      for (const hold of holds) hold.abandon()
    },
    clear () {
      armed = []
    },
    remaining () {
      return armed.reduce((sum, rule) => sum + rule.remaining, 0)
    },
    take (when, request) {
      const path = requestPath(request.url)
      const rule = armed.find((candidate) =>
        candidate.when === when &&
        (candidate.method === undefined || candidate.method === request.method) &&
        candidate.pattern.test(path))
      if (rule === undefined) return undefined
      rule.remaining--
      if (rule.remaining === 0) armed = armed.filter((candidate) => candidate !== rule)
      return rule.taken
    }
  }
  for (const rule of initial) injector.inject(rule)
  return injector
}
