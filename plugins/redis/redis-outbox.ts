import {
  DEAD_EVENTS_KEPT, newClaimId, tickBatches,
  type DueBatches, type LeaseDueOptions, type Outbox, type OutboxBatch, type OutboxEntry, type OutboxLease, type OutboxRecord, type SettledEntry, type Settlement, hideConnection
} from '../core/engine/index.ts'
import type { Cluster } from 'ioredis'
import { guarded, hashTag, type RedisClient } from './keys.ts'
import { ENTRY_HEADER_LUA, readEntry, retriedEntry } from './outbox-entry.ts'
import { commitOnRedis } from './redis-commit.ts'
import { defineScript, type ScriptCall } from './scripts.ts'

/*
 * The outbox on Redis. Each payment's events are a list under the payment's own hash tag
 * ("<prefix>{tag}:outbox"), appended by the commit script itself, so an event is stored
 * exactly when its change is, on a single Redis and on a Cluster alike; the lease that lets
 * one instance deliver them has the same tag. An entry is a header line and the event's JSON
 * as staged (outbox-entry.ts).
 *
 * Which lists have something due is a sorted set ("<prefix>{outbox}:due": partition → when
 * its head is due). On a single Redis the commit script writes it too. On a Cluster it
 * lives in one slot of its own — a commit touches only its payment's slot, and a per-slot
 * index would have to be read for all 16384 slots — so a commit marks it beside the script
 * (same round trip) and once more after. A mark lost anyway (that node failing over at that
 * moment) does not hold the events: the committing instance's dispatcher was woken with the
 * payment and delivers it without the index; only if that instance died too are they left
 * to recover(), a SCAN of every master for outbox lists, at start and every
 * recoverIntervalMs. Dead events are a capped list under the same {outbox} tag.
 */

/** Answers the new head's due time, -1 when the list is empty, -2 when the lease or the head moved on. */
const SETTLE_SCRIPT = `${ENTRY_HEADER_LUA}
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -2 end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or header(head).id ~= ARGV[2] then return -2 end
if ARGV[3] == 'retry' then
  redis.call('LSET', KEYS[2], 0, ARGV[4])
  return tonumber(ARGV[5])
end
redis.call('LPOP', KEYS[2])
local next = redis.call('LINDEX', KEYS[2], 0)
if not next then return -1 end
return header(next).dueAt`

/* Takes the lease and reads the first events.   KEYS: lease, list   ARGV: lease id, ms, how many. Answers nil when held. */
const LEASE_BATCH_SCRIPT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('LRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)`

/*
 * Settles a batch and releases its lease: the lease id, the events removed from the head
 * (delivered or dead), the batch's first event id ('' when none was settled), the retried head
 * ('' when none) and its due time. Answers like SETTLE_SCRIPT.
 */
const SETTLE_FUNCTION = `${ENTRY_HEADER_LUA}
local function settle (lease, list, id, removed, first, retried, due)
  if redis.call('GET', lease) ~= id then return -2 end
  if first ~= '' then
    local head = redis.call('LINDEX', list, 0)
    if not head or header(head).id ~= first then return -2 end
  end
  if tonumber(removed) > 0 then redis.call('LTRIM', list, tonumber(removed), -1) end
  local next = -1
  if retried ~= '' then
    redis.call('LSET', list, 0, retried)
    next = tonumber(due)
  else
    local head = redis.call('LINDEX', list, 0)
    if head then next = header(head).dueAt end
  end
  redis.call('DEL', lease)
  return next
end`

/* One batch, on a Cluster (the due index is in another slot).   KEYS: lease, list   ARGV: as settle()'s after the keys. */
const SETTLE_BATCH_SCRIPT = `${SETTLE_FUNCTION}
return settle(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])`

/*
 * The batches a single Redis's dispatcher settled in one tick, in one script, each marked or
 * unmarked in the due index as it leaves its partition.   KEYS: the due index
 * ARGV: per batch, its lease key, list key, then settle()'s arguments, then its partition.
 * Answers each batch's answer, in order.
 */
const SETTLE_MANY_SCRIPT = `${SETTLE_FUNCTION}
local out = {}
for i = 1, #ARGV, 8 do
  local next = settle(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6])
  if next == -1 then redis.call('ZREM', KEYS[1], ARGV[i + 7]) elseif next ~= -2 then redis.call('ZADD', KEYS[1], next, ARGV[i + 7]) end
  out[#out + 1] = next
end
return out`

/*
 * A dispatcher's pass in one script (single Redis only: its keys span every payment's slot, and
 * the partitions' keys are built here from the due index, which only a single Redis allows).
 * KEYS: the due index   ARGV: now, how many due to read, how many to lease, lease id, ms, events
 * per partition, key prefix, then partitions to try besides the due ones. Answers whether the
 * due index held more than it read, then each leased partition and its first events.
 */
const LEASE_DUE_SCRIPT = `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = { #due == tonumber(ARGV[2]) and 1 or 0 }
local candidates = due
for i = 8, #ARGV do candidates[#candidates + 1] = ARGV[i] end
local seen, leased, limit = {}, 0, tonumber(ARGV[3])
for _, partition in ipairs(candidates) do
  if leased >= limit then break end
  if not seen[partition] then
    seen[partition] = true
    local list = ARGV[7] .. '{' .. partition .. '}:outbox'
    if redis.call('SET', list .. '-lease', ARGV[4], 'NX', 'PX', ARGV[5]) then
      leased = leased + 1
      out[#out + 1] = partition
      out[#out + 1] = redis.call('LRANGE', list, 0, tonumber(ARGV[6]) - 1)
    end
  end
end
return out`

const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/* Extends the lease only for the dispatcher holding it.   KEYS: lease   ARGV: lease id, ms */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

export class RedisOutbox implements Outbox {
  readonly client: RedisClient
  readonly keyPrefix: string
  readonly dueKey: string
  readonly deadKey: string
  readonly #settle: ScriptCall<number>
  readonly #release: ScriptCall<number>
  readonly #renew: ScriptCall<number>
  readonly #leaseBatch: ScriptCall<string[] | null>
  readonly #settleBatch: ScriptCall<number>
  readonly #settleMany: ScriptCall<number[]>
  /** Absent on a Cluster (see LEASE_DUE_SCRIPT): the dispatcher leases partition by partition there. */
  readonly leaseDue?: (now: number, options: LeaseDueOptions) => Promise<DueBatches>

  constructor (client: RedisClient, keyPrefix: string) {
    this.client = client
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'client')
    this.keyPrefix = keyPrefix
    this.dueKey = `${keyPrefix}{outbox}:due`
    this.deadKey = `${keyPrefix}{outbox}:dead`
    this.#settle = defineScript(client, 2, SETTLE_SCRIPT)
    this.#release = defineScript(client, 1, RELEASE_SCRIPT)
    this.#renew = defineScript(client, 1, RENEW_SCRIPT)
    this.#leaseBatch = defineScript(client, 2, LEASE_BATCH_SCRIPT)
    // Two keys on a Cluster, three on a single Redis (the due index): counted per call.
    this.#settleBatch = defineScript(client, 2, SETTLE_BATCH_SCRIPT)
    this.#settleMany = defineScript(client, 1, SETTLE_MANY_SCRIPT)
    if (!client.isCluster) {
      const leaseDue = defineScript<Array<number | string | string[]>>(client, 1, LEASE_DUE_SCRIPT)
      this.leaseDue = async (now, { scan, limit, include, ttlMs, batch }) => {
        const id = newClaimId()
        const answer = await guarded(leaseDue(this.dueKey, now, scan, limit, id, ttlMs, batch, keyPrefix, ...include))
        const batches: OutboxBatch[] = []
        // Read in place, not through a rest element, and pushed, not map()ped: both made arrays whose
        // map depended on this code's tier, and the dispatcher's optimized code was thrown away on
        // the other one (see redis-commit.ts).
        for (let at = 1; at < answer.length; at += 2) {
          const partition = answer[at] as string
          const entries: OutboxEntry[] = []
          for (const entry of answer[at + 1] as string[]) entries.push(readEntry(entry, partition))
          batches.push({ lease: { partition, id }, entries })
        }
        return { batches, more: answer[0] === 1 }
      }
    }
  }

  listKey (partition: string): string {
    return `${this.keyPrefix}{${partition}}:outbox`
  }

  leaseKey (partition: string): string {
    return `${this.keyPrefix}{${partition}}:outbox-lease`
  }

  /** What the commit script needs to append events (see RedisStorageBackend.commit). */
  commitParts (): { outboxKeyOf: (partition: string) => string, dueKey?: string, markDue?: (partitions: string[]) => Promise<void> } {
    const outboxKeyOf = (partition: string) => this.listKey(partition)
    if (!this.client.isCluster) return { outboxKeyOf, dueKey: this.dueKey }
    return { outboxKeyOf, markDue: async (partitions) => { await this.#markDue(partitions) } }
  }

  async append (records: readonly OutboxRecord[]): Promise<void> {
    await commitOnRedis(this.client, {
      writes: [], invalidateTokens: [], tombstoneTtlMs: 0, releaseClaim: false, events: records, tokenKeyOf: (hash) => hash, ...this.commitParts()
    })
  }

  async due (now: number, limit: number): Promise<string[]> {
    return await guarded(this.client.zrangebyscore(this.dueKey, '-inf', String(now), 'LIMIT', 0, limit))
  }

  async nextDueAt (): Promise<number | null> {
    const [, score] = await guarded(this.client.zrange(this.dueKey, '0', '0', 'WITHSCORES'))
    return score === undefined ? null : Number(score)
  }

  async lease (partition: string, ttlMs: number): Promise<OutboxLease | null> {
    const id = newClaimId()
    return await guarded(this.client.set(this.leaseKey(partition), id, 'PX', ttlMs, 'NX')) === 'OK' ? { partition, id } : null
  }

  async renew (lease: OutboxLease, ttlMs: number): Promise<boolean> {
    return await guarded(this.#renew(this.leaseKey(lease.partition), lease.id, ttlMs)) === 1
  }

  async head (lease: OutboxLease): Promise<OutboxEntry | null> {
    const head = await guarded(this.client.lindex(this.listKey(lease.partition), 0))
    if (head === null) {
      // Delivered meanwhile (or a mark for a commit that failed): the partition is not due.
      await this.#unmark(lease.partition)
      return null
    }
    return readEntry(head, lease.partition)
  }

  async settle (lease: OutboxLease, entry: OutboxEntry, settlement: Settlement): Promise<boolean> {
    if (settlement.outcome === 'dead') {
      // Another slot on a Cluster: kept first, so a crash in between keeps it twice rather than never.
      const dead = JSON.stringify({ ...entry, attempts: entry.attempts + 1, lastError: settlement.error })
      await guarded(this.client.multi().lpush(this.deadKey, dead).ltrim(this.deadKey, 0, DEAD_EVENTS_KEPT - 1).exec())
    }
    const retried = settlement.outcome === 'retry' ? retriedEntry(entry, settlement.dueAt, settlement.error) : ''
    const next = await guarded(this.#settle(this.leaseKey(lease.partition), this.listKey(lease.partition), lease.id, entry.id,
      settlement.outcome, retried, settlement.outcome === 'retry' ? settlement.dueAt : 0))
    if (next === -2) return false
    if (next === -1) await this.#unmark(lease.partition)
    else await guarded(this.client.zadd(this.dueKey, next, lease.partition))
    return true
  }

  async leaseBatch (partition: string, ttlMs: number, limit: number): Promise<OutboxBatch | null> {
    const id = newClaimId()
    const entries = await guarded(this.#leaseBatch(this.leaseKey(partition), this.listKey(partition), id, ttlMs, limit))
    if (entries === null) return null
    return { lease: { partition, id }, entries: entries.map((entry) => readEntry(entry, partition)) }
  }

  async settleBatch (lease: OutboxLease, settled: readonly SettledEntry[]): Promise<boolean> {
    const dead = settled.filter(({ settlement }) => settlement.outcome === 'dead')
    if (dead.length > 0) {
      // Another slot on a Cluster: kept first, so a crash in between keeps them twice rather than never.
      // LPUSH of several pushes each in turn: the last one dead ends up first, newest first as settle() keeps them.
      const entries = dead.map(({ entry, settlement }) => JSON.stringify({ ...entry, attempts: entry.attempts + 1, lastError: (settlement as { error: string }).error }))
      await guarded(this.client.multi().lpush(this.deadKey, ...entries).ltrim(this.deadKey, 0, DEAD_EVENTS_KEPT - 1).exec())
    }
    const last = settled.at(-1)
    const retry = last?.settlement.outcome === 'retry' ? last as { entry: OutboxEntry, settlement: Settlement & { outcome: 'retry' } } : undefined
    const retried = retry === undefined ? '' : retriedEntry(retry.entry, retry.settlement.dueAt, retry.settlement.error)
    const args = [lease.id, settled.length - (retry === undefined ? 0 : 1), settled[0]?.entry.id ?? '', retried, retry?.settlement.dueAt ?? 0]
    if (!this.client.isCluster) return await this.#settleSoon([this.leaseKey(lease.partition), this.listKey(lease.partition), ...args, lease.partition]) !== -2
    const next = await guarded(this.#settleBatch(this.leaseKey(lease.partition), this.listKey(lease.partition), ...args))
    if (next === -2) return false
    // On a Cluster the due index is in another slot: marked or unmarked after, as settle() does.
    if (next === -1) await this.#unmark(lease.partition)
    else await guarded(this.client.zadd(this.dueKey, next, lease.partition))
    return true
  }

  /** A batch's settle on a single Redis, sent with the others settled in the same tick in one script. */
  readonly #settleSoon = tickBatches(async (settling: Array<Array<string | number>>) =>
    await guarded(this.#settleMany(this.dueKey, ...settling.flat())))

  async release (lease: OutboxLease): Promise<void> {
    await guarded(this.#release(this.leaseKey(lease.partition), lease.id))
  }

  async dead (limit = DEAD_EVENTS_KEPT): Promise<OutboxEntry[]> {
    const entries = await guarded(this.client.lrange(this.deadKey, 0, limit - 1))
    return entries.map((entry) => JSON.parse(entry) as OutboxEntry)
  }

  async deadCount (): Promise<number> {
    return await guarded(this.client.llen(this.deadKey))
  }

  /** Marks due every partition whose outbox list holds events (a Cluster's lost marks). */
  async recover (): Promise<void> {
    if (!this.client.isCluster) return
    const nodes = (this.client as Cluster).nodes('master')
    const partitions: string[] = []
    await Promise.all(nodes.map(async (node) => {
      let cursor = '0'
      do {
        const [next, keys] = await guarded(node.scan(cursor, 'MATCH', `${this.keyPrefix}{*}:outbox`, 'COUNT', 1000))
        cursor = next
        for (const key of keys) partitions.push(hashTag(key))
      } while (cursor !== '0')
    }))
    if (partitions.length > 0) await this.#markDue(partitions)
  }

  async #markDue (partitions: string[]): Promise<void> {
    const now = Date.now()
    await guarded(this.client.zadd(this.dueKey, 'NX', ...partitions.flatMap((partition) => [String(now), partition])))
  }

  /** Unmarks an empty partition; a commit that appended meanwhile marks it again (checked after, in that order). */
  async #unmark (partition: string): Promise<void> {
    await guarded(this.client.zrem(this.dueKey, partition))
    const head = await guarded(this.client.lindex(this.listKey(partition), 0))
    if (head !== null) await guarded(this.client.zadd(this.dueKey, 'NX', readEntry(head, partition).dueAt, partition))
  }
}
