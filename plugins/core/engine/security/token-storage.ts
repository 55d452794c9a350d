import { hostname } from 'node:os'
import { generateLockId } from '../random.ts'
import { PAYWIRE_ERR_INVALID_OPTION, PAYWIRE_ERR_PAYMENT_BUSY, PAYWIRE_ERR_TOKEN_USED } from '../errors.ts'
import type { Identity } from '../model/identity.ts'
import type { Token, TokenKind } from '../model/token.ts'
import type { ReadCache } from '../storage/read-cache.ts'

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

/**
 * The right of one request to change one payment (one model): while a claim is held, no
 * other request that asks for the same key gets one. `id` is unguessable and per claim, so
 * a request whose claim expired can never release or renew its successor's; it starts with
 * its holder's identity (claimHolder()). A claim is a lease: it lapses unless its holder
 * renews it, so a holder that died frees the payment within one lease.
 */
export interface Claim {
  readonly key: string
  readonly id: string
}

/** A token claimed by one request: the claim is on the token's model (or on the token itself when it has none). */
export interface TokenClaim {
  token: Token
  claim: Claim
  /**
   * The token's model as the store read it in the same atomic step that took the claim (a
   * store keeping tokens and records side by side can): the request starts from it instead
   * of reading it again (ExclusiveOptions.reads).
   */
  reads?: ReadCache
}

/** A live token (null: none, expired or used), and its model's record where the store read it in the same round trip. */
export interface TokenRead {
  token: Token | null
  reads?: ReadCache
}

/** What a used token leaves behind: where its holder goes instead (the done page), if anywhere. */
export interface UsedToken {
  afterUrl: string | null
}

/**
 * A used link: its after URL (the payment's done page), when it had one, and the URL it was
 * made for when the store knows it, so a route can tell a used link sent to another route
 * (answered as unknown) from a reload of its own.
 */
export function tokenUsedError (used: UsedToken, targetUrl?: string): Error & { afterUrl: string | null, targetUrl?: string } {
  return Object.assign(new PAYWIRE_ERR_TOKEN_USED(), { afterUrl: used.afterUrl }, targetUrl === undefined ? {} : { targetUrl })
}

/**
 * This process as the holder of the claims (and event leases) it takes: its host, its pid and
 * a random incarnation (containers all run as pid 1, and a restarted process may get its
 * predecessor's pid). It starts every id newClaimId() makes, so a claim read in the store
 * (`redis-cli GET …:claim`, the claims table) says which instance holds it.
 */
export const CLAIM_HOLDER = `${hostname().replace(/[^\w.-]/g, '_')}:${process.pid}:${generateLockId().slice(0, 6)}`

/** An unguessable claim id, made of its holder (CLAIM_HOLDER) and 16 random characters: `<holder>/<random>`. */
export function newClaimId (): string {
  return `${CLAIM_HOLDER}/${generateLockId()}`
}

/** Who took a claim (or an event lease): the holder part of its id; '' for an id made otherwise. */
export function claimHolder (id: string): string {
  const slash = id.lastIndexOf('/')
  return slash < 0 ? '' : id.slice(0, slash)
}

/**
 * Where security tokens live, and the claims that make one request at a time the writer
 * of a payment. Also the service id of the token storage in gateway containers
 * (GetTokenAction receives it).
 */
export abstract class TokenStorage {
  /** Stores tokens together (one round trip where the backend allows it). */
  abstract save (tokens: readonly Token[]): Promise<void>
  /** A live token; null when there is none, or it expired or was used. */
  abstract find (hash: string): Promise<Token | null>
  /**
   * find(), and where the store keeps the token's model beside it, the model's record read in
   * the same round trip (a done page needs both): the storage of that record takes it from
   * `reads` instead of reading it again. Reads only, like find(). The default reads the token alone.
   */
  async findAndRead (hash: string): Promise<TokenRead> {
    return { token: await this.find(hash) }
  }

  /** What a used token left, while the done page it led to may still be visited; null otherwise. */
  abstract findUsed (hash: string): Promise<UsedToken | null>
  /**
   * Uses the token up: it can never be found or claimed again, and for as long as an after
   * token lives, claim() reports it as used with its after URL (so a reload of a used
   * capture link finds the payment's result). True only for the one caller that used it.
   */
  abstract invalidate (hash: string): Promise<boolean>

  /** Takes the claim on `key` for `ttlMs` unless another holds it: the claim id, or null. */
  abstract acquireClaim (key: string, ttlMs: number): Promise<string | null>
  /** Extends a claim this request still holds; false when it expired or another holds it now. */
  abstract renewClaim (claim: Claim, ttlMs: number): Promise<boolean>
  /** Releases the claim if `claim.id` still holds it (an expired claim may be another's by now). */
  abstract releaseClaim (claim: Claim): Promise<void>

  /** The claim key of a model; stores that shard by key may put it beside the model. */
  claimKey (identity: Identity): string {
    return `${identity.modelName}:${identity.id}`
  }

  /** The claim key of what a token acts on: its model, or the token itself when it points at none. */
  tokenClaimKey (token: Token): string {
    return token.details === null ? `token:${token.hash}` : this.claimKey(token.details)
  }

  /** Claims a model for one request; throws PAYWIRE_ERR_PAYMENT_BUSY while another request holds it. */
  async claimModel (identity: Identity, ttlMs: number): Promise<Claim> {
    return await this.claimByKey(this.claimKey(identity), ttlMs)
  }

  /** Takes the claim on a key (claimKey(), tokenClaimKey()); throws PAYWIRE_ERR_PAYMENT_BUSY while another holds it. */
  async claimByKey (key: string, ttlMs: number): Promise<Claim> {
    const id = await this.acquireClaim(key, ttlMs)
    if (id === null) throw new PAYWIRE_ERR_PAYMENT_BUSY()
    return { key, id }
  }

  /**
   * Finds a live token and claims what it acts on: null when there is no such token;
   * throws PAYWIRE_ERR_TOKEN_USED (with the after URL) for a used one and
   * PAYWIRE_ERR_PAYMENT_BUSY while another request holds the claim. A used token never
   * passes: stores that override it (one round trip) must read the token's state as of
   * the moment the claim is taken, never from before it.
   */
  async claim (hash: string, ttlMs: number): Promise<TokenClaim | null> {
    const token = await this.find(hash)
    if (token === null) {
      const used = await this.findUsedToken(hash)
      if (used !== null) throw tokenUsedError(used, used.targetUrl)
      return null
    }
    return await this.readUnderClaim(hash, await this.claimByKey(this.tokenClaimKey(token), ttlMs))
  }

  /**
   * The token read again once its claim is held. Read before, it may have been used up
   * since by the request that held the claim (it uses the token, then releases the claim):
   * then the claim is given back and the token answered as used (or unknown, if gone).
   */
  protected async readUnderClaim (hash: string, claim: Claim): Promise<TokenClaim | null> {
    const token = await this.find(hash)
    if (token !== null) return { token, claim }
    await this.releaseClaim(claim)
    const used = await this.findUsedToken(hash)
    if (used !== null) throw tokenUsedError(used, used.targetUrl)
    return null
  }

  /** findUsed(), with the URL the token was made for where the store keeps it (claim() reports it). */
  protected async findUsedToken (hash: string): Promise<(UsedToken & { targetUrl?: string }) | null> {
    return await this.findUsed(hash)
  }
}
