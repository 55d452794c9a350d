import { Token, type TokenJSON } from '../model/token.ts'
import { TokenStorage, assertTokenTtls, newLockId, tokenTtlSeconds, type TokenTtls } from './token-storage.ts'

interface Entry {
  json: TokenJSON
  expiresAt: number
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
  #locks = new Map<string, { id: string, until: number }>()
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
      const ttl = tokenTtlSeconds(token.kind, this.#ttl)
      this.#tokens.set(token.hash, { json: token.toJSON(), expiresAt: ttl > 0 ? now + ttl * 1000 : Infinity })
    }
    // Tokens nobody comes back for would otherwise stay forever.
    if (++this.#savesSinceSweep >= 1000) this.#sweep(now)
  }

  async find (hash: string): Promise<Token | null> {
    const entry = this.#tokens.get(hash)
    if (entry === undefined) return null
    if (entry.expiresAt <= this.#now()) {
      this.#tokens.delete(hash)
      return null
    }
    return Token.fromJSON(entry.json)
  }

  async invalidate (hash: string, lockId?: string): Promise<boolean> {
    if (lockId !== undefined) await this.unlock(hash, lockId)
    return this.#tokens.delete(hash)
  }

  async lock (hash: string, ttlMs: number): Promise<string | null> {
    const now = this.#now()
    const held = this.#locks.get(hash)
    if (held !== undefined && held.until > now) return null
    const id = newLockId()
    this.#locks.set(hash, { id, until: now + ttlMs })
    return id
  }

  async unlock (hash: string, lockId: string): Promise<void> {
    if (this.#locks.get(hash)?.id === lockId) this.#locks.delete(hash)
  }

  #sweep (now: number): void {
    this.#savesSinceSweep = 0
    for (const [hash, entry] of this.#tokens) {
      if (entry.expiresAt <= now) this.#tokens.delete(hash)
    }
    for (const [hash, held] of this.#locks) {
      if (held.until <= now) this.#locks.delete(hash)
    }
  }
}
