import { setMaxListeners } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { newDebugId } from './ids.ts'
import type { SimulatorStore } from './store.ts'
import type { SimulatorRequest } from './types.ts'

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
  /** A fault or hold answered before the work: no `after` rule applies to that answer. */
  faulted: boolean
  /** This request's entry in the request log. */
  entry: SimulatorRequest | undefined
}

export interface SimulatorRuntime {
  readonly store: SimulatorStore
  context: (request: FastifyRequest) => RequestContext
  /** `publicUrl`, else the request's own origin, else the listening address. */
  baseUrl: (request?: FastifyRequest) => string
  /** Waits `ms` unless the simulator is closing; never rejects. */
  pause: (ms: number) => Promise<void>
  readonly closing: AbortSignal
  /** A request passed the gate: close() lets its work and answer finish before cutting connections. */
  beginWork: (request: FastifyRequest) => void
  /** Its answer is on its way (or its connection was reset). Safe to call for requests that never began. */
  endWork: (request: FastifyRequest) => void
}

export function createRuntime (app: FastifyInstance, store: SimulatorStore): SimulatorRuntime {
  const contexts = new WeakMap<FastifyRequest, RequestContext>()
  const closer = new AbortController()
  // Every delayed request waits on this one signal (closing cuts all waits short): dozens at once
  // under a fault storm are expected, not a leak, and each listener goes when its wait ends.
  setMaxListeners(0, closer.signal)
  const working = new Map<FastifyRequest, { done: Promise<void>, finish: () => void }>()

  // Aborting cuts delays short and releases holds and held webhook deliveries, so the work still in
  // flight ends within a few ticks; Fastify then destroys every connection (forceCloseConnections).
  app.addHook('preClose', async function finishSimulatorWork () {
    closer.abort()
    while (working.size > 0) await Promise.all([...working.values()].map((work) => work.done))
  })

  return {
    store,
    closing: closer.signal,
    context (request) {
      let context = contexts.get(request)
      if (context === undefined) {
        context = { debugId: newDebugId(), rawBody: undefined, clientId: '', idempotency: undefined, faulted: false, entry: undefined }
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
    beginWork (request) {
      const work = {} as { done: Promise<void>, finish: () => void }
      work.done = new Promise<void>((resolve) => { work.finish = resolve })
      working.set(request, work)
    },
    endWork (request) {
      working.get(request)?.finish()
      working.delete(request)
    }
  }
}
