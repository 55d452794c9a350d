import {
  AbstractStorage, checkDefer, checkDue, matchesCriteria, normalizeQuery, type Criteria, type FindByOptions, type ModelClass, type AttentionRead, type PaymentFacets, type PaymentPage,
  type PaymentQuery, type PaymentSearch, type ReadCache, type StagedWrite, type StorageOptions, type StoredRecord, hideConnection
} from '../core/engine/index.ts'
import { counterKey, decodeRecord, guarded, idsKey, indexPrefix, recordKey, type RedisClient } from './keys.ts'
import { commitOnRedis } from './redis-commit.ts'
import { RedisPaymentSearch } from './redis-search.ts'

export interface RedisStorageOptions<T extends object> extends StorageOptions<T> {
  keyPrefix?: string
}

/** How many records findBy() reads per round trip, at most. */
const SCAN_PAGE = 200

/**
 * Models in Redis as "<version> <json>" strings, with generated ids, indexes on chosen
 * fields and a creation-ordered list for findBy() pagination. Every write is a
 * compare-and-set on the version, done by the same script as the atomic commit (see
 * commit-script.ts); the list and the indexes follow in a second, idempotent step (see
 * redis-commit.ts). findBy() reads ids from an index (or the list) and checks every record
 * against the criteria, so an index entry that is stale for a moment never answers a
 * record that does not match. Payments' facets are indexed for PaymentSearch (redis-search.ts).
 */
export class RedisStorage<T extends object> extends AbstractStorage<T> implements PaymentSearch {
  readonly client: RedisClient
  readonly keyPrefix: string
  readonly indexes: readonly string[]
  readonly idsKey: string
  readonly counterKey: string
  readonly indexPrefix: string
  readonly search: RedisPaymentSearch

  constructor (client: RedisClient, Model: ModelClass<T>, options: RedisStorageOptions<T> = {}) {
    super(Model, options)
    this.client = client
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'client')
    this.indexes = options.indexes ?? []
    this.keyPrefix = options.keyPrefix ?? 'paywire:'
    this.idsKey = idsKey(this.keyPrefix, this.modelName)
    this.counterKey = counterKey(this.keyPrefix, this.modelName)
    this.indexPrefix = indexPrefix(this.keyPrefix, this.modelName)
    this.search = new RedisPaymentSearch(client, this.keyPrefix, this.modelName)
  }

  async searchPayments (query: PaymentQuery): Promise<PaymentPage> {
    return await this.search.search(normalizeQuery(query))
  }

  async attentionDue (now: Date, limit: number): Promise<PaymentFacets[]> {
    return await this.search.attentionDue(checkDue(now, limit), limit)
  }

  async deferAttention (id: string, until: string, read: AttentionRead): Promise<boolean> {
    return await this.search.defer(id, checkDefer(until), read)
  }

  async indexPayment (id: string, version: number, facets: PaymentFacets): Promise<void> {
    await this.search.put(id, { ...facets, v: version })
  }

  recordKey (id: string): string {
    return recordKey(this.keyPrefix, this.modelName, id)
  }

  indexKey (field: string, value: string): string {
    return `${this.indexPrefix}${field}:${value}`
  }

  protected async doWrite (write: StagedWrite): Promise<void> {
    await commitOnRedis(this.client, { writes: [write], invalidateTokens: [], tombstoneTtlMs: 0, releaseClaim: false, tokenKeyOf: () => '' })
  }

  protected async doFind (id: string, reads?: ReadCache): Promise<StoredRecord | null> {
    const key = this.recordKey(id)
    // Read with the token by the same client (RedisTokenStorage): the same key, already read.
    const ahead = reads?.take(this.client, key)
    if (ahead !== undefined) return parse(ahead.value as string | null)
    return parse(await guarded(this.client.get(key)))
  }

  protected override async doFindMany (ids: readonly string[]): Promise<Array<StoredRecord | null>> {
    if (ids.length === 0) return []
    // Records of different payments sit in different slots of a Cluster: one GET each,
    // pipelined per node (auto-pipelining), instead of a cross-slot MGET.
    if (this.client.isCluster) return await Promise.all(ids.map((id) => this.doFind(id)))
    const stored = await guarded(this.client.mget(ids.map((id) => this.recordKey(id))))
    return stored.map(parse)
  }

  protected async doFindBy (criteria: Criteria, options: FindByOptions): Promise<StoredRecord[]> {
    const offset = options.offset ?? 0
    const limit = options.limit ?? Infinity
    if (limit <= 0) return []
    const indexed = this.indexes.find((field) => typeof criteria[field] === 'string' && criteria[field] !== '')
    const source = indexed === undefined ? this.idsKey : this.indexKey(indexed, criteria[indexed] as string)
    // A window as large as the answer needs; records that do not match (stale entries, other criteria) make it read on.
    const page = Math.max(1, Math.min(SCAN_PAGE, offset + limit))
    const matches: StoredRecord[] = []
    let skipped = 0
    for (let start = 0; matches.length < limit; start += page) {
      const ids = await guarded(this.client.zrange(source, String(start), String(start + page - 1)))
      for (const stored of await this.#load(ids)) {
        if (!matchesCriteria(stored.record, criteria) || skipped++ < offset) continue
        matches.push(stored)
        if (matches.length >= limit) break
      }
      if (ids.length < page) break
    }
    return matches
  }

  async #load (ids: string[]): Promise<StoredRecord[]> {
    if (ids.length === 0) return []
    // A listed id may have no record: removed by hand or by eviction, or a first write that failed.
    return (await this.doFindMany(ids)).filter((stored) => stored !== null)
  }
}

function parse (stored: string | null): StoredRecord | null {
  if (stored === null) return null
  const { version, json } = decodeRecord(stored)
  return { record: JSON.parse(json), version, json }
}
