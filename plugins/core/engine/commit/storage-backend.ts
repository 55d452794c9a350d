import { PAYWIRE_ERR_CLAIM_LOST, PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT } from '../errors.ts'
import { MemoryOutbox } from '../events/memory-outbox.ts'
import type { Outbox } from '../events/outbox.ts'
import { MemoryTokenStorage, type MemoryTokenStorageOptions } from '../security/memory-token-storage.ts'
import type { TokenStorage } from '../security/token-storage.ts'
import type { Token } from '../model/token.ts'
import { MemoryStorage } from '../storage/memory-storage.ts'
import type { StagedWrite, StorageOptions } from '../storage/abstract-storage.ts'
import type { CommitSet } from './commit-set.ts'
import type { IdempotencyStore } from '../storage/idempotency-store.ts'
import { MemoryIdempotencyStore } from '../storage/memory-idempotency-store.ts'
import type { ModelClass, Storage } from '../storage/storage.ts'

/**
 * Where a Paywire keeps its records: one object makes the token storage and a storage
 * per model class, so switching memory → Redis is one option, and gateways that bring
 * their own record class (PayPal's PaymentDetails) get a storage of the same kind. Also
 * the service id under which gateway containers find the application's backend.
 */
export abstract class StorageBackend {
  #outbox: Outbox | undefined

  abstract createTokenStorage (): TokenStorage
  abstract createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T>

  /**
   * Applies one request's writes, token invalidations and claim release. Backends whose
   * storages and token storage are all their own override it to do it in one atomic step
   * (a Lua script, a transaction). This default, for storages of mixed origin, goes step by
   * step in the order that keeps money facts safe: the claim is checked and the tokens to
   * use up too (one another request used refuses the commit: PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT),
   * then every model is written (each a compare-and-set), then tokens are used up and the claim released —
   * so a failure leaves tokens usable and at worst some models written. The events go
   * into the outbox right after the writes (a crash in between loses them: only the
   * backends' own atomic commits promise an event for every change).
   */
  async commit (set: CommitSet, tokens: TokenStorage): Promise<void> {
    await this.checkClaimAndTokens(set, tokens)
    for (const write of set.writes) await write.storage.write(write)
    for (const { storage, model } of set.unstaged) await storage.update(model)
    if (set.events !== undefined && set.events.length > 0) await this.outbox.append(set.events)
    for (const hash of set.invalidateTokens) await tokens.invalidate(hash)
    if (set.claim !== undefined && set.releaseClaim) await tokens.releaseClaim(set.claim)
  }

  /**
   * A model's write and the tokens that point at it, stored together (Paywire.prepareCapture).
   * This default sends both at once, each on its own (a pipelining client sends them in one
   * round trip); a backend that keeps the records and the tokens overrides it to store them in
   * one atomic step. `tokenStorage` is the one the tokens belong in, not necessarily this backend's.
   */
  async saveWithTokens (write: StagedWrite, tokens: readonly Token[], tokenStorage: TokenStorage): Promise<void> {
    await Promise.all([tokenStorage.save(tokens), write.storage.write(write)])
  }

  /**
   * The checks a step-by-step commit makes before writing anything: the claim is still the
   * request's (renewing it proves it), and no token it would use up was used by another request.
   */
  protected async checkClaimAndTokens (set: CommitSet, tokens: TokenStorage): Promise<void> {
    if (set.claim !== undefined && !await tokens.renewClaim(set.claim, set.claimTtlMs)) throw new PAYWIRE_ERR_CLAIM_LOST(set.claim.key)
    for (const hash of set.invalidateTokens) {
      if (await tokens.findUsed(hash) !== null) throw new PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT()
    }
  }

  /**
   * Idempotency records next to the backend's records, their keys apart under `namespace`
   * ("graphql"). Optional: without it, users of idempotency keep records in process memory.
   */
  createIdempotencyStore? (namespace: string): IdempotencyStore

  /**
   * Resolves when the backend's store answers (Redis: PING, PostgreSQL: SELECT 1); rejects or
   * never settles when it does not (Paywire.health() bounds the wait). Optional: a backend
   * without it is reported `unchecked` by health().
   */
  ping? (): Promise<void>

  /**
   * Where commits store their events until delivered (the transactional outbox). Backends
   * with atomic commits override createOutbox() and write the events in the commit itself;
   * the default keeps them in process memory.
   */
  get outbox (): Outbox {
    this.#outbox ??= this.createOutbox()
    return this.#outbox
  }

  protected createOutbox (): Outbox {
    return new MemoryOutbox()
  }
}

/** The embedded default: everything in process memory; commits are atomic (checked, then applied in one tick). */
export class MemoryStorageBackend extends StorageBackend {
  readonly #tokenOptions: MemoryTokenStorageOptions
  readonly #idempotency = new Map<string, MemoryIdempotencyStore>()

  constructor (tokenOptions: MemoryTokenStorageOptions = {}) {
    super()
    this.#tokenOptions = tokenOptions
  }

  createTokenStorage (): TokenStorage {
    return new MemoryTokenStorage(this.#tokenOptions)
  }

  createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T> {
    return new MemoryStorage(Model, options)
  }

  /** One store per namespace, shared by every Paywire on this backend, as Redis and PostgreSQL share theirs. */
  /** Process memory always answers. */
  override async ping (): Promise<void> {}

  override createIdempotencyStore (namespace: string): MemoryIdempotencyStore {
    let store = this.#idempotency.get(namespace)
    if (store === undefined) this.#idempotency.set(namespace, store = new MemoryIdempotencyStore())
    return store
  }

  override async commit (set: CommitSet, tokens: TokenStorage): Promise<void> {
    const inMemory = tokens instanceof MemoryTokenStorage && set.unstaged.length === 0 && this.outbox instanceof MemoryOutbox &&
      set.writes.every((write) => write.storage instanceof MemoryStorage)
    if (!inMemory) return await super.commit(set, tokens)
    // Everything below runs in one tick: no other request can interleave.
    if (set.claim !== undefined && !tokens.holds(set.claim)) throw new PAYWIRE_ERR_CLAIM_LOST(set.claim.key)
    if (set.invalidateTokens.some((hash) => tokens.isUsed(hash))) throw new PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT()
    for (const write of set.writes) {
      if (!(write.storage as MemoryStorage<object>).accepts(write)) throw write.storage.conflict(write.id)
    }
    for (const write of set.writes) (write.storage as MemoryStorage<object>).apply(write)
    if (set.events !== undefined) this.outbox.appendNow(set.events)
    for (const hash of set.invalidateTokens) tokens.invalidateNow(hash)
    if (set.claim !== undefined && set.releaseClaim) tokens.releaseNow(set.claim)
  }
}
