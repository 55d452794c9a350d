import type { Logger } from '../observability/logger.ts'
import { traceEventDispatch } from '../observability/telemetry.ts'
import type { OutboxEntry, Settlement } from './outbox.ts'

/** A handler that did not settle within handlerTimeoutMs. */
export class HandlerTimeout extends Error {
  readonly handler: string
  readonly timeoutMs: number

  constructor (handler: string, timeoutMs: number) {
    super(`the event handler ${handler} did not finish within ${timeoutMs} ms`)
    this.handler = handler
    this.timeoutMs = timeoutMs
  }
}

/**
 * Runs one handler, or gives up on it after timeoutMs (it may still be running: nothing can stop
 * it). A handler that returns no promise has finished (no timer could have fired meanwhile): it
 * gets neither a timer nor a promise.
 */
export function callHandler<E> (handler: (event: E) => void | Promise<void>, subscribed: string, event: E, timeoutMs: number): Promise<void> | undefined {
  const result = handler(event)
  if (result === undefined || typeof (result as { then?: unknown } | null)?.then !== 'function') return undefined
  return raceHandler(result, handler, subscribed, timeoutMs)
}

async function raceHandler (result: PromiseLike<void>, handler: (event: never) => unknown, subscribed: string, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new HandlerTimeout(`${handler.name === '' ? 'anonymous' : handler.name} (on '${subscribed}')`, timeoutMs)) }, timeoutMs)
    // A process on its way out need not wait for it: the event stays in the outbox.
    timer.unref()
  })
  try {
    await Promise.race([result, timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/** The handlers of one event, each with the type it subscribed to ('*' or the event's own). */
export type SubscribedHandlers = ReadonlyArray<readonly [(event: any) => void | Promise<void>, string]>

export interface DeliveryPolicy {
  maxAttempts: number
  retryBaseMs: number
  retryMaxMs: number
  handlerTimeoutMs: number
}

/**
 * Hands one event to its handlers in turn and says what becomes of it: delivered, tried again
 * after an exponential backoff, or dead once it failed maxAttempts times.
 */
export async function deliverEntry (entry: OutboxEntry, handlersOf: (type: string) => SubscribedHandlers, policy: DeliveryPolicy, logger: Logger): Promise<Settlement> {
  const event = JSON.parse(entry.json) as { id: string, type: string }
  const handlers = handlersOf(event.type)
  try {
    // One span per delivery (a no-op without an OpenTelemetry SDK).
    await traceEventDispatch(event.type, event.id, async () => {
      for (const [handler, subscribed] of handlers) {
        const running = callHandler(handler, subscribed, event, policy.handlerTimeoutMs)
        if (running !== undefined) await running
      }
    })
    return { outcome: 'delivered' }
  } catch (error) {
    const attempts = entry.attempts + 1
    const message = error instanceof Error ? error.message : String(error)
    // The event's type and id only: its payment and amounts stay out of the logs.
    const where = {
      paywire: { event: { id: event.id, type: event.type }, attempts, ...(error instanceof HandlerTimeout ? { handler: error.handler, timeoutMs: error.timeoutMs } : {}) }
    }
    if (attempts >= policy.maxAttempts) {
      logger.error({ ...where, err: error }, 'paywire: an event handler failed every attempt; the event is parked as dead')
      return { outcome: 'dead', error: message }
    }
    const delay = Math.min(policy.retryBaseMs * 2 ** (attempts - 1), policy.retryMaxMs)
    if (error instanceof HandlerTimeout) {
      logger.warn(where, `paywire: event handler ${error.handler} did not finish ${event.type} ${event.id} within ${error.timeoutMs} ms; the attempt counts as failed and the event is delivered again later`)
    } else {
      logger.warn({ ...where, err: error }, 'paywire: an event handler failed; the event is delivered again later')
    }
    return { outcome: 'retry', dueAt: Date.now() + delay, error: message }
  }
}
