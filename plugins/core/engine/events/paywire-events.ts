import { randomUUID } from 'node:crypto'
import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import type { Logger } from '../observability/logger.ts'
import { traceEventDispatch } from '../observability/telemetry.ts'
import { MemoryOutbox } from './memory-outbox.ts'
import type { Outbox, OutboxEntry, OutboxLease, Settlement } from './outbox.ts'
import { outboxRecord, partitionOf, type PaymentEvent, type PaymentEventType } from './payment-events.ts'

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

/** money.unmatched as delivered: the notification, with the event's id and time. */
export interface UnmatchedMoneyEvent extends UnmatchedNotification {
  id: string
  type: 'money.unmatched'
  occurredAt: string
}

export type PaywireEventMap = { 'money.unmatched': UnmatchedMoneyEvent } & { [K in PaymentEventType]: PaymentEvent & { type: K } }
export type PaywireEventType = keyof PaywireEventMap
export type AnyPaywireEvent = PaywireEventMap[PaywireEventType]
type Handler<E> = (event: E) => void | Promise<void>

export interface EventDeliveryOptions {
  /** Deliveries of one event before it is parked as dead. Default 8. */
  maxAttempts?: number
  /** The first retry's delay (ms); each next one doubles, up to retryMaxMs. Default 1000. */
  retryBaseMs?: number
  /** Default 300000 (5 minutes). */
  retryMaxMs?: number
  /** How often the outbox is read for events other instances committed or a crash left (ms). Default 1000. */
  pollIntervalMs?: number
  /** How long an instance holds a payment's events while delivering them (ms). Default 30000. */
  leaseMs?: number
  /** How long close() waits for handlers in flight (ms). Default 10000. */
  closeTimeoutMs?: number
}

const DEFAULTS: Required<EventDeliveryOptions> = {
  maxAttempts: 8, retryBaseMs: 1000, retryMaxMs: 300_000, pollIntervalMs: 1000, leaseMs: 30_000, closeTimeoutMs: 10_000
}

export function eventDeliveryOptions (options: EventDeliveryOptions = {}): Required<EventDeliveryOptions> {
  const merged = { ...DEFAULTS, ...options }
  for (const [key, value] of Object.entries(merged)) {
    const minimum = key === 'maxAttempts' || key === 'pollIntervalMs' || key === 'leaseMs' ? 1 : 0
    if (!Number.isInteger(value) || value < minimum) throw new PAYWIRE_ERR_INVALID_OPTION(`events.${key}`, `must be a whole number, ${minimum} or more`)
  }
  return merged
}

/** Partitions read per pass. */
const BATCH = 100
/** How often an outbox that may lose due marks (a Redis Cluster) is searched for them. */
const RECOVER_INTERVAL_MS = 300_000

/**
 * Payment events, delivered at least once from the transactional outbox. Commits store the
 * events with the change; this dispatcher leases a payment's events (one instance at a
 * time), hands each to its handlers in commit order, retries a throwing handler with
 * exponential backoff, and parks an event as dead after maxAttempts. Woken by local
 * commits, and polls for what other instances committed or a crash left behind.
 * Also the service id gateway containers find it under (to emit money.unmatched).
 */
export class PaywireEvents {
  readonly #handlers = new Map<string, Set<Handler<any>>>()
  readonly #logger: Logger
  readonly #options: Required<EventDeliveryOptions>
  #outbox: Outbox
  #started = false
  #closed = false
  #running: Promise<void> | undefined
  #again = false
  #poller: NodeJS.Timeout | undefined
  #retryTimer: NodeJS.Timeout | undefined
  #recoverer: NodeJS.Timeout | undefined
  #waiters: Array<() => void> = []

  constructor (logger: Logger, options: EventDeliveryOptions & { outbox?: Outbox } = {}) {
    this.#logger = logger
    const { outbox, ...delivery } = options
    this.#options = eventDeliveryOptions(delivery)
    this.#outbox = outbox ?? new MemoryOutbox()
  }

  get outbox (): Outbox {
    return this.#outbox
  }

  /** Subscribes to one event type, or to every event with '*'; returns the unsubscribe function. */
  on<K extends PaywireEventType> (type: K, handler: Handler<PaywireEventMap[K]>): () => void
  on (type: '*', handler: Handler<AnyPaywireEvent>): () => void
  on (type: string, handler: Handler<any>): () => void {
    let handlers = this.#handlers.get(type)
    if (handlers === undefined) this.#handlers.set(type, handlers = new Set())
    handlers.add(handler)
    return () => { this.off(type as PaywireEventType, handler) }
  }

  /** Every event, whatever its type (the same as on('*', handler)). */
  onAny (handler: Handler<AnyPaywireEvent>): () => void {
    return this.on('*', handler)
  }

  off (type: PaywireEventType | '*', handler: Handler<any>): void {
    this.#handlers.get(type)?.delete(handler)
  }

  /** Reports money no payment owns: stored in the outbox and delivered like payment events. */
  async emit (type: 'money.unmatched', notification: UnmatchedNotification): Promise<void> {
    const event: UnmatchedMoneyEvent = { ...notification, id: randomUUID(), type, occurredAt: new Date().toISOString() }
    await this.#outbox.append([outboxRecord(event, partitionOf(type, event.id))])
    this.wake()
  }

  /** Starts delivering (the core plugin does it once the application is ready): before that, events wait in the outbox. */
  start (): void {
    if (this.#started || this.#closed) return
    this.#started = true
    this.#poller = setInterval(() => { this.wake() }, this.#options.pollIntervalMs)
    this.#poller.unref()
    if (this.#outbox.recover !== undefined) {
      this.#recover()
      this.#recoverer = setInterval(() => { this.#recover() }, RECOVER_INTERVAL_MS)
      this.#recoverer.unref()
    }
    this.wake()
  }

  #recover (): void {
    this.#outbox.recover?.().then(() => { this.wake() }, (error: unknown) => {
      this.#logger.error({ err: error }, 'paywire: searching the event outbox for lost due marks failed; tried again later')
    })
  }

  /** Delivers what is due now (a commit just stored events); a pass in progress runs once more. */
  wake (): void {
    if (!this.#started || this.#closed) return
    if (this.#running !== undefined) {
      this.#again = true
      return
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined
      for (const resolve of this.#waiters.splice(0)) resolve()
    })
  }

  /** Resolves once the dispatcher has nothing in progress. */
  async idle (): Promise<void> {
    while (this.#running !== undefined) await this.#running
  }

  /**
   * Resolves once the outbox holds no event waiting for delivery (dead ones aside),
   * delivering (and waiting out retries) meanwhile; for tests and shutdown scripts.
   */
  async drain (): Promise<void> {
    this.start()
    for (;;) {
      this.wake()
      await this.idle()
      const next = await this.#outbox.nextDueAt()
      if (next === null || this.#closed) return
      // Due later (a retry), or held by another instance: wait for it, or for the next pass.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(next - Date.now(), 5))
        this.#waiters.push(() => { clearTimeout(timer); resolve() })
      })
    }
  }

  /** Events that failed every attempt (newest first): inspect them, fix the handler, re-emit what matters. */
  async dead (limit?: number): Promise<Array<OutboxEntry & { event: AnyPaywireEvent }>> {
    return (await this.#outbox.dead(limit)).map((entry) => ({ ...entry, event: JSON.parse(entry.json) }))
  }

  /** Stops polling and waits (at most closeTimeoutMs) for handlers in flight; what is left is delivered after a restart. */
  async close (): Promise<void> {
    this.#closed = true
    clearInterval(this.#poller)
    clearInterval(this.#recoverer)
    clearTimeout(this.#retryTimer)
    const running = this.#running
    if (running === undefined) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([running, new Promise<void>((resolve) => { timer = setTimeout(resolve, this.#options.closeTimeoutMs) })])
    clearTimeout(timer)
  }

  async #loop (): Promise<void> {
    do {
      this.#again = false
      try {
        const partitions = await this.#outbox.due(Date.now(), BATCH)
        await Promise.all(partitions.map((partition) => this.#deliverPartition(partition)))
        if (partitions.length === BATCH) this.#again = true
        await this.#scheduleRetry()
      } catch (error) {
        this.#logger.error({ err: error }, 'paywire: reading the event outbox failed; the poller tries again')
      }
    } while (this.#again && !this.#closed)
  }

  /** A retry due before the next poll gets a timer of its own. */
  async #scheduleRetry (): Promise<void> {
    const next = await this.#outbox.nextDueAt()
    clearTimeout(this.#retryTimer)
    if (next === null || next - Date.now() >= this.#options.pollIntervalMs) return
    this.#retryTimer = setTimeout(() => { this.wake() }, Math.max(next - Date.now(), 0))
    this.#retryTimer.unref()
  }

  /** One payment's events, head first, under a lease: the next waits until the one before is delivered or dead. */
  async #deliverPartition (partition: string): Promise<void> {
    const lease = await this.#outbox.lease(partition, this.#options.leaseMs)
    if (lease === null) return
    try {
      while (!this.#closed) {
        const entry = await this.#outbox.head(lease)
        if (entry === null || entry.dueAt > Date.now()) return
        const settlement = await this.#deliver(entry)
        if (!await this.#outbox.settle(lease, entry, settlement) || settlement.outcome === 'retry') return
      }
    } finally {
      await this.#release(lease)
    }
  }

  async #release (lease: OutboxLease): Promise<void> {
    try {
      await this.#outbox.release(lease)
    } catch {
      // The lease expires on its own.
    }
  }

  async #deliver (entry: OutboxEntry): Promise<Settlement> {
    const event = JSON.parse(entry.json) as AnyPaywireEvent
    const handlers = [...this.#handlers.get(event.type) ?? [], ...this.#handlers.get('*') ?? []]
    try {
      // One span per delivery (a no-op without an OpenTelemetry SDK).
      await traceEventDispatch(event.type, event.id, async () => {
        for (const handler of handlers) await handler(event)
      })
      return { outcome: 'delivered' }
    } catch (error) {
      const attempts = entry.attempts + 1
      const message = error instanceof Error ? error.message : String(error)
      const where = { paywire: { event: { id: event.id, type: event.type }, attempts } }
      if (attempts >= this.#options.maxAttempts) {
        this.#logger.error({ ...where, err: error }, 'paywire: an event handler failed every attempt; the event is parked as dead')
        return { outcome: 'dead', error: message }
      }
      const delay = Math.min(this.#options.retryBaseMs * 2 ** (attempts - 1), this.#options.retryMaxMs)
      this.#logger.warn({ ...where, err: error }, 'paywire: an event handler failed; the event is delivered again later')
      return { outcome: 'retry', dueAt: Date.now() + delay, error: message }
    }
  }
}
