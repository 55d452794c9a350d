import { Token, type TokenJSON } from '../model/token.ts'
import {
  TokenStorage, assertTokenTtls, newClaimId, tokenTtlSeconds, type Claim, type TokenTtls, type UsedToken
} from './token-storage.ts'

interface Entry {
  json: TokenJSON
  expiresAt: number
  /** Set once the token was used: the entry is then a tombstone. */
  used: boolean
}

export interface MemoryTokenStorageOptions {
  /** Lifetimes by token kind, in seconds; 0 keeps a token forever. */
  ttl?: TokenTtls
  /** Clock, for tests. */
  now?: () => number
}

/** The embedded default token store: single process, expiring, copies on read. */
export class MemoryTokenStorage extends TokenStorage {
  #tokens = new Map<string, Entry>()
  #claims = new Map<string, { id: string, until: number }>()
  #ttl: TokenTtls
  #now: () => number
  #savesSinceSweep = 0

  constructor (options: MemoryTokenStorageOptions = {}) {
    super()
    this.#ttl = assertTokenTtls(options.ttl ?? {}, 'ttl')
    this.#now = options.now ?? Date.now
  }

  async save (tokens: readonly Token[]): Promise<void> {
    const now = this.#now()
    for (const token of tokens) {
      this.#tokens.set(token.hash, { json: token.toJSON(), expiresAt: this.#expiry(token.kind, now), used: false })
    }
    // Tokens nobody comes back for would otherwise stay forever.
    if (++this.#savesSinceSweep >= 1000) this.#sweep(now)
  }

  async find (hash: string): Promise<Token | null> {
    const entry = this.#entry(hash)
    return entry === undefined || entry.used ? null : Token.fromJSON(entry.json)
  }

  async findUsed (hash: string): Promise<UsedToken | null> {
    const entry = this.#entry(hash)
    return entry?.used === true ? { afterUrl: entry.json.afterUrl } : null
  }

  protected override async findUsedToken (hash: string): Promise<(UsedToken & { targetUrl: string }) | null> {
    const entry = this.#entry(hash)
    return entry?.used === true ? { afterUrl: entry.json.afterUrl, targetUrl: entry.json.targetUrl } : null
  }

  async invalidate (hash: string): Promise<boolean> {
    return this.invalidateNow(hash)
  }

  /** True while the token is remembered as used. Synchronous, for atomic commits. */
  isUsed (hash: string): boolean {
    return this.#entry(hash)?.used === true
  }

  /** invalidate() in the same tick, for atomic commits. */
  invalidateNow (hash: string): boolean {
    const entry = this.#entry(hash)
    if (entry === undefined || entry.used) return false
    entry.used = true
    entry.expiresAt = this.#expiry('after', this.#now())
    return true
  }

  async acquireClaim (key: string, ttlMs: number): Promise<string | null> {
    const now = this.#now()
    const held = this.#claims.get(key)
    if (held !== undefined && held.until > now) return null
    const id = newClaimId()
    this.#claims.set(key, { id, until: now + ttlMs })
    return id
  }

  async renewClaim (claim: Claim, ttlMs: number): Promise<boolean> {
    if (!this.holds(claim)) return false
    this.#claims.set(claim.key, { id: claim.id, until: this.#now() + ttlMs })
    return true
  }

  async releaseClaim (claim: Claim): Promise<void> {
    this.releaseNow(claim)
  }

  /** True while `claim` is the live claim on its key. Synchronous, for atomic commits. */
  holds (claim: Claim): boolean {
    const held = this.#claims.get(claim.key)
    return held !== undefined && held.id === claim.id && held.until > this.#now()
  }

  /** releaseClaim() in the same tick, for atomic commits. */
  releaseNow (claim: Claim): void {
    if (this.#claims.get(claim.key)?.id === claim.id) this.#claims.delete(claim.key)
  }

  #entry (hash: string): Entry | undefined {
    const entry = this.#tokens.get(hash)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= this.#now()) {
      this.#tokens.delete(hash)
      return undefined
    }
    return entry
  }

  #expiry (kind: string, now: number): number {
    const ttl = tokenTtlSeconds(kind, this.#ttl)
    return ttl > 0 ? now + ttl * 1000 : Infinity
  }

  #sweep (now: number): void {
    this.#savesSinceSweep = 0
    for (const [hash, entry] of this.#tokens) {
      if (entry.expiresAt <= now) this.#tokens.delete(hash)
    }
    for (const [key, held] of this.#claims) {
      if (held.until <= now) this.#claims.delete(key)
    }
  }
}
