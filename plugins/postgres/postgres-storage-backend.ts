import type { Pool } from 'pg'
import {
  StorageBackend, assertTokenTtls, errorCodes,
  type CommitSet, type ModelClass, type Storage, type StorageOptions, type TokenStorage, type TokenTtls, hideConnection
} from '../core/engine/index.ts'
import { PostgresIdempotencyStore } from './postgres-idempotency-store.ts'
import { PostgresOutbox } from './postgres-outbox.ts'
import { PostgresStorage, commitCall, writePayload } from './postgres-storage.ts'
import { PostgresTokenStorage } from './postgres-token-storage.ts'
import { callCommit } from './sql.ts'

export interface PostgresStorageBackendOptions {
  /** The schema holding Paywire's tables (one per tenant if you like). Default "paywire". */
  schema?: string
  /** Token lifetimes by kind, in seconds. */
  tokenTtl?: TokenTtls
  /** How often expired tokens and claims are deleted, at most (ms). Default 60000. */
  sweepIntervalMs?: number
}

/**
 * Records, tokens and claims in one PostgreSQL schema. A request's commit (its writes, used
 * tokens and claim release) is one call of the schema's commit function: one transaction,
 * one round trip. With tokens elsewhere (Redis: the core plugin's tokenStorage option), the
 * base class commits step by step, each write still a compare-and-set.
 */
export class PostgresStorageBackend extends StorageBackend {
  readonly pool: Pool
  readonly schema: string
  readonly #tokenTtl: TokenTtls
  readonly #sweepIntervalMs: number | undefined
  readonly #commit: ReturnType<typeof commitCall>
  readonly #tokenStorages: PostgresTokenStorage[] = []
  readonly #idempotencyStores: PostgresIdempotencyStore[] = []

  constructor (pool: Pool, options: PostgresStorageBackendOptions = {}) {
    super()
    this.pool = pool
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'pool')
    this.schema = options.schema ?? 'paywire'
    this.#tokenTtl = assertTokenTtls(options.tokenTtl ?? {}, 'tokenTtl')
    this.#sweepIntervalMs = options.sweepIntervalMs
    this.#commit = commitCall(this.schema)
  }

  createTokenStorage (): TokenStorage {
    const tokens = new PostgresTokenStorage(this.pool, { schema: this.schema, ttl: this.#tokenTtl, sweepIntervalMs: this.#sweepIntervalMs })
    this.#tokenStorages.push(tokens)
    return tokens
  }

  /** Idempotency records in this schema (the GraphQL plugin's, under namespace "graphql"), shared by every instance. */
  override createIdempotencyStore (namespace: string): PostgresIdempotencyStore {
    const store = new PostgresIdempotencyStore(this.pool, { schema: this.schema, namespace, sweepIntervalMs: this.#sweepIntervalMs })
    this.#idempotencyStores.push(store)
    return store
  }

  createStorage<T extends object> (Model: ModelClass<T>, options: StorageOptions<T> = {}): Storage<T> {
    return new PostgresStorage(this.pool, Model, { ...options, schema: this.schema })
  }

  /**
   * One transaction when every part lives in this schema. With tokens and claims elsewhere
   * (Redis), the claim is checked there first, then every write in one transaction, then
   * the tokens are used up and the claim released: the records still commit all or nothing.
   */
  override async commit (set: CommitSet, tokens: TokenStorage): Promise<void> {
    const ownRecords = set.unstaged.length === 0 &&
      set.writes.every((write) => write.storage instanceof PostgresStorage && this.#mine(write.storage.pool, write.storage.schema))
    if (!ownRecords) return await super.commit(set, tokens)
    const ownTokens = tokens instanceof PostgresTokenStorage && this.#mine(tokens.pool, tokens.schema)
    if (!ownTokens) {
      await this.checkClaimAndTokens(set, tokens)
      if (set.writes.length > 0 || (set.events?.length ?? 0) > 0) await this.#apply(set, [])
      for (const hash of set.invalidateTokens) await tokens.invalidate(hash)
      if (set.claim !== undefined && set.releaseClaim) await tokens.releaseClaim(set.claim)
      return
    }
    await this.#apply(set, [
      `"tokens":${JSON.stringify(set.invalidateTokens)}`,
      `"usedTtlMs":${tokens.usedTokenTtlMs}`,
      ...(set.claim === undefined ? [] : [`"claim":${JSON.stringify({ key: set.claim.key, id: set.claim.id })}`, `"release":${set.releaseClaim}`])
    ])
  }

  async #apply (set: CommitSet, parts: string[]): Promise<void> {
    const writes = `"writes":[${set.writes.map((write) => writePayload(write.storage.modelName, write)).join(',')}]`
    // The events go in the same call: the function inserts them in the commit's transaction.
    const events = set.events === undefined || set.events.length === 0 ? [] : [`"events":${JSON.stringify(set.events)}`]
    const payload = `{${[writes, ...(parts.length === 0 ? ['"tokens":[]'] : parts), ...events].join(',')}}`
    const verdict = await callCommit(this.pool, this.#commit, payload)
    if (verdict === 'claim_lost') throw new errorCodes.PAYWIRE_ERR_CLAIM_LOST(set.claim?.key ?? '')
    if (verdict === 'token_used') throw new errorCodes.PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT()
    if (typeof verdict === 'number') {
      const write = set.writes[verdict - 1]!
      throw write.storage.conflict(write.id)
    }
  }

  /** SELECT 1 through the backend's pool (health reports: a closed port fails at once, a silent server is bounded by health's timeout). */
  override async ping (): Promise<void> {
    await this.pool.query('SELECT 1')
  }

  /** Events in the schema's outbox table, inserted by the commit function (migration 2). */
  override get outbox (): PostgresOutbox {
    return super.outbox as PostgresOutbox
  }

  protected override createOutbox (): PostgresOutbox {
    return new PostgresOutbox(this.pool, this.schema)
  }

  /** Waits for background sweeps (tokens, idempotency records), so the pool can end. */
  async settled (): Promise<void> {
    await Promise.all([...this.#tokenStorages, ...this.#idempotencyStores].map((store) => store.settled()))
  }

  #mine (pool: Pool, schema: string): boolean {
    return pool === this.pool && schema === this.schema
  }
}
