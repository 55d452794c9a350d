import { generateLockId as newLeaseId } from '../random.ts'
import { DEAD_EVENTS_KEPT, type Outbox, type OutboxBatch, type OutboxEntry, type OutboxLease, type SettledEntry, type Settlement } from './outbox.ts'
import type { OutboxRecord } from './payment-events.ts'

/**
 * The outbox of the in-memory backend: appended to in the same tick as the commit's
 * writes. Nothing survives the process, like the records it sits beside.
 */
export class MemoryOutbox implements Outbox {
  readonly #partitions = new Map<string, OutboxEntry[]>()
  readonly #leases = new Map<string, { id: string, expiresAt: number }>()
  #dead: OutboxEntry[] = []
  readonly #now: () => number

  constructor (now: () => number = Date.now) {
    this.#now = now
  }

  /** Synchronous, so a memory commit stays one tick. */
  appendNow (records: readonly OutboxRecord[]): void {
    const now = this.#now()
    for (const record of records) {
      let entries = this.#partitions.get(record.partition)
      if (entries === undefined) this.#partitions.set(record.partition, entries = [])
      entries.push({ ...record, attempts: 0, dueAt: now })
    }
  }

  async append (records: readonly OutboxRecord[]): Promise<void> {
    this.appendNow(records)
  }

  async due (now: number, limit: number): Promise<string[]> {
    const due: Array<[string, number]> = []
    for (const [partition, entries] of this.#partitions) {
      const head = entries[0] as OutboxEntry
      if (head.dueAt <= now) due.push([partition, head.dueAt])
    }
    return due.sort((a, b) => a[1] - b[1]).slice(0, limit).map(([partition]) => partition)
  }

  async nextDueAt (): Promise<number | null> {
    let next: number | null = null
    for (const entries of this.#partitions.values()) next = Math.min(next ?? Infinity, (entries[0] as OutboxEntry).dueAt)
    return next
  }

  async lease (partition: string, ttlMs: number): Promise<OutboxLease | null> {
    const held = this.#leases.get(partition)
    if (held !== undefined && held.expiresAt > this.#now()) return null
    const id = newLeaseId()
    this.#leases.set(partition, { id, expiresAt: this.#now() + ttlMs })
    return { partition, id }
  }

  async renew (lease: OutboxLease, ttlMs: number): Promise<boolean> {
    if (!this.#holds(lease)) return false
    this.#leases.set(lease.partition, { id: lease.id, expiresAt: this.#now() + ttlMs })
    return true
  }

  async head (lease: OutboxLease): Promise<OutboxEntry | null> {
    const head = this.#partitions.get(lease.partition)?.[0]
    return head === undefined ? null : { ...head }
  }

  async settle (lease: OutboxLease, entry: OutboxEntry, settlement: Settlement): Promise<boolean> {
    return this.#holds(lease) && this.#settleNow(lease.partition, entry, settlement)
  }

  /** Synchronous: a batch is settled all at once, as one script or statement would. */
  #settleNow (partition: string, entry: OutboxEntry, settlement: Settlement): boolean {
    const entries = this.#partitions.get(partition)
    const head = entries?.[0]
    if (entries === undefined || head?.id !== entry.id) return false
    if (settlement.outcome === 'retry') {
      Object.assign(head, { attempts: head.attempts + 1, dueAt: settlement.dueAt, lastError: settlement.error })
      return true
    }
    entries.shift()
    if (entries.length === 0) this.#partitions.delete(partition)
    if (settlement.outcome === 'dead') {
      this.#dead.unshift({ ...head, attempts: head.attempts + 1, lastError: settlement.error })
      this.#dead = this.#dead.slice(0, DEAD_EVENTS_KEPT)
    }
    return true
  }

  async leaseBatch (partition: string, ttlMs: number, limit: number): Promise<OutboxBatch | null> {
    const lease = await this.lease(partition, ttlMs)
    if (lease === null) return null
    return { lease, entries: (this.#partitions.get(partition) ?? []).slice(0, limit).map((entry) => ({ ...entry })) }
  }

  async settleBatch (lease: OutboxLease, settled: readonly SettledEntry[]): Promise<boolean> {
    if (!this.#holds(lease)) return false
    // The same checks as settle(), one entry after the other; under the lease nothing else moves the head.
    for (const { entry, settlement } of settled) this.#settleNow(lease.partition, entry, settlement)
    this.#leases.delete(lease.partition)
    return true
  }

  async release (lease: OutboxLease): Promise<void> {
    if (this.#holds(lease)) this.#leases.delete(lease.partition)
  }

  async dead (limit = DEAD_EVENTS_KEPT): Promise<OutboxEntry[]> {
    return this.#dead.slice(0, limit).map((entry) => ({ ...entry }))
  }

  async deadCount (): Promise<number> {
    return this.#dead.length
  }

  #holds (lease: OutboxLease): boolean {
    const held = this.#leases.get(lease.partition)
    return held?.id === lease.id && held.expiresAt > this.#now()
  }
}
