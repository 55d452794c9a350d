import { ANY_VERSION, AbstractStorage, matchesCriteria, type StagedWrite, type StoredRecord } from './abstract-storage.ts'
import type { Criteria, FindByOptions } from './storage.ts'
import { MemoryPaymentIndex } from './memory-payment-index.ts'
import type { AttentionRead, PaymentFacets, PaymentPage, PaymentQuery, PaymentSearch } from './payment-search.ts'
import { checkDefer, checkDue, normalizeQuery } from './payment-query.ts'

interface Entry {
  json: string
  version: number
}

/**
 * The embedded default: keeps serialized records in memory, so it behaves like a real
 * storage (find() returns copies; unsaved changes are not visible; writes are
 * compare-and-set) without any service. Nothing survives a restart. Payments' facets are
 * indexed in the same tick as their record (PaymentSearch).
 */
export class MemoryStorage<T extends object> extends AbstractStorage<T> implements PaymentSearch {
  #records = new Map<string, Entry>()
  readonly #search = new MemoryPaymentIndex()

  /** True when the write's expected version is the stored one. Synchronous, for atomic commits. */
  accepts (write: StagedWrite): boolean {
    if (write.expectedVersion === ANY_VERSION) return true
    return (this.#records.get(write.id)?.version ?? 0) === write.expectedVersion
  }

  /** Applies a write that accepts() approved, in the same tick. */
  apply (write: StagedWrite): void {
    if (write.json === null) {
      this.#records.delete(write.id)
      this.#search.delete(write.id)
      return
    }
    this.#records.set(write.id, { json: write.json, version: Math.max(write.expectedVersion, 0) + 1 })
    if (write.facets !== undefined) this.#search.put(write.facets)
  }

  async searchPayments (query: PaymentQuery): Promise<PaymentPage> {
    return this.#search.search(normalizeQuery(query))
  }

  async attentionDue (now: Date, limit: number): Promise<PaymentFacets[]> {
    return this.#search.attentionDue(checkDue(now, limit), limit)
  }

  async deferAttention (id: string, until: string, read: AttentionRead): Promise<boolean> {
    return this.#search.defer(id, checkDefer(until), read)
  }

  /** Kept only while the record is still at `version` (a later write stored its own facets; a deleted one needs none). */
  async indexPayment (id: string, version: number, facets: PaymentFacets): Promise<void> {
    if (this.#records.get(id)?.version === version) this.#search.put(facets)
  }

  protected async doWrite (write: StagedWrite): Promise<void> {
    if (!this.accepts(write)) throw this.conflict(write.id)
    this.apply(write)
  }

  protected async doFind (id: string): Promise<StoredRecord | null> {
    const entry = this.#records.get(id)
    return entry === undefined ? null : { record: JSON.parse(entry.json), version: entry.version, json: entry.json }
  }

  protected async doFindBy (criteria: Criteria, options: FindByOptions): Promise<StoredRecord[]> {
    const offset = options.offset ?? 0
    const limit = options.limit ?? Infinity
    const matches: StoredRecord[] = []
    let skipped = 0
    for (const entry of this.#records.values()) {
      if (matches.length >= limit) break
      const record = JSON.parse(entry.json) as Record<string, unknown>
      if (!matchesCriteria(record, criteria)) continue
      if (skipped++ < offset) continue
      matches.push({ record, version: entry.version })
    }
    return matches
  }
}
