import type { OutboxRecord } from './payment-events.ts'

/** An event waiting in the outbox, with its delivery history. */
export interface OutboxEntry {
  id: string
  partition: string
  type: string
  json: string
  /** Failed deliveries so far. */
  attempts: number
  /** When it may be tried next (ms since the epoch). */
  dueAt: number
  /** The last handler failure's message (dead events keep it). */
  lastError?: string
}

/** One dispatcher's hold on a partition (a payment's events), like a claim: it expires unless settled in time. */
export interface OutboxLease {
  partition: string
  id: string
}

export type Settlement =
  | { outcome: 'delivered' }
  | { outcome: 'retry', dueAt: number, error: string }
  | { outcome: 'dead', error: string }

/** A leased partition and its first waiting events, head first (see Outbox.leaseBatch). */
export interface OutboxBatch {
  lease: OutboxLease
  entries: OutboxEntry[]
}

/** What Outbox.leaseDue found in one step. */
export interface DueBatches {
  /** The partitions it leased, each with its first waiting events (head first, whether due or not). */
  batches: OutboxBatch[]
  /** The due index held more than it read: the dispatcher asks again. */
  more: boolean
}

export interface LeaseDueOptions {
  /** How many due partitions to read from the due index, oldest first. */
  scan: number
  /** How many partitions to lease at most (the dispatcher's free workers). */
  limit: number
  /** Partitions to try whether the due index names them or not (the dispatcher's own commits). */
  include: readonly string[]
  ttlMs: number
  /** How many of each partition's events to read. */
  batch: number
}

/** What became of one event of a batch. */
export interface SettledEntry {
  entry: OutboxEntry
  settlement: Settlement
}

/**
 * Where committed events wait until delivered: the transactional outbox. Backends append
 * to it inside their commit (see CommitSet.events); the dispatcher leases a partition (one
 * payment's events, in commit order), delivers its head, and settles it. A lease expires on
 * its own, so events a crashed instance held are delivered by another one.
 *
 * An outbox with leaseBatch() and settleBatch() is delivered in batches: the lease and the
 * partition's first events in one step, the handlers in order, then every outcome and the
 * release in one step (one script or statement each, however many events). The per-event
 * methods stay for outboxes without them and for tools.
 */
export interface Outbox {
  /** Stores events outside a commit (money.unmatched: no payment changed). */
  append (records: readonly OutboxRecord[]): Promise<void>
  /** Partitions with an event due at `now`, oldest first, at most `limit`. */
  due (now: number, limit: number): Promise<string[]>
  /** The earliest time an event is due (ms), or null when nothing waits (dead events aside). */
  nextDueAt (): Promise<number | null>
  /** Takes the partition for `ttlMs`, or null when another dispatcher holds it. */
  lease (partition: string, ttlMs: number): Promise<OutboxLease | null>
  /**
   * Extends a lease its dispatcher still holds to `ttlMs` from now (the dispatcher does it
   * every third of the lease while handlers run); false once it lapsed or another holds it.
   * Optional, so an outbox written before it existed keeps working: without it, a batch whose
   * handlers outlast the lease can be delivered again by another instance (at least once).
   */
  renew? (lease: OutboxLease, ttlMs: number): Promise<boolean>
  /** The partition's oldest waiting event (its order is the commit order), or null. */
  head (lease: OutboxLease): Promise<OutboxEntry | null>
  /** Records what became of the head event; false when the lease was lost (nothing changed). */
  settle (lease: OutboxLease, entry: OutboxEntry, settlement: Settlement): Promise<boolean>
  release (lease: OutboxLease): Promise<void>
  /**
   * Takes the partition for `ttlMs` and reads its first `limit` waiting events (head first,
   * whether due or not), in one step; null when another dispatcher holds it.
   */
  leaseBatch? (partition: string, ttlMs: number, limit: number): Promise<OutboxBatch | null>
  /**
   * Records what became of the batch's first events, in order (only a last one may be a
   * retry: it stays the head), and releases the lease, in one step; false when the lease was
   * lost (nothing changed). With no events, it only releases.
   */
  settleBatch? (lease: OutboxLease, settled: readonly SettledEntry[]): Promise<boolean>
  /**
   * A whole dispatcher pass in one step, instead of due() then leaseBatch() per partition:
   * reads the partitions due at `now`, adds `include`, takes the lease of each one nobody
   * holds (at most `limit`, oldest due first) and reads its first events, as leaseBatch does.
   * Only for an outbox whose due index is written by the commit itself (a single Redis,
   * PostgreSQL): where a mark can be lost (a Redis Cluster), the dispatcher's per-partition
   * path keeps delivering what its own commits named.
   */
  leaseDue? (now: number, options: LeaseDueOptions): Promise<DueBatches>
  /** Events that failed every attempt, newest first (at most DEAD_EVENTS_KEPT are kept). */
  dead (limit?: number): Promise<OutboxEntry[]>
  /** How many dead events are kept, without reading them (health reports). Optional: dead() is counted without it. */
  deadCount? (): Promise<number>
  /**
   * Finds events whose due mark was lost (a store whose due index cannot be written in the
   * commit itself: a Redis Cluster). Called when delivery starts and every recoverIntervalMs.
   */
  recover? (): Promise<void>
}

/** How many dead events an outbox keeps (the oldest go first). */
export const DEAD_EVENTS_KEPT = 1000
