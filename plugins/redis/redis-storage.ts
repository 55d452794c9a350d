import type { Redis } from 'ioredis'
import { defineScript, type ScriptCall } from './scripts.ts'
import {
  AbstractStorage, matchesCriteria, type Criteria, type FindByOptions, type ModelClass, type StorageOptions
} from '../core/engine/index.ts'

export interface RedisStorageOptions<T extends object> extends StorageOptions<T> {
  keyPrefix?: string
}

/*
 * Write and delete keep the indexes right in one round trip: the script reads the old
 * record, moves the changed index entries and stores the new record atomically. The list
 * and the index entries are sorted sets scored by a per-model counter taken when a record
 * is first written (not the clock: two writes in one millisecond, or from two hosts whose
 * clocks differ, still list in creation order).
 *   KEYS: record, ids, counter   ARGV: json (or '' to delete), id, index key prefix, fields...
 */
const WRITE_SCRIPT = `
local function at(record, path)
  local value = record
  for part in string.gmatch(path, '[^.]+') do
    if type(value) ~= 'table' then return nil end
    -- JSON arrays decode to Lua lists, so "items.0" (as JavaScript reads it) is items[1].
    local position = tonumber(part)
    if value[part] == nil and position then value = value[position + 1] else value = value[part] end
  end
  if type(value) == 'string' and value ~= '' then return value end
  return nil
end
-- Index entries are added even when unchanged: a field indexed later fills in as records are saved.
local old = redis.call('GET', KEYS[1])
local before = old and cjson.decode(old) or {}
local after = ARGV[1] ~= '' and cjson.decode(ARGV[1]) or {}
local score = redis.call('ZSCORE', KEYS[2], ARGV[2])
local listed = score
if not score and ARGV[1] ~= '' then score = redis.call('INCR', KEYS[3]) end
for i = 4, #ARGV do
  local was, now = at(before, ARGV[i]), at(after, ARGV[i])
  if was and was ~= now then redis.call('ZREM', ARGV[3] .. ARGV[i] .. ':' .. was, ARGV[2]) end
  if now then redis.call('ZADD', ARGV[3] .. ARGV[i] .. ':' .. now, score, ARGV[2]) end
end
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1])
  if not listed then redis.call('ZADD', KEYS[2], score, ARGV[2]) end
end
return 1`

/** How many records findBy() fetches per round trip when it has to filter. */
const SCAN_PAGE = 200

/**
 * Models in Redis as JSON strings, with generated ids, indexes on chosen fields and a
 * creation-ordered list for findBy() pagination. Criteria on indexed string fields are
 * answered from the index; any other criteria filter the records page by page.
 */
export class RedisStorage<T extends object> extends AbstractStorage<T> {
  readonly client: Redis
  readonly #indexes: string[]
  readonly #recordPrefix: string
  readonly #idsKey: string
  readonly #counterKey: string
  readonly #indexPrefix: string
  readonly #writeRecord: ScriptCall<number>

  constructor (client: Redis, Model: ModelClass<T>, options: RedisStorageOptions<T> = {}) {
    super(Model, options)
    this.client = client
    this.#indexes = options.indexes ?? []
    const prefix = options.keyPrefix ?? 'paywire:'
    this.#recordPrefix = `${prefix}model:${this.modelName}:`
    this.#idsKey = `${prefix}ids:${this.modelName}`
    this.#counterKey = `${prefix}counter:${this.modelName}`
    this.#indexPrefix = `${prefix}index:${this.modelName}:`
    this.#writeRecord = defineScript(client, 'paywireWriteRecord', 3, WRITE_SCRIPT)
  }

  protected async doUpdate (id: string, record: Record<string, unknown>): Promise<void> {
    await this.#write(id, JSON.stringify(record))
  }

  protected async doDelete (id: string): Promise<void> {
    await this.#write(id, '')
  }

  protected async doFind (id: string): Promise<Record<string, unknown> | null> {
    const json = await this.client.get(this.#recordPrefix + id)
    return json === null ? null : JSON.parse(json)
  }

  protected override async doFindMany (ids: readonly string[]): Promise<Array<Record<string, unknown> | null>> {
    if (ids.length === 0) return []
    const jsons = await this.client.mget(ids.map((id) => this.#recordPrefix + id))
    return jsons.map((json) => json === null ? null : JSON.parse(json))
  }

  protected async doFindBy (criteria: Criteria, options: FindByOptions): Promise<Record<string, unknown>[]> {
    const offset = options.offset ?? 0
    const limit = options.limit ?? Infinity
    if (limit <= 0) return []
    const indexed = this.#indexes.find((field) => typeof criteria[field] === 'string' && criteria[field] !== '')
    const source = indexed === undefined ? this.#idsKey : `${this.#indexPrefix}${indexed}:${criteria[indexed] as string}`
    const remaining = Object.keys(criteria).filter((key) => key !== indexed)

    if (remaining.length === 0) {
      const ids = await this.client.zrange(source, String(offset), String(limit === Infinity ? -1 : offset + limit - 1))
      return await this.#load(ids)
    }
    const matches: Record<string, unknown>[] = []
    let skipped = 0
    for (let start = 0; matches.length < limit; start += SCAN_PAGE) {
      const ids = await this.client.zrange(source, String(start), String(start + SCAN_PAGE - 1))
      for (const record of await this.#load(ids)) {
        if (!matchesCriteria(record, criteria) || skipped++ < offset) continue
        matches.push(record)
        if (matches.length >= limit) break
      }
      if (ids.length < SCAN_PAGE) break
    }
    return matches
  }

  async #load (ids: string[]): Promise<Record<string, unknown>[]> {
    // Writes are atomic, but a record removed by hand (or by eviction) leaves its id behind.
    return (await this.doFindMany(ids)).filter((record) => record !== null)
  }

  async #write (id: string, json: string): Promise<void> {
    await this.#writeRecord(this.#recordPrefix + id, this.#idsKey, this.#counterKey, json, id, this.#indexPrefix, ...this.#indexes)
  }
}
