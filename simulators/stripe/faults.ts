import type { FastifyInstance, FastifyRequest } from 'fastify'
import { apiError, rateLimited } from './errors.ts'
import type { Runtime } from './runtime.ts'

/*
 * The fault gate, for testing a client's handling of Stripe outages
 * (https://docs.stripe.com/error-handling: 5xx answers, timeouts, and requests whose outcome is
 * unknown, to retry with the same idempotency key). A rule matches a method (any when left out)
 * and a path (exact, `*` for one segment, or a RegExp) and applies to the next `times` matching
 * requests (default 1):
 *   error      answer 500 (or 502, 503, 504) `api_error` before any work
 *   rate_limit answer 429 `rate_limit` before any work
 *   hang       never answer, do no work, hold the idempotency key: the client times out
 *   lose       do the work (and keep its idempotent answer), then cut the connection unanswered
 */

export type FaultRule =
  | { kind: 'error', status?: 500 | 502 | 503 | 504, method?: string, path: string | RegExp, times?: number }
  | { kind: 'rate_limit' | 'hang' | 'lose', method?: string, path: string | RegExp, times?: number }

export interface Faults {
  inject: (rule: FaultRule) => void
  clear: () => void
  /** Rules armed and not used up. */
  remaining: () => number
  /** Requests received per route, as `METHOD /route/:param` (unknown paths as sent). */
  calls: () => Record<string, number>
  /** How many requests hang now. */
  hanging: () => number
  /** Resolves once a request hangs. */
  untilHanging: () => Promise<void>
  /** Resolves once no request hangs (their clients gave up, or the simulator closed). */
  untilNoneHanging: () => Promise<void>
  /** Registers the hang rules' hook: after the idempotency layer's. */
  installHangs: (release: (request: FastifyRequest) => void) => void
}

interface Armed { rule: FaultRule, left: number }

function matches (rule: FaultRule, request: FastifyRequest): boolean {
  if (rule.method !== undefined && rule.method.toUpperCase() !== request.method) return false
  const path = request.url.split('?')[0] as string
  if (rule.path instanceof RegExp) return rule.path.test(path)
  const want = rule.path.split('/')
  const got = path.split('/')
  return want.length === got.length && want.every((segment, index) => segment === '*' || segment === got[index])
}

export function installFaults (app: FastifyInstance, runtime: Runtime, initial: readonly FaultRule[]): Faults {
  let armed: Armed[] = []
  const counts: Record<string, number> = {}
  const hung = new Set<FastifyRequest>()
  const hangWaiters: Array<() => void> = []
  const endWaiters: Array<() => void> = []

  const inject = (rule: FaultRule): void => {
    armed.push({ rule, left: rule.times ?? 1 })
  }
  for (const rule of initial) inject(rule)

  function take (request: FastifyRequest, hang: boolean): FaultRule | undefined {
    const found = armed.find((item) => (item.rule.kind === 'hang') === hang && matches(item.rule, request))
    if (found === undefined) return undefined
    found.left--
    armed = armed.filter((item) => item.left > 0)
    return found.rule
  }

  app.addHook('onRequest', async (request) => {
    const key = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] as string}`
    counts[key] = (counts[key] ?? 0) + 1
  })

  app.addHook('preHandler', async (request) => {
    const rule = take(request, false)
    if (rule === undefined) return
    if (rule.kind === 'error') throw apiError(rule.status)
    if (rule.kind === 'rate_limit') throw rateLimited()
    runtime.context(request).lose = true
  })

  /*
   * After the idempotency layer: a hanging request holds its key, as a request Stripe is still
   * executing does (a retry with the key gets 409), and frees it when the client gives up.
   */
  function installHangs (release: (request: FastifyRequest) => void): void {
    app.addHook('preHandler', async (request) => {
      if (take(request, true) === undefined) return
      hung.add(request)
      for (const resolve of hangWaiters.splice(0)) resolve()
      await new Promise<void>((resolve) => {
        // Whichever comes first removes the other: a hung request that ended leaves no listener behind.
        const end = (): void => {
          runtime.closing.removeEventListener('abort', end)
          request.raw.socket.off('close', end)
          resolve()
        }
        runtime.closing.addEventListener('abort', end, { once: true })
        request.raw.socket.once('close', end)
      })
      release(request)
      hung.delete(request)
      if (hung.size === 0) for (const resolve of endWaiters.splice(0)) resolve()
      throw apiError()
    })
  }

  return {
    inject,
    clear () { armed = [] },
    remaining: () => armed.reduce((sum, item) => sum + item.left, 0),
    calls: () => ({ ...counts }),
    hanging: () => hung.size,
    untilHanging: async () => {
      if (hung.size > 0) return
      await new Promise<void>((resolve) => { hangWaiters.push(resolve) })
    },
    untilNoneHanging: async () => {
      if (hung.size === 0) return
      await new Promise<void>((resolve) => { endWaiters.push(resolve) })
    },
    installHangs
  }
}

/** The `lose` fault's second half, after the idempotency layer has kept the answer. */
export function installLostAnswers (app: FastifyInstance, runtime: Runtime): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (runtime.context(request).lose) {
      reply.hijack()
      request.raw.socket.destroy()
    }
    return payload
  })
}
