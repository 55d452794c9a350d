import type { Logger } from './logger.ts'

/**
 * A provider told Paywire about money (a webhook) for a payment it does not know: a lost
 * record, or another shop on the same provider account. The shop must look into it.
 */
export interface UnmatchedNotification {
  gateway: string
  provider: string
  /** The provider's event id and type, when it has them. */
  eventId?: string
  eventType?: string
  /** The provider's ids of what the notification is about (payment, sale, capture...). */
  resourceIds: Record<string, string>
  /** What the provider said moved, in its own format, if anything. */
  amount?: { value: string, currency: string }
}

export interface PaywireEventMap {
  'money.unmatched': UnmatchedNotification
}

export type PaywireEventType = keyof PaywireEventMap
type Handler<K extends PaywireEventType> = (event: PaywireEventMap[K]) => void | Promise<void>

/**
 * Where gateways report what the application must hear about, and applications subscribe
 * (`paywire.on('money.unmatched', handler)`). Handlers run after the emitter's work; one
 * that throws is logged and never fails the request that emitted. Also the service id
 * gateway containers find it under.
 */
export class PaywireEvents {
  readonly #handlers = new Map<PaywireEventType, Set<Handler<any>>>()
  readonly #logger: Logger

  constructor (logger: Logger) {
    this.#logger = logger
  }

  on<K extends PaywireEventType> (type: K, handler: Handler<K>): () => void {
    let handlers = this.#handlers.get(type)
    if (handlers === undefined) this.#handlers.set(type, handlers = new Set())
    handlers.add(handler)
    return () => { handlers.delete(handler) }
  }

  async emit<K extends PaywireEventType> (type: K, event: PaywireEventMap[K]): Promise<void> {
    for (const handler of this.#handlers.get(type) ?? []) {
      try {
        await handler(event)
      } catch (error) {
        this.#logger.error({ err: error, paywire: { event: type } }, 'paywire: an event handler failed')
      }
    }
  }
}
