/**
 * Records one request read beside something it had to read anyway, in the same round trip
 * (a token's payment, read by the script that finds the token and takes its claim), so that
 * the storage keeping a record takes its copy here instead of reading it again.
 *
 * An entry names where it was read (`source`: a Redis client, a pool) and the store's own key
 * for it, so only a storage that would read that very key through that very connection finds
 * it: tokens in one store and payments in another never meet here. Each entry is taken once,
 * so a request that runs again (a lost compare-and-set) reads afresh. A storage that finds no
 * entry reads as it always does; backends that read nothing ahead simply never prime one.
 */
export class ReadCache {
  readonly #entries = new Map<object, Map<string, unknown>>()

  /** What was stored at `key` when it was read through `source` (null: nothing was). */
  put (source: object, key: string, value: unknown): this {
    let entries = this.#entries.get(source)
    if (entries === undefined) this.#entries.set(source, entries = new Map())
    entries.set(key, value)
    return this
  }

  /** The value read at `key` through `source`, removed from the cache; undefined when none was read ahead. */
  take (source: object, key: string): { value: unknown } | undefined {
    const entries = this.#entries.get(source)
    if (entries === undefined || !entries.has(key)) return undefined
    const value = entries.get(key)
    entries.delete(key)
    return { value }
  }

  /** How many entries are still to be taken. */
  get size (): number {
    let size = 0
    for (const entries of this.#entries.values()) size += entries.size
    return size
  }
}
