import type { Redis } from 'ioredis'
import { defineScript, type ScriptCall } from '../redis/scripts.ts'

/**
 * One claimed key. `owner` identifies the request that claimed it, so only that request
 * completes or releases it; `result` is set once the operation succeeded.
 */
export interface IdempotencyRecord {
  fingerprint: string
  owner: string
  result?: unknown
}

/**
 * Where idempotency records and payment locks live. Every method is atomic: two requests
 * claiming one key at the same time get one null (the winner) and one record.
 */
export interface IdempotencyStore {
  /** Stores the record for lockMs when the key is free and answers null; else answers the record already there. */
  claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null>
  /** Replaces the owner's claim by its completed record, kept for ttlMs. Does nothing when the claim was lost. */
  complete (key: string, record: IdempotencyRecord, ttlMs: number): Promise<void>
  /** Frees the owner's claim (after a failure), so a retry can run. */
  release (key: string, owner: string): Promise<void>
}

interface Entry {
  json: string
  expiresAt: number
}

export interface MemoryIdempotencyStoreOptions {
  /** The clock (ms); tests move it. Default Date.now. */
  now?: () => number
}

/** The embedded default: one process, records as JSON copies, expired entries swept as time passes. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly #entries = new Map<string, Entry>()
  readonly #now: () => number
  #nextSweep = 0

  constructor (options: MemoryIdempotencyStoreOptions = {}) {
    this.#now = options.now ?? Date.now
  }

  get size (): number {
    return this.#entries.size
  }

  async claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null> {
    this.#sweep()
    const existing = this.#live(key)
    if (existing !== undefined) return JSON.parse(existing.json)
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

/*
 * KEYS[1]: the record key. claim: ARGV json, lockMs → the existing JSON, or false once set.
 * complete/release: ARGV owner, json, ttlMs → replaces/deletes only the owner's record.
 */
const CLAIM_SCRIPT = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`

const COMPLETE_SCRIPT = `
local existing = redis.call('GET', KEYS[1])
if not existing or cjson.decode(existing).owner ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`

/** Records in Redis next to the payments, under the backend's key prefix ("<prefix>graphql:<key>"). */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly client: Redis
  readonly keyPrefix: string
  readonly #claim: ScriptCall<string | null>
  readonly #complete: ScriptCall<number>

  constructor (client: Redis, keyPrefix = 'paywire:') {
    this.client = client
    this.keyPrefix = `${keyPrefix}graphql:`
    this.#claim = defineScript(client, 'paywireGraphqlClaim', 1, CLAIM_SCRIPT)
    this.#complete = defineScript(client, 'paywireGraphqlComplete', 1, COMPLETE_SCRIPT)
  }

  async claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null> {
    const existing = await this.#claim(this.keyPrefix + key, JSON.stringify(record), Math.ceil(lockMs))
    return existing === null ? null : JSON.parse(existing)
  }

  async complete (key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    await this.#complete(this.keyPrefix + key, record.owner, JSON.stringify(record), Math.ceil(ttlMs))
  }

  async release (key: string, owner: string): Promise<void> {
    await this.#complete(this.keyPrefix + key, owner, '', 0)
  }
}
