import type { AttentionRead, PaymentFacets, PaymentPage } from './payment-search.ts'
import { isDue, matchesQuery, newerThan, pageOf, type NormalizedQuery, type SearchCursor } from './payment-query.ts'

/** Sorted by `key` ascending, then id: binary search finds positions, so no search walks every payment. */
class SortedList<K extends string> {
  readonly #entries: Array<{ key: K, id: string }> = []
  readonly #keyOf: (facets: PaymentFacets) => K | undefined

  constructor (keyOf: (facets: PaymentFacets) => K | undefined) {
    this.#keyOf = keyOf
  }

  get entries (): ReadonlyArray<{ key: K, id: string }> {
    return this.#entries
  }

  /** The position of the first entry at or after (key, id). */
  position (key: string, id: string): number {
    let low = 0
    let high = this.#entries.length
    while (low < high) {
      const middle = (low + high) >>> 1
      const entry = this.#entries[middle] as { key: K, id: string }
      if (entry.key < key || (entry.key === key && entry.id < id)) low = middle + 1
      else high = middle
    }
    return low
  }

  add (facets: PaymentFacets): void {
    const key = this.#keyOf(facets)
    if (key !== undefined) this.#entries.splice(this.position(key, facets.id), 0, { key, id: facets.id })
  }

  remove (facets: PaymentFacets): void {
    const key = this.#keyOf(facets)
    if (key === undefined) return
    const at = this.position(key, facets.id)
    if (this.#entries[at]?.id === facets.id) this.#entries.splice(at, 1)
  }
}

/** Ids by one value of a facet (a status, a gateway, a provider id…). */
class ValueIndex {
  readonly #sets = new Map<string, Set<string>>()

  get (value: string): ReadonlySet<string> {
    return this.#sets.get(value) ?? new Set()
  }

  add (values: readonly string[], id: string): void {
    for (const value of values) {
      let set = this.#sets.get(value)
      if (set === undefined) this.#sets.set(value, set = new Set())
      set.add(id)
    }
  }

  remove (values: readonly string[], id: string): void {
    for (const value of values) {
      const set = this.#sets.get(value)
      set?.delete(id)
      if (set?.size === 0) this.#sets.delete(value)
    }
  }
}

/**
 * The memory storage's PaymentSearch: facets by id, the payments newest first, ids by
 * status, gateway, currency and provider id, and the payments that will need attention by
 * when. A search reads the smallest candidate set its filters give (or walks the newest-first
 * list from its cursor), checks each candidate's facets and stops at a full page.
 */
export class MemoryPaymentIndex {
  readonly #facets = new Map<string, PaymentFacets>()
  readonly #created = new SortedList((facets) => facets.createdAt)
  readonly #attention = new SortedList((facets) => facets.attentionAt)
  readonly #status = new ValueIndex()
  readonly #gateway = new ValueIndex()
  readonly #currency = new ValueIndex()
  readonly #provider = new ValueIndex()

  put (facets: PaymentFacets): void {
    this.delete(facets.id)
    const copy = { ...facets, providerIds: [...facets.providerIds] }
    this.#facets.set(facets.id, copy)
    this.#created.add(copy)
    this.#attention.add(copy)
    this.#status.add([copy.status], copy.id)
    this.#gateway.add([copy.gatewayName], copy.id)
    this.#currency.add([copy.currencyCode], copy.id)
    this.#provider.add(copy.providerIds, copy.id)
  }

  delete (id: string): void {
    const old = this.#facets.get(id)
    if (old === undefined) return
    this.#facets.delete(id)
    this.#created.remove(old)
    this.#attention.remove(old)
    this.#status.remove([old.status], id)
    this.#gateway.remove([old.gatewayName], id)
    this.#currency.remove([old.currencyCode], id)
    this.#provider.remove(old.providerIds, id)
  }

  /** The candidate sets the query's filters give, each a superset of its answer. */
  #candidates (query: NormalizedQuery): Array<ReadonlySet<string> | string[]> {
    const sets: Array<ReadonlySet<string> | string[]> = []
    if (query.statuses !== undefined) sets.push([...query.statuses].flatMap((status) => [...this.#status.get(status)]))
    if (query.gatewayName !== undefined) sets.push(this.#gateway.get(query.gatewayName))
    if (query.currencyCode !== undefined) sets.push(this.#currency.get(query.currencyCode))
    if (query.providerId !== undefined) sets.push(this.#provider.get(query.providerId))
    if (query.needsAttention === true) {
      const due = this.#attention.position(query.now, '\uffff')
      sets.push(this.#attention.entries.slice(0, due).map((entry) => entry.id))
    }
    return sets
  }

  search (query: NormalizedQuery): PaymentPage {
    const wanted = query.first + 1
    const sets = this.#candidates(query)
    const matches: PaymentFacets[] = []
    if (sets.length === 0) {
      // Newest first from the cursor: the list is oldest first, so walk it backwards.
      const after: SearchCursor | undefined = query.after
      let at = (after === undefined ? this.#created.entries.length : this.#created.position(after.createdAt, after.id)) - 1
      for (; at >= 0 && matches.length < wanted; at--) {
        const facets = this.#facets.get((this.#created.entries[at] as { id: string }).id) as PaymentFacets
        if (matchesQuery(facets, query)) matches.push(facets)
      }
      return pageOf(matches, query.first)
    }
    const smallest = sets.reduce((a, b) => (sizeOf(b) < sizeOf(a) ? b : a))
    for (const id of smallest) {
      const facets = this.#facets.get(id) as PaymentFacets
      if (matchesQuery(facets, query)) matches.push(facets)
    }
    matches.sort((a, b) => newerThan(a, b) ? -1 : 1)
    return pageOf(matches.slice(0, wanted), query.first)
  }

  /** PaymentSearch.deferAttention, `until` checked. */
  defer (id: string, until: string, read: AttentionRead): boolean {
    const facets = this.#facets.get(id)
    if (facets?.attentionAt === undefined || facets.attentionAt !== read.attentionAt || facets.updatedAt !== read.updatedAt) return false
    this.put({ ...facets, attentionAt: until, attentionDeferrals: (facets.attentionDeferrals ?? 0) + 1 })
    return true
  }

  attentionDue (now: string, limit: number): PaymentFacets[] {
    const due: PaymentFacets[] = []
    for (const entry of this.#attention.entries) {
      if (due.length >= limit) break
      const facets = this.#facets.get(entry.id) as PaymentFacets
      if (!isDue(facets, now)) break
      due.push(structuredClone(facets))
    }
    return due
  }
}

function sizeOf (set: ReadonlySet<string> | string[]): number {
  return Array.isArray(set) ? set.length : set.size
}
