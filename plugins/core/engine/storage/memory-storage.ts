import { AbstractStorage, matchesCriteria } from './abstract-storage.ts'
import type { Criteria, FindByOptions } from './storage.ts'

/**
 * The embedded default: keeps serialized records in memory, so it behaves like a real
 * storage (find() returns copies; unsaved changes are not visible) without any service.
 */
export class MemoryStorage<T extends object> extends AbstractStorage<T> {
  #records = new Map<string, string>()

  protected async doUpdate (id: string, record: Record<string, unknown>): Promise<void> {
    this.#records.set(id, JSON.stringify(record))
  }

  protected async doDelete (id: string): Promise<void> {
    this.#records.delete(id)
  }

  protected async doFind (id: string): Promise<Record<string, unknown> | null> {
    const json = this.#records.get(id)
    return json === undefined ? null : JSON.parse(json)
  }

  protected async doFindBy (criteria: Criteria, options: FindByOptions): Promise<Record<string, unknown>[]> {
    const offset = options.offset ?? 0
    const limit = options.limit ?? Infinity
    const matches: Record<string, unknown>[] = []
    let skipped = 0
    for (const json of this.#records.values()) {
      if (matches.length >= limit) break
      const record = JSON.parse(json) as Record<string, unknown>
      if (!matchesCriteria(record, criteria)) continue
      if (skipped++ < offset) continue
      matches.push(record)
    }
    return matches
  }
}
