import {
  ReadCache, Token, TokenStorage, assertTokenTtls, errorCodes, newClaimId, tokenTtlSeconds, tokenUsedError,
  type Claim, type Identity, type TokenClaim, type TokenJSON, type TokenRead, type TokenTtls, type UsedToken, hideConnection
} from '../core/engine/index.ts'
import { USED_MARKER, claimKey, claimKeyOfTokenHash, guarded, hashTag, recordKeyStartOfTokenHash, tokenKey, type RedisClient } from './keys.ts'
import type { TokenToSave } from './commit-script.ts'
import { defineScript, type ScriptCall } from './scripts.ts'

export interface RedisTokenStorageOptions {
  /** Prepended to every key, so several applications (or test files) share one Redis. */
  keyPrefix?: string
  /** Lifetimes by token kind, in seconds; 0 keeps a token until it is invalidated. */
  ttl?: TokenTtls
  /**
   * Whether the tokens' models may be kept in this Redis under the same key prefix (a
   * RedisStorage on this client): a token route then reads its payment's record in the
   * round trip that finds the token (and claims it). Default: yes; a RedisStorageBackend
   * answers whether it made any storage (with payments in PostgreSQL, it made none).
   */
  readsRecords?: () => boolean
}

/*
 * Ends a script that holds the JSON of a live token in `token`: answers {token, the record
 * of the token's model or nil}, or the token alone when it names no model. The record's key
 * is <start> .. modelName .. ':' .. id (recordKeyStartOfTokenHash): only the token names it,
 * so it cannot be in KEYS, but it carries the token's tag: it is in the token's slot, on the
 * node a Cluster runs the script on.
 */
const withRecord = (start: string): string => `
local ok, decoded = pcall(cjson.decode, token)
local details = ok and type(decoded) == 'table' and decoded.details
if type(details) ~= 'table' or type(details.modelName) ~= 'string' or type(details.id) ~= 'string' then return token end
return {token, redis.call('GET', ${start} .. details.modelName .. ':' .. details.id)}`

/*
 * find + claim in one round trip: answers the token JSON when the claim was taken
 * (holding the caller's claim id), with its model's record read under that claim unless
 * ARGV[3] is '' (see withRecord); 0 when another request holds the claim, the stored value
 * when the token was used ("used:" + its JSON), nil when there is no such token.
 *   KEYS: token, claim   ARGV: claim ms, claim id, record key start ('': read no record)
 */
const CLAIM_SCRIPT = `
local token = redis.call('GET', KEYS[1])
if not token then return nil end
if string.sub(token, 1, 5) == 'used:' then return token end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[1]) then return 0 end
if ARGV[3] == '' then return token end` + withRecord('ARGV[3]')

/*
 * find, with the token's model's record (see withRecord), in one round trip; writes nothing.
 * Answers nil when there is no live token.   KEYS: token   ARGV: record key start
 */
const READ_SCRIPT = `
local token = redis.call('GET', KEYS[1])
if not token or string.sub(token, 1, 5) == 'used:' then return false end` + withRecord('ARGV[1]')

type WithRecord = string | [string, string | null]

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

/* Extends the claim only for the request holding it.   KEYS: claim   ARGV: claim id, ms */
const RENEW_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`

/* Releases the claim only for the request holding it.   KEYS: claim   ARGV: claim id */
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`

/*
 * Uses the token up: it stays, marked used, for the used-token lifetime; 1 only for the
 * caller that used it.   KEYS: token   ARGV: used-token lifetime in ms (0: no expiry)
 */
const INVALIDATE_SCRIPT = `
local token = redis.call('GET', KEYS[1])
if not token or string.sub(token, 1, 5) == 'used:' then return 0 end
if tonumber(ARGV[1]) > 0 then redis.call('SET', KEYS[1], 'used:' .. token, 'PX', ARGV[1]) else redis.call('SET', KEYS[1], 'used:' .. token) end
return 1`

/**
 * Tokens in Redis, as JSON strings that expire by kind, and the claims on payments. A
 * token and its payment's claim share a hash tag (the start of the token's hash), so a
 * token route finds the token and claims the payment in one script. Using a token up marks
 * it used in one atomic step, so when two requests race, exactly one of them uses it.
 */
export class RedisTokenStorage extends TokenStorage {
  readonly client: RedisClient
  readonly keyPrefix: string
  readonly #ttl: TokenTtls
  readonly #saveTokens: ScriptCall<number>
  readonly #claimToken: ScriptCall<WithRecord | 0 | null>
  readonly #readToken: ScriptCall<WithRecord | null>
  readonly #readsRecords: () => boolean
  readonly #renewClaim: ScriptCall<number>
  readonly #releaseClaim: ScriptCall<number>
  readonly #invalidateToken: ScriptCall<number>

  constructor (client: RedisClient, options: RedisTokenStorageOptions = {}) {
    super()
    this.client = client
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'client')
    this.keyPrefix = options.keyPrefix ?? 'paywire:'
    this.#ttl = assertTokenTtls(options.ttl ?? {}, 'ttl')
    this.#saveTokens = defineScript(client, null, SAVE_SCRIPT)
    this.#readsRecords = options.readsRecords ?? (() => true)
    this.#claimToken = defineScript(client, 2, CLAIM_SCRIPT)
    this.#readToken = defineScript(client, 1, READ_SCRIPT)
    this.#renewClaim = defineScript(client, 1, RENEW_SCRIPT)
    this.#releaseClaim = defineScript(client, 1, RELEASE_SCRIPT)
    this.#invalidateToken = defineScript(client, 1, INVALIDATE_SCRIPT)
  }

  /** How long a used token is remembered: as long as the done page it leads to (ms, 0: forever). */
  get usedTokenTtlMs (): number {
    return ttlMs(tokenTtlSeconds('after', this.#ttl))
  }

  /** All tokens in one script call: one round trip, shared with whatever else is sent in the same tick. */
  async save (tokens: readonly Token[]): Promise<void> {
    if (tokens.length === 0) return
    // One call per hash slot on a Cluster (a payment's tokens share one); one call on a single Redis.
    const calls = new Map<string, { keys: string[], args: Array<string | number> }>()
    for (const token of tokens) {
      const key = this.tokenKey(token.hash)
      const slot = this.client.isCluster ? hashTag(key) : ''
      let call = calls.get(slot)
      if (call === undefined) calls.set(slot, call = { keys: [], args: [] })
      const { json, ttlMs } = this.toSave(token)
      call.keys.push(key)
      call.args.push(json, ttlMs)
    }
    await Promise.all([...calls.values()].map(({ keys, args }) => guarded(this.#saveTokens(keys.length, ...keys, ...args))))
  }

  /** A token as it is stored (the commit script stores a prepared payment's tokens with it: RedisStorageBackend.saveWithTokens). */
  toSave (token: Token): TokenToSave {
    return { hash: token.hash, json: JSON.stringify(token), ttlMs: ttlMs(tokenTtlSeconds(token.kind, this.#ttl)) }
  }

  async find (hash: string): Promise<Token | null> {
    const stored = await guarded(this.client.get(this.tokenKey(hash)))
    return stored === null || stored.startsWith(USED_MARKER) ? null : parse(stored)
  }

  async findUsed (hash: string): Promise<UsedToken | null> {
    const stored = await guarded(this.client.get(this.tokenKey(hash)))
    return stored === null || !stored.startsWith(USED_MARKER) ? null : usedOf(stored)
  }

  override claimKey (identity: Identity): string {
    return claimKey(this.keyPrefix, identity)
  }

  override tokenClaimKey (token: Token): string {
    return token.details === null ? claimKeyOfTokenHash(this.keyPrefix, token.hash) : this.claimKey(token.details)
  }

  /** The token and its model's record in one script, when they may live side by side (see readsRecords). */
  override async findAndRead (hash: string): Promise<TokenRead> {
    const start = this.#recordKeyStart(hash)
    if (start === '') return { token: await this.find(hash) }
    const answer = await guarded(this.#readToken(this.tokenKey(hash), start))
    if (answer === null) return { token: null }
    return this.#withRecord(answer, start)
  }

  override async claim (hash: string, ttlMs: number): Promise<TokenClaim | null> {
    const id = newClaimId()
    const key = claimKeyOfTokenHash(this.keyPrefix, hash)
    const start = this.#recordKeyStart(hash)
    let answer
    try {
      answer = await guarded(this.#claimToken(this.tokenKey(hash), key, ttlMs, id, start))
    } catch (error) {
      // A claim that timed out may still be applied when Redis answers again: a release
      // sent after it on the same connection is applied after it, so the buyer's retry
      // does not find the payment busy for a whole claim lifetime.
      this.#releaseClaim(key, id).catch(() => {})
      throw error
    }
    if (answer === 0) throw new errorCodes.PAYWIRE_ERR_PAYMENT_BUSY()
    if (answer === null) return null
    if (typeof answer === 'string' && answer.startsWith(USED_MARKER)) throw tokenUsedError(usedOf(answer), parse(answer.slice(USED_MARKER.length)).targetUrl)
    const { token, reads } = this.#withRecord(answer, start)
    // A token not made by the token factory (its hash does not start with its model's tag)
    // has its payment's claim elsewhere: take that one instead (its record was not read under it).
    const expected = this.tokenClaimKey(token)
    if (expected === key) return { token, claim: { key, id }, reads }
    await this.releaseClaim({ key, id })
    return await this.readUnderClaim(hash, await this.claimByKey(expected, ttlMs))
  }

  async invalidate (hash: string): Promise<boolean> {
    return await guarded(this.#invalidateToken(this.tokenKey(hash), this.usedTokenTtlMs)) === 1
  }

  async acquireClaim (key: string, ttlMs: number): Promise<string | null> {
    const id = newClaimId()
    return await guarded(this.client.set(key, id, 'PX', ttlMs, 'NX')) === 'OK' ? id : null
  }

  async renewClaim (claim: Claim, ttlMs: number): Promise<boolean> {
    return await guarded(this.#renewClaim(claim.key, claim.id, ttlMs)) === 1
  }

  async releaseClaim (claim: Claim): Promise<void> {
    await guarded(this.#releaseClaim(claim.key, claim.id))
  }

  tokenKey (hash: string): string {
    return tokenKey(this.keyPrefix, hash)
  }

  #recordKeyStart (hash: string): string {
    return this.#readsRecords() ? recordKeyStartOfTokenHash(this.keyPrefix, hash) : ''
  }

  /** A script's token, and the record it read with it as this client's copy of the key it read. */
  #withRecord (answer: WithRecord, start: string): { token: Token, reads?: ReadCache } {
    if (typeof answer === 'string') return { token: parse(answer) }
    const token = parse(answer[0])
    const details = token.details as Identity
    return { token, reads: new ReadCache().put(this.client, `${start}${details.modelName}:${details.id}`, answer[1]) }
  }
}

/** Seconds → milliseconds, so lifetimes below a second (tests, demos) work as in the memory store; 0 stays 0. */
function ttlMs (seconds: number): number {
  return seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0
}

function parse (json: string): Token {
  return Token.fromJSON(JSON.parse(json) as TokenJSON)
}

function usedOf (stored: string): UsedToken {
  return { afterUrl: parse(stored.slice(USED_MARKER.length)).afterUrl }
}
