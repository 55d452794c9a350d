import {
  isDue, type AttentionRead, matchesQuery, pageOf, type NormalizedQuery, type PaymentFacets, type PaymentPage
} from '../core/engine/index.ts'
import { counterKey, guarded, idsKey, type RedisClient } from './keys.ts'
import { defineScript } from './scripts.ts'
import { sendStep, type StepFacets, type StepKeys } from './step-script.ts'

/*
 * PaymentSearch on Redis. Every key lives under the model's own hash tag (`{Payment}`, like
 * its id list and findBy indexes), so one script updates them on a Redis Cluster too:
 *
 *   <p>search:{Payment}:facets            HASH  id → the facets as JSON (with the record's version)
 *   <p>search:{Payment}:created           ZSET  every payment, member "<createdAt>|<id>" (score 0: ordered by member)
 *   <p>search:{Payment}:status:<status>   ZSET  the same members, one set per status
 *   <p>search:{Payment}:gateway:<name>, …:currency:<code>, …:provider:<provider id>   the same
 *   <p>search:{Payment}:attention         ZSET  id scored by attentionAt (ms)
 *
 * ISO times of one length sort as text, so "<createdAt>|<id>" members give the keyset order
 * (createdAt, id) and a cursor is a lexicographic bound (ZRANGE … BYLEX REV). The facets follow
 * the record in the write's second step, with the list and the indexes (step-script.ts,
 * redis-commit.ts): a Cluster keeps the record in its payment's slot and these keys in the
 * model's, which no one script may span. Each set's membership is what the stored facets say
 * (every script changes both together), so a step reads the old facets and moves the member only
 * between the sets that changed.
 */

/**
 * Facets as stored: with the version of the record they were read from (`v`), so an older
 * write's step never replaces a newer one's, and, when a write's step stored them, that version
 * again (`w`): its step put every index entry of that record version (see step-script.ts).
 */
interface StoredFacets extends PaymentFacets {
  v: number
  w?: number
}

/**
 * Defers a payment's attention (PaymentSearch.deferAttention): only while its facets are still
 * the JSON the caller read and checked (the same record version `v`, so a newer write's step is
 * never overwritten), and only the attention entry it has.
 *
 *   KEYS: facets hash, attention set
 *   ARGV: id, facets as read, facets deferred, attention score
 */
const DEFER_SCRIPT = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], 'XX', ARGV[4], ARGV[1])
return 1`

/** Members read per set and round trip, at most. */
const BATCH = 200

export class RedisPaymentSearch {
  readonly #client: RedisClient
  readonly #prefix: string
  /** The model's list and search keys, as a step (step-script.ts) takes them. */
  readonly stepKeys: StepKeys

  constructor (client: RedisClient, keyPrefix: string, modelName: string) {
    this.#client = client
    this.#prefix = `${keyPrefix}search:{${modelName}}:`
    this.stepKeys = {
      ids: idsKey(keyPrefix, modelName), counter: counterKey(keyPrefix, modelName), facets: this.facetsKey, attention: this.attentionKey, searchPrefix: this.#prefix
    }
  }

  get facetsKey (): string {
    return `${this.#prefix}facets`
  }

  get attentionKey (): string {
    return `${this.#prefix}attention`
  }

  get createdKey (): string {
    return `${this.#prefix}created`
  }

  key (facet: 'status' | 'gateway' | 'currency' | 'provider', value: string): string {
    return `${this.#prefix}${facet}:${value}`
  }

  /** The sets a payment's member is in (STEP_SCRIPT derives the old ones' names the same way). */
  #setsOf (facets: PaymentFacets): string[] {
    return [this.createdKey, this.key('status', facets.status), this.key('gateway', facets.gatewayName),
      this.key('currency', facets.currencyCode), ...facets.providerIds.map((id) => this.key('provider', id))]
  }

  /**
   * A write's facets as its step stores them, with the record version; `healed`: the step puts
   * every index entry of that version (a write's step does; reindexing does not).
   */
  stepFacets (facets: PaymentFacets, version: number, healed: boolean): StepFacets {
    const stored: StoredFacets = healed ? { ...facets, v: version, w: version } : { ...facets, v: version }
    return { json: JSON.stringify(stored), member: member(facets), sets: this.#setsOf(facets), ...(facets.attentionAt === undefined ? {} : { attentionAt: facets.attentionAt }) }
  }

  /** Stores a payment's facets (or removes them), unless facets of a newer record version are stored; its list and indexes are left. */
  async put (id: string, next: StoredFacets | undefined, version = next?.v ?? 0): Promise<void> {
    const facets = next === undefined ? null : this.stepFacets(next, version, false)
    await sendStep(this.#client, this.stepKeys, { id, version, adds: [], heals: [], removes: [], list: '', facets })
  }

  /** PaymentSearch.deferAttention, `until` checked: the facets are read and checked here, then swapped only if still the same. */
  async defer (id: string, until: string, read: AttentionRead): Promise<boolean> {
    const json = await guarded(this.#client.hget(this.facetsKey, id))
    if (json === null) return false
    const stored = JSON.parse(json) as StoredFacets
    if (stored.attentionAt === undefined || stored.attentionAt !== read.attentionAt || stored.updatedAt !== read.updatedAt) return false
    const deferred = JSON.stringify({ ...stored, attentionAt: until, attentionDeferrals: (stored.attentionDeferrals ?? 0) + 1 })
    const script = defineScript<number>(this.#client, null, DEFER_SCRIPT)
    return await guarded(script(2, this.facetsKey, this.attentionKey, id, json, deferred, Date.parse(until))) === 1
  }

  async get (id: string): Promise<PaymentFacets | undefined> {
    const read = await guarded(this.#client.hget(this.facetsKey, id))
    return read === null ? undefined : facetsOf(read)
  }

  /** The sets whose union holds every answer: the filter with the fewest members, or every payment. */
  async #source (query: NormalizedQuery): Promise<string[]> {
    const options: string[][] = []
    if (query.statuses !== undefined) options.push([...query.statuses].map((status) => this.key('status', status)))
    if (query.gatewayName !== undefined) options.push([this.key('gateway', query.gatewayName)])
    if (query.currencyCode !== undefined) options.push([this.key('currency', query.currencyCode)])
    if (query.providerId !== undefined) options.push([this.key('provider', query.providerId)])
    if (options.length === 0) return [this.createdKey]
    const sizes = await Promise.all(options.map(async (keys) =>
      (await Promise.all(keys.map((key) => guarded(this.#client.zcard(key))))).reduce((a, b) => a + b, 0)))
    return options[sizes.indexOf(Math.min(...sizes))] as string[]
  }

  async search (query: NormalizedQuery): Promise<PaymentPage> {
    const keys = await this.#source(query)
    const wanted = query.first + 1
    const matches: PaymentFacets[] = []
    let upper = upperBound(query)
    const lower = query.createdFrom === undefined ? '-' : `[${query.createdFrom}|`
    const batch = Math.min(BATCH, Math.max(wanted, 20))
    while (matches.length < wanted && keys.length > 0) {
      const read = await Promise.all(keys.map((key) =>
        guarded(this.#client.zrange(key, upper, lower, 'BYLEX', 'REV', 'LIMIT', 0, batch))))
      // Members below the highest last member of a full batch may still be in that set's next batch: only those above are in order.
      const frontier = read.filter((members) => members.length === batch).map((members) => members.at(-1) as string).sort().at(-1)
      const merged = [...new Set(read.flat())].filter((m) => frontier === undefined || m >= frontier).sort().reverse()
      const stored = merged.length === 0 ? [] : await guarded(this.#client.hmget(this.facetsKey, ...merged.map(idOf)))
      for (const json of stored) {
        // An entry with no facets is one a failed step left: never answered.
        const facets = json === null ? undefined : facetsOf(json)
        if (facets !== undefined && matchesQuery(facets, query)) matches.push(facets)
        if (matches.length >= wanted) break
      }
      if (frontier === undefined) break
      upper = `(${frontier}`
    }
    return pageOf(matches, query.first)
  }

  async attentionDue (now: string, limit: number): Promise<PaymentFacets[]> {
    const ids = await guarded(this.#client.zrangebyscore(this.attentionKey, '-inf', Date.parse(now), 'LIMIT', 0, limit))
    if (ids.length === 0) return []
    const stored = await guarded(this.#client.hmget(this.facetsKey, ...ids))
    return stored.flatMap((json) => {
      const facets = json === null ? undefined : facetsOf(json)
      return facets !== undefined && isDue(facets, now) ? [facets] : []
    })
  }
}

function member (facets: PaymentFacets): string {
  return `${facets.createdAt}|${facets.id}`
}

function idOf (entry: string): string {
  return entry.slice(entry.indexOf('|') + 1)
}

function facetsOf (json: string): PaymentFacets {
  const { v: _version, w: _healed, ...facets } = JSON.parse(json) as StoredFacets
  return facets
}

/** The highest member a page may hold: below the cursor, at or below createdTo. */
function upperBound (query: NormalizedQuery): string {
  const cursor = query.after === undefined ? undefined : `(${query.after.createdAt}|${query.after.id}`
  // Above every "<createdTo>|<id>": ids are below U+FFFF.
  const to = query.createdTo === undefined ? undefined : `[${query.createdTo}|\uffff`
  if (cursor === undefined) return to ?? '+'
  return to === undefined || cursor.slice(1) < to.slice(1) ? cursor : to
}
