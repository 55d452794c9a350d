import { hideConnection } from '../core/engine/index.ts'
import type { Cluster, Redis } from 'ioredis'
import type { IdempotencyRecord, IdempotencyStore } from '../core/engine/index.ts'
import { defineScript, type ScriptCall } from './scripts.ts'

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

/**
 * Idempotency records in Redis next to the payments, under the backend's key prefix and a
 * namespace of the user's ("<prefix><namespace>:<key>"; the GraphQL plugin's is "graphql").
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly client: Redis | Cluster
  readonly keyPrefix: string
  readonly #claim: ScriptCall<string | null>
  readonly #complete: ScriptCall<number>

  constructor (client: Redis | Cluster, keyPrefix: string, namespace: string) {
    this.client = client
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'client')
    this.keyPrefix = `${keyPrefix}${namespace}:`
    this.#claim = defineScript(client, 1, CLAIM_SCRIPT)
    this.#complete = defineScript(client, 1, COMPLETE_SCRIPT)
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
