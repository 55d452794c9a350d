import { isErrorCode } from '../errors.ts'
import { isClientFailure, kindOf } from '../errors-kind.ts'
import type { Gateway } from './gateway.ts'
import type { Logger } from '../observability/logger.ts'
import { Identity } from '../model/identity.ts'
import { tokenPrefix } from '../observability/redact.ts'
import { Token } from '../model/token.ts'
import type { Reply } from '../requests/replies.ts'
import type { StagedWrite } from '../storage/abstract-storage.ts'
import type { OutboxRecord } from '../events/payment-events.ts'
import type { PaymentFacets } from '../storage/payment-search.ts'
import type { Claim, TokenStorage } from '../security/token-storage.ts'
import type { StorageBackend } from '../commit/storage-backend.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
import type { ReadCache } from '../storage/read-cache.ts'
import { describeGatewayRequest, runInSpan, startGatewayExecuteSpan } from '../observability/telemetry.ts'
import { UnitOfWork, type UnitOfWorkParts } from '../commit/unit-of-work.ts'

/**
 * How long a claim lasts unless renewed (its lease); it is renewed every third of it while the
 * request runs. Short, so that a holder that died (SIGKILL, a crashed host) keeps its
 * payments busy for seconds; long enough that two renewals in a row must fail to lose it.
 */
export const DEFAULT_CLAIM_TTL_MS = 6000
/** How often a request that lost a compare-and-set reads the payment again and re-runs. */
export const DEFAULT_EXCLUSIVE_ATTEMPTS = 3

export interface ExclusiveExecutorParts {
  tokenStorage: TokenStorage
  backend: StorageBackend
  storages: StorageRegistry
  logger: Logger
  claimTtlMs?: number
  attempts?: number
  /** Stages the events a commit's writes make (see UnitOfWorkParts.events); none without it. */
  events?: {
    describe: (writes: readonly StagedWrite[], gateway: Gateway, facets: Map<StagedWrite, PaymentFacets>) => OutboxRecord[]
    committed: (events: readonly OutboxRecord[]) => void
  }
}

/** What the request acts on: a token (its model), a model's identity, or a stored model. */
export type ExclusiveTarget = Token | Identity | object

export interface ExclusiveOptions {
  /** A claim the caller took already on the target (the token routes claim while finding the token). */
  claim?: Claim
  /** A token to use up when the request completes (no reply, no error), in the same commit. */
  invalidateToken?: Token
  /**
   * Records read together with `claim`, once it was held (TokenClaim.reads): the first attempt
   * starts from them instead of reading its payment again; a re-run reads afresh. Ignored
   * without `claim`.
   */
  reads?: ReadCache
}

export interface ExclusiveResult<R> {
  /** The gateway's reply (a redirect, a page), if it answered with one. */
  reply: Reply | undefined
  /** The request as the gateway left it (its model is the payment as stored). */
  request: R
  /** Whether the request changed anything that was stored (a gateway that had nothing to do changes nothing). */
  changed: boolean
}

/**
 * One writer per payment. Runs a gateway request on a payment while holding the payment's
 * claim: the claim is taken (or busy: PAYWIRE_ERR_PAYMENT_BUSY), renewed while the gateway
 * runs, and released in the same commit as the payment's changes and the token's
 * invalidation. The payment is read again under the claim (or, on a store that can, by the
 * same atomic step that took it: ExclusiveOptions.reads), so the request starts from
 * every fact stored before it. A request that still loses a compare-and-set (a writer that
 * does not claim, a claim that expired) reads again and re-runs, a bounded number of times;
 * gateways make that safe by storing provider idempotency ids before each call (Checkpoint).
 *
 * The payment routes, the GraphQL back office and webhooks go through it; application
 * code that changes a payment should too: `paywire.executeExclusive('paypal', payment,
 * (model) => new Refund(model, { amount: 500 }))`.
 */
export class ExclusiveExecutor {
  readonly claimTtlMs: number
  readonly attempts: number
  readonly #parts: ExclusiveExecutorParts

  constructor (parts: ExclusiveExecutorParts) {
    this.#parts = parts
    this.claimTtlMs = parts.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS
    this.attempts = parts.attempts ?? DEFAULT_EXCLUSIVE_ATTEMPTS
  }

  /** The identity the claim is taken on (a token's model; a stored model's identity). */
  identityOf (target: ExclusiveTarget): Identity | null {
    if (target instanceof Identity) return target
    if (target instanceof Token) return target.details
    return this.#parts.storages.get(target).identify(target)
  }

  execute<R> (gateway: Gateway, target: ExclusiveTarget, createRequest: (target: Token | Identity) => R,
    options: ExclusiveOptions = {}): Promise<ExclusiveResult<R>> {
    const span = startGatewayExecuteSpan(gateway.name, undefined)
    return span === undefined ? this.#execute(gateway, target, createRequest, options) : runInSpan(span, () => this.#execute(gateway, target, createRequest, options))
  }

  async #execute<R> (gateway: Gateway, target: ExclusiveTarget, createRequest: (target: Token | Identity) => R,
    options: ExclusiveOptions): Promise<ExclusiveResult<R>> {
    const { tokenStorage } = this.#parts
    const subject = target instanceof Token ? target : this.identityOf(target) as Identity
    const claim = options.claim ?? await tokenStorage.claimByKey(
      subject instanceof Token ? tokenStorage.tokenClaimKey(subject) : tokenStorage.claimKey(subject), this.claimTtlMs)
    const heartbeat = new Heartbeat(tokenStorage, claim, this.claimTtlMs)
    try {
      for (let attempt = 1; ; attempt++) {
        const unit = new UnitOfWork({ backend: this.#parts.backend, tokenStorage, claim, claimTtlMs: this.claimTtlMs, events: this.#eventsOf(gateway) })
        heartbeat.unit = unit
        try {
          return await this.#attempt(gateway, subject, createRequest, unit, options, attempt)
        } catch (error) {
          if (!isErrorCode(error, 'PAYWIRE_ERR_CONCURRENT_UPDATE') || attempt >= this.attempts) throw error
          this.#parts.logger.warn({ paywire: { gateway: gateway.name, claim: loggableClaimKey(claim.key), attempt } }, 'paywire: the payment changed under a claimed request; reading it again')
        }
      }
    } catch (error) {
      const released = tokenStorage.releaseClaim(claim).catch(() => {})
      // When the storage itself failed the request (down, silent, full), waiting for the
      // release would hold the answer for another command timeout: the 503 is promised within
      // one. The release is still sent (on Redis after the failed command, on the same
      // connection, so the buyer's retry finds it applied) and the lease lapses if it is lost.
      if (kindOf(error) !== 'unavailable') await released
      throw error
    } finally {
      heartbeat.stop()
    }
  }

  #eventsOf (gateway: Gateway): UnitOfWorkParts['events'] {
    const events = this.#parts.events
    return events === undefined ? undefined : { describe: (writes, facets) => events.describe(writes, gateway, facets), committed: events.committed }
  }

  async #attempt<R> (gateway: Gateway, subject: Token | Identity, createRequest: (target: Token | Identity) => R,
    unit: UnitOfWork, options: ExclusiveOptions, attempt: number): Promise<ExclusiveResult<R>> {
    const request = createRequest(subject)
    describeGatewayRequest(request, attempt)
    let reply: Reply | undefined
    try {
      // A copy read without the claim (none given) would not be one read under it.
      const reads = attempt === 1 && options.claim !== undefined ? options.reads : undefined
      reply = await gateway.execute(request, { catchReply: true, unit, reads })
    } catch (error) {
      // What the gateway recorded before it failed (a provider's refusal) is kept; a stale
      // copy (a lost compare-and-set, a lost claim) is not written at all.
      // Nor when the storage failed the gateway (a checkpoint it could not store): the commit
      // would wait out the same outage, and a failed checkpoint means no provider call was made.
      if (!isErrorCode(error, 'PAYWIRE_ERR_CONCURRENT_UPDATE') && !isErrorCode(error, 'PAYWIRE_ERR_CLAIM_LOST') && kindOf(error) !== 'unavailable') {
        // The request's own error is the answer; a commit failing after it is logged beside it,
        // unless the payment changed under the request: then it runs again on the fresh one.
        try {
          await unit.commit()
        } catch (failure) {
          if (isErrorCode(failure, 'PAYWIRE_ERR_CONCURRENT_UPDATE')) throw failure
          // What the request's own input made unstorable (a NUL character) is the caller's to fix, not an alarm.
          const log = isClientFailure(failure) ? this.#parts.logger.warn : this.#parts.logger.error
          log.call(this.#parts.logger, { err: failure }, 'paywire: storing what a failed request recorded failed too')
        }
      }
      throw error
    }
    if (reply === undefined && options.invalidateToken !== undefined) unit.invalidateToken(options.invalidateToken.hash)
    await unit.commit()
    return { reply, request, changed: unit.written > 0 }
  }
}

/** A claim key as a log line may show it: a token's (`token:<hash>`) keeps only the hash's prefix. */
function loggableClaimKey (key: string): string {
  return key.startsWith('token:') ? `token:${tokenPrefix(key.slice('token:'.length))}` : key
}

/**
 * Renews a claim every third of its lifetime while a request runs. A renewal that finds the
 * claim gone marks the unit's claim lost; one the storage failed (a blip) says nothing about it:
 * the lease still runs, the next renewal tells, and the commit checks the claim anyway.
 */
class Heartbeat {
  unit: UnitOfWork | undefined
  readonly #timer: NodeJS.Timeout

  constructor (tokens: TokenStorage, claim: Claim, ttlMs: number) {
    this.#timer = setInterval(() => {
      tokens.renewClaim(claim, ttlMs).then((held) => { if (!held) this.unit?.markClaimLost() }, () => {})
    }, Math.max(1, Math.floor(ttlMs / 3)))
    // A request in flight must not keep the process alive by itself.
    this.#timer.unref()
  }

  stop (): void {
    clearInterval(this.#timer)
  }
}
