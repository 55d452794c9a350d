import { randomUUID } from 'node:crypto'
import type { Logger } from '../observability/logger.ts'
import { eventDeliveryOptions, type EventDeliveryOptions } from './delivery-options.ts'
import { deliverEntry, type SubscribedHandlers } from './handler-call.ts'
import { MemoryOutbox } from './memory-outbox.ts'
import type { DueBatches, Outbox, OutboxBatch, OutboxEntry, OutboxLease, SettledEntry, Settlement } from './outbox.ts'
import { outboxRecord, partitionOf } from './payment-events.ts'
import type { AnyPaywireEvent, PaywireEventMap, PaywireEventType, UnmatchedMoneyEvent, UnmatchedNotification } from './event-map.ts'

export type { AnyPaywireEvent, PaywireEventMap, PaywireEventType, UnmatchedMoneyEvent, UnmatchedNotification }

type Handler<E> = (event: E) => void | Promise<void>

export { eventDeliveryOptions, type EventDeliveryOptions }

/** Partitions (payments) delivered at once; more wait for a free slot. */
const WORKERS = 100
/** A payment's events leased, delivered and settled together (an outbox with batches). */
const BATCH = 50
/**
 * Partitions this process knows have events without trusting the due index: its own
 * commits, and partitions whose delivery failed half-way. Bounded: past it, the due index
 * and the recovery scan still find them.
 */
const PENDING_KEPT = 10_000

/**
 * Payment events, delivered at least once from the transactional outbox. Commits store the
 * events with the change; this dispatcher leases a payment's events (one instance at a
 * time), hands each to its handlers in commit order, retries a throwing or timed-out handler
 * with exponential backoff, and parks an event as dead after maxAttempts. Each payment has
 * a worker of its own, so a handler stuck on one payment holds back only that payment.
 * Woken by local commits (which name their payments, so they are delivered even when the
 * shared due index lost their mark), and polls for what other instances committed or a
 * crash left behind. Also the service id gateway containers find it under (to emit
 * money.unmatched).
 */
export class PaywireEvents {
  readonly #handlers = new Map<string, Set<Handler<any>>>()
  readonly #logger: Logger
  readonly #options: Required<EventDeliveryOptions>
  #outbox: Outbox
  #started = false
  #closed = false
  /** The pass in progress: reads what is due and starts workers, without waiting for them. */
  #running: Promise<void> | undefined
  #again = false
  /** A pass found more due partitions than free workers: a worker that ends starts another pass. */
  #starved = false
  readonly #workers = new Map<string, Promise<void>>()
  /** Partitions a commit named while their worker ran: it may have looked before the commit, so it runs again. */
  readonly #rerun = new Set<string>()
  /** partition → when to try it (ms), see PENDING_KEPT. */
  readonly #pending = new Map<string, number>()
  #poller: NodeJS.Timeout | undefined
  #retryTimer: NodeJS.Timeout | undefined
  #retryAt = Infinity
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
    const record = outboxRecord(event, partitionOf(type, event.id))
    await this.#outbox.append([record])
    this.wake([record.partition])
  }

  /** Started and not closed: delivering what commits store (health reports it). */
  get delivering (): boolean {
    return this.#started && !this.#closed
  }

  /** Starts delivering (the core plugin does it once the application is ready): before that, events wait in the outbox. */
  start (): void {
    if (this.#started || this.#closed) return
    this.#started = true
    this.#poller = setInterval(() => { this.wake() }, this.#options.pollIntervalMs)
    this.#poller.unref()
    if (this.#outbox.recover !== undefined) {
      this.#recover()
      this.#recoverer = setInterval(() => { this.#recover() }, this.#options.recoverIntervalMs)
      this.#recoverer.unref()
    }
    this.wake()
  }

  #recover (): void {
    this.#outbox.recover?.().then(() => { this.wake() }, (error: unknown) => {
      this.#logger.error({ err: error }, 'paywire: searching the event outbox for lost due marks failed; tried again later')
    })
  }

  /**
   * Delivers what is due now; `partitions` are ones a commit of this process just stored
   * events for, tried even if the shared due index never heard of them.
   */
  wake (partitions: Iterable<string> = []): void {
    if (this.#closed) return
    for (const partition of partitions) {
      this.#remember(partition, 0)
      if (this.#workers.has(partition)) this.#rerun.add(partition)
    }
    if (!this.#started) return
    if (this.#running !== undefined) {
      this.#again = true
      return
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined
      this.#notify()
    })
  }

  /** Resolves once the dispatcher has nothing in progress: no pass, no payment's delivery. */
  async idle (): Promise<void> {
    while (this.#running !== undefined || this.#workers.size > 0) await Promise.all([this.#running, ...this.#workers.values()])
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
    if (this.#running === undefined && this.#workers.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.idle(), new Promise<void>((resolve) => { timer = setTimeout(resolve, this.#options.closeTimeoutMs) })])
    clearTimeout(timer)
  }

  #notify (): void {
    for (const resolve of this.#waiters.splice(0)) resolve()
  }

  #remember (partition: string, at: number): void {
    if (this.#pending.size < PENDING_KEPT || this.#pending.has(partition)) this.#pending.set(partition, Math.min(at, this.#pending.get(partition) ?? Infinity))
  }

  /** Starts a worker for each due partition that has none; never waits for a handler. */
  async #loop (): Promise<void> {
    do {
      this.#again = false
      const now = Date.now()
      const partitions = new Set<string>()
      let later = Infinity
      for (const [partition, at] of this.#pending) {
        if (at <= now) partitions.add(partition)
        else later = Math.min(later, at)
      }
      this.#wakeAt(later)
      if (this.#outbox.leaseDue !== undefined && this.#outbox.leaseBatch !== undefined && this.#outbox.settleBatch !== undefined) {
        if (!await this.#leaseDuePass(now, partitions)) return
        continue
      }
      // Before the due index is read: while its node is failing over, reading it can take seconds.
      if (!this.#startWorkers(partitions)) return
      try {
        // Partitions being delivered are still due: asked for on top, then skipped.
        const due = await this.#outbox.due(now, WORKERS + this.#workers.size)
        if (due.length === WORKERS + this.#workers.size) this.#again = true
        if (!this.#startWorkers(due)) return
      } catch (error) {
        this.#logger.error({ err: error }, 'paywire: reading the event outbox failed; the poller tries again')
      }
    } while (this.#again && !this.#closed)
  }

  /**
   * A pass in one step (Outbox.leaseDue): the due partitions and this process's own are leased
   * with their first events, and each gets a worker that starts from its batch. False when
   * the pass should end, as #startWorkers.
   */
  async #leaseDuePass (now: number, partitions: Set<string>): Promise<boolean> {
    const outbox = this.#outbox as Required<Pick<Outbox, 'leaseDue' | 'settleBatch'>> & Outbox
    const free = WORKERS - this.#workers.size
    if (free <= 0) {
      this.#starved = true
      this.#again = false
      return false
    }
    const include = [...partitions].filter((partition) => !this.#workers.has(partition))
    let found: DueBatches
    try {
      found = await outbox.leaseDue(now, { scan: WORKERS + this.#workers.size, limit: free, include, ttlMs: this.#options.leaseMs, batch: BATCH })
    } catch (error) {
      this.#logger.error({ err: error }, 'paywire: reading the event outbox failed; the poller tries again')
      return true
    }
    if (found.more || found.batches.length === free) this.#again = true
    const batches = new Map<string, OutboxBatch>()
    for (const batch of found.batches) {
      // Leased again by this pass after a worker's own lease lapsed: that worker goes on, this lease goes.
      if (this.#workers.has(batch.lease.partition)) outbox.settleBatch(batch.lease, []).catch(() => {})
      else batches.set(batch.lease.partition, batch)
    }
    // Held by another instance: it delivers them, and marks what it leaves due.
    for (const partition of include) if (!batches.has(partition)) this.#pending.delete(partition)
    return this.#startWorkers(batches.keys(), batches)
  }

  /** False when the pass should end: closed, or every worker busy (one that ends starts the next pass). */
  #startWorkers (partitions: Iterable<string>, leased?: ReadonlyMap<string, OutboxBatch>): boolean {
    for (const partition of partitions) {
      if (this.#closed) return false
      if (this.#workers.has(partition)) continue
      if (this.#workers.size >= WORKERS) {
        this.#starved = true
        this.#again = false
        return false
      }
      const worker = this.#deliverPartition(partition, leased?.get(partition)).finally(() => {
        this.#workers.delete(partition)
        if (this.#rerun.delete(partition)) this.#remember(partition, 0)
        if (this.#starved || this.#pending.get(partition) === 0) {
          this.#starved = false
          this.wake()
        }
        this.#notify()
      })
      this.#workers.set(partition, worker)
    }
    return true
  }

  /** A retry due before the next poll gets a timer of its own. */
  #wakeAt (at: number): void {
    if (this.#closed || at >= this.#retryAt || at - Date.now() >= this.#options.pollIntervalMs) return
    clearTimeout(this.#retryTimer)
    this.#retryAt = at
    this.#retryTimer = setTimeout(() => {
      this.#retryAt = Infinity
      this.wake()
    }, Math.max(at - Date.now(), 0))
    this.#retryTimer.unref()
  }

  /**
   * One payment's events, head first, under a lease: the next waits until the one before is
   * delivered or dead. Never rejects: a storage failure leaves the partition to be tried
   * again on the next poll, from this process's own memory if the due index lost it.
   */
  async #deliverPartition (partition: string, leased?: OutboxBatch): Promise<void> {
    let next: number | undefined
    try {
      next = this.#outbox.leaseBatch !== undefined && this.#outbox.settleBatch !== undefined
        ? await this.#deliverBatches(partition, leased)
        : await this.#deliverEach(partition)
    } catch (error) {
      next = Date.now() + this.#options.pollIntervalMs
      this.#logger.error({ err: error, paywire: { partition } }, 'paywire: delivering a payment\'s events failed on the outbox; the poller tries again')
    } finally {
      this.#pending.delete(partition)
      if (next !== undefined) {
        this.#remember(partition, next)
        this.#wakeAt(next)
      }
    }
  }

  /**
   * Batches: the lease and up to BATCH events in one step, each event to its handlers in
   * order, then every outcome and the release in one step. A retry ends the batch (the
   * payment's later events wait behind it); a lost lease changes nothing, so the batch is
   * delivered again by whoever holds it (at least once). Answers when to try again, if ever.
   * `leased`: the first batch, when the pass leased it (Outbox.leaseDue).
   */
  async #deliverBatches (partition: string, leased?: OutboxBatch): Promise<number | undefined> {
    const outbox = this.#outbox as Required<Pick<Outbox, 'leaseBatch' | 'settleBatch'>> & Outbox
    let batch: OutboxBatch | null
    let first = leased
    do {
      batch = first ?? await outbox.leaseBatch(partition, this.#options.leaseMs, BATCH)
      first = undefined
      // Held by another instance: it delivers, and marks what it leaves due.
      if (batch === null) return undefined
      const settled: SettledEntry[] = []
      let next: number | undefined
      const renewal = this.#keep(batch.lease)
      try {
        for (const entry of batch.entries) {
          if (this.#closed) break
          if (entry.dueAt > Date.now()) {
            next = entry.dueAt
            break
          }
          const settlement = await this.#deliver(entry)
          settled.push({ entry, settlement })
          if (settlement.outcome === 'retry') {
            next = settlement.dueAt
            break
          }
        }
      } finally {
        clearInterval(renewal)
      }
      if (!await outbox.settleBatch(batch.lease, settled) || next !== undefined) return next
      // A full batch may have more behind it; fewer is all there was when it was read (a later commit wakes this partition again).
    } while (batch.entries.length === BATCH && !this.#closed)
    return undefined
  }

  /** One event at a time, for an outbox without batches: lease, then per event its head read and its settle, then release. */
  async #deliverEach (partition: string): Promise<number | undefined> {
    const lease = await this.#outbox.lease(partition, this.#options.leaseMs)
    if (lease === null) return undefined
    const renewal = this.#keep(lease)
    try {
      let entry: OutboxEntry | null
      while (!this.#closed && (entry = await this.#outbox.head(lease)) !== null) {
        if (entry.dueAt > Date.now()) return entry.dueAt
        const settlement = await this.#deliver(entry)
        if (!await this.#outbox.settle(lease, entry, settlement)) return undefined
        if (settlement.outcome === 'retry') return settlement.dueAt
      }
      return undefined
    } finally {
      clearInterval(renewal)
      await this.#release(lease)
    }
  }

  /**
   * Renews the lease every third of leaseMs while the payment's handlers run, so a slow batch
   * (each handler within handlerTimeoutMs) keeps it however long it takes, and only a dispatcher
   * that died lets it lapse. A renewal that finds it lost changes nothing here: the settle
   * that follows is refused, and the loop ends.
   */
  #keep (lease: OutboxLease): NodeJS.Timeout | undefined {
    if (this.#outbox.renew === undefined) return undefined
    const renew = this.#outbox.renew.bind(this.#outbox)
    const leaseMs = this.#options.leaseMs
    const timer = setInterval(() => {
      // A failed renewal (the storage down) is tried again at the next tick.
      renew(lease, leaseMs).catch(() => {})
    }, Math.max(1, Math.floor(leaseMs / 3)))
    // Deliveries in flight must not keep a process alive by themselves.
    timer.unref()
    return timer
  }

  async #release (lease: OutboxLease): Promise<void> {
    try {
      await this.#outbox.release(lease)
    } catch {
      // The lease expires on its own.
    }
  }

  async #deliver (entry: OutboxEntry): Promise<Settlement> {
    return await deliverEntry(entry, this.#handlersOf, this.#options, this.#logger)
  }

  readonly #handlersOf = (type: string): SubscribedHandlers =>
    [type, '*'].flatMap((subscribed) => [...this.#handlers.get(subscribed) ?? []].map((handler) => [handler, subscribed] as const))
}
