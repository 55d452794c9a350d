import { generateLockId } from './random.ts'
import { PAYWIRE_ERR_INVALID_OPTION, PAYWIRE_ERR_TOKEN_IN_USE } from '../errors.ts'
import type { Token, TokenKind } from '../model/token.ts'

/**
 * Lifetimes by token kind, in seconds (0: never expires). Capture-like tokens live long
 * enough for a buyer to finish an off-site payment; the done ("after") token outlives
 * them so the buyer never lands on an expired result page; notify tokens live as long as
 * the payment may still receive notifications.
 */
export const DEFAULT_TOKEN_TTL_SECONDS: Readonly<Record<string, number>> = {
  capture: 3600,
  authorize: 3600,
  payout: 3600,
  refund: 86_400,
  cancel: 86_400,
  sync: 86_400,
  after: 86_400,
  notify: 0
}

export type TokenTtls = Partial<Record<TokenKind, number>>

export function tokenTtlSeconds (kind: TokenKind, ttls: TokenTtls): number {
  return ttls[kind] ?? DEFAULT_TOKEN_TTL_SECONDS[kind] ?? 3600
}

/** Throws a coded error naming the first lifetime that is not a number of seconds ≥ 0. */
export function assertTokenTtls (ttls: TokenTtls, option: string): TokenTtls {
  for (const [kind, seconds] of Object.entries(ttls)) {
    if (seconds === undefined) continue
    // A negative or NaN lifetime would otherwise silently keep tokens forever.
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new PAYWIRE_ERR_INVALID_OPTION(`${option}.${kind}`, 'must be a number of seconds, 0 or more (0: never expires)')
    }
  }
  return ttls
}

/** A token claimed by one request, with the id of the lock that request holds. */
export interface TokenClaim {
  token: Token
  lockId: string
}

/** An unguessable lock id: only the request holding a lock may release it. */
export function newLockId (): string {
  return generateLockId()
}

/**
 * Where security tokens live. Also the service id of the token storage in gateway
 * containers (GetTokenAction receives it).
 */
export abstract class TokenStorage {
  /** Stores tokens together (one round trip where the backend allows it). */
  abstract save (tokens: readonly Token[]): Promise<void>
  abstract find (hash: string): Promise<Token | null>
  /**
   * Deletes the token, and its lock when `lockId` still holds it; true only for the one
   * caller that actually removed the token.
   */
  abstract invalidate (hash: string, lockId?: string): Promise<boolean>
  /**
   * Locks the token for one in-flight request, so two concurrent requests with one token
   * never both reach the gateway: the lock id, or null when another request holds it.
   */
  abstract lock (hash: string, ttlMs: number): Promise<string | null>
  /**
   * Releases the lock if `lockId` still holds it: a lock that expired may belong to
   * another request by now, and must not be released by the first one.
   */
  abstract unlock (hash: string, lockId: string): Promise<void>

  /**
   * find() and lock() together; throws PAYWIRE_ERR_TOKEN_IN_USE when another request holds
   * the token. Stores that can do both in one round trip override it.
   */
  async claim (hash: string, lockMs: number): Promise<TokenClaim | null> {
    const token = await this.find(hash)
    if (token === null) return null
    const lockId = await this.lock(hash, lockMs)
    if (lockId === null) throw new PAYWIRE_ERR_TOKEN_IN_USE()
    return { token, lockId }
  }
}
