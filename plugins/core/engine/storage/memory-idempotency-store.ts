import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import type { IdempotencyRecord, IdempotencyStore } from './idempotency-store.ts'

interface Entry {
  json: string
  expiresAt: number
}

export interface MemoryIdempotencyStoreOptions {
  /** The clock (ms); tests move it. Default Date.now. */
  now?: () => number
  /** At most this many keys are kept; past it, the oldest go first. Default 10000. */
  maxEntries?: number
}

export const DEFAULT_MAX_IDEMPOTENCY_ENTRIES = 10_000

/**
 * The embedded default: one process, records as JSON copies, expired entries swept as time
 * passes, and never more than maxEntries of them, however many keys clients send.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>()
  readonly #now: () => number
  readonly #maxEntries: number
  #nextSweep = 0

  constructor (options: MemoryIdempotencyStoreOptions = {}) {
    this.#now = options.now ?? Date.now
    this.#maxEntries = options.maxEntries ?? DEFAULT_MAX_IDEMPOTENCY_ENTRIES
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1) {
      throw new PAYWIRE_ERR_INVALID_OPTION('maxEntries', 'must be a whole number above 0')
    }
  }

  get size (): number {
    return this.#entries.size
  }

  async claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null> {
    this.#sweep()
    const existing = this.#live(key)
    if (existing !== undefined) return JSON.parse(existing.json)
    this.#makeRoom()
    this.#entries.set(key, { json: JSON.stringify(record), expiresAt: this.#now() + lockMs })
    return null
  }

  async complete (key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    if (this.#ownedBy(key, record.owner)) this.#entries.set(key, { json: JSON.stringify(record), expiresAt: this.#now() + ttlMs })
  }

  async release (key: string, owner: string): Promise<void> {
    if (this.#ownedBy(key, owner)) this.#entries.delete(key)
  }

  #live (key: string): Entry | undefined {
    const entry = this.#entries.get(key)
    return entry !== undefined && entry.expiresAt > this.#now() ? entry : undefined
  }

  #ownedBy (key: string, owner: string): boolean {
    const entry = this.#live(key)
    return entry !== undefined && (JSON.parse(entry.json) as IdempotencyRecord).owner === owner
  }

  /** Full: the oldest entries go (Maps iterate in insertion order), in O(1) per claim. */
  #makeRoom (): void {
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#maxEntries) break
      this.#entries.delete(key)
    }
  }

  /** At most once a minute, so claims stay O(1) on average however many keys there are. */
  #sweep (): void {
    const now = this.#now()
    if (now < this.#nextSweep) return
    this.#nextSweep = now + 60_000
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#entries.delete(key)
    }
  }
}
