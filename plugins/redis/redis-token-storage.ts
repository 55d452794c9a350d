import type { Redis } from 'ioredis'
import {
  Token, TokenStorage, assertTokenTtls, errorCodes, newLockId, tokenTtlSeconds, type TokenClaim, type TokenJSON, type TokenTtls
} from '../core/engine/index.ts'
import { defineScript, type ScriptCall } from './scripts.ts'

export interface RedisTokenStorageOptions {
  /** Prepended to every key, so several applications (or test files) share one Redis. */
  keyPrefix?: string
  /** Lifetimes by token kind, in seconds; 0 keeps a token until it is invalidated. */
  ttl?: TokenTtls
}

/*
 * find + lock in one round trip: answers the token JSON when the lock was taken (holding
 * the caller's lock id), 0 when another request holds it, nil when there is no such token.
 *   KEYS: token, lock   ARGV: lock ms, lock id
 */
const CLAIM_SCRIPT = `
local token = redis.call('GET', KEYS[1])
if not token then return nil end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[1]) then return token end
return 0`

/*
 * Stores tokens, all or none: one script call joins the client's auto-pipeline (a MULTI
 * would be written on its own), so a payment and its tokens leave in one write.
 *   KEYS: tokens   ARGV: per token, its JSON then its lifetime in ms (0: no expiry)
 */
const SAVE_SCRIPT = `
for i, key in ipairs(KEYS) do
  local ttl = tonumber(ARGV[i * 2])
  if ttl > 0 then redis.call('SET', key, ARGV[i * 2 - 1], 'PX', ttl) else redis.call('SET', key, ARGV[i * 2 - 1]) end
end
return #KEYS`

/* Releases the lock only for the request holding it.   KEYS: lock   ARGV: lock id */
const UNLOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/*
 * Deletes the token (answering 1 only to the caller that removed it), and its lock when
 * the caller holds it.   KEYS: token, lock   ARGV: lock id or ''
 */
const INVALIDATE_SCRIPT = `
local removed = redis.call('DEL', KEYS[1])
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return removed`

/**
 * Tokens in Redis, as JSON strings that expire by kind. Invalidation deletes the token in
 * one atomic step, so when two requests race, exactly one of them removes it.
 */
export class RedisTokenStorage extends TokenStorage {
  readonly client: Redis
  readonly #prefix: string
  readonly #ttl: TokenTtls
  readonly #saveTokens: ScriptCall<number>
  readonly #claimToken: ScriptCall<string | 0 | null>
  readonly #unlockToken: ScriptCall<number>
  readonly #invalidateToken: ScriptCall<number>

  constructor (client: Redis, options: RedisTokenStorageOptions = {}) {
    super()
    this.client = client
    this.#prefix = `${options.keyPrefix ?? 'paywire:'}token:`
    this.#ttl = assertTokenTtls(options.ttl ?? {}, 'ttl')
    this.#saveTokens = defineScript(client, 'paywireSaveTokens', null, SAVE_SCRIPT)
    this.#claimToken = defineScript(client, 'paywireClaimToken', 2, CLAIM_SCRIPT)
    this.#unlockToken = defineScript(client, 'paywireUnlockToken', 1, UNLOCK_SCRIPT)
    this.#invalidateToken = defineScript(client, 'paywireInvalidateToken', 2, INVALIDATE_SCRIPT)
  }

  /** All tokens in one script call: one round trip, shared with whatever else is sent in the same tick. */
  async save (tokens: readonly Token[]): Promise<void> {
    if (tokens.length === 0) return
    const keys: string[] = []
    const args: Array<string | number> = []
    for (const token of tokens) {
      const ttl = tokenTtlSeconds(token.kind, this.#ttl)
      keys.push(this.#key(token.hash))
      // Milliseconds, so lifetimes below a second (tests, demos) work as in the memory store.
      args.push(JSON.stringify(token), ttl > 0 ? Math.max(1, Math.round(ttl * 1000)) : 0)
    }
    await this.#saveTokens(keys.length, ...keys, ...args)
  }

  async find (hash: string): Promise<Token | null> {
    return parse(await this.client.get(this.#key(hash)))
  }

  override async claim (hash: string, lockMs: number): Promise<TokenClaim | null> {
    const lockId = newLockId()
    const answer = await this.#claimToken(this.#key(hash), this.#lockKey(hash), lockMs, lockId)
    if (answer === 0) throw new errorCodes.PAYWIRE_ERR_TOKEN_IN_USE()
    const token = parse(answer)
    return token === null ? null : { token, lockId }
  }

  async invalidate (hash: string, lockId = ''): Promise<boolean> {
    return await this.#invalidateToken(this.#key(hash), this.#lockKey(hash), lockId) === 1
  }

  async lock (hash: string, ttlMs: number): Promise<string | null> {
    const lockId = newLockId()
    return await this.client.set(this.#lockKey(hash), lockId, 'PX', ttlMs, 'NX') === 'OK' ? lockId : null
  }

  async unlock (hash: string, lockId: string): Promise<void> {
    await this.#unlockToken(this.#lockKey(hash), lockId)
  }

  #key (hash: string): string {
    return `${this.#prefix}${hash}`
  }

  #lockKey (hash: string): string {
    return `${this.#prefix}${hash}:lock`
  }
}

function parse (json: string | null): Token | null {
  return json === null ? null : Token.fromJSON(JSON.parse(json) as TokenJSON)
}
